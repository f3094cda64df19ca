#include "server/logs/access_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/temp_dir.h"
#include "util/posix_file.h"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const absl::Time kTime = absl::FromUnixMillis(1796277005123);  // 2026-12-03T05:50:05.123Z

AccessRecord Record() {
  AccessRecord record;
  record.method = "Infer";
  record.peer = "ipv4:127.0.0.1:50312";
  record.model = "resnet";
  record.version = "2";
  record.id = "req-7";
  record.code = absl::StatusCode::kNotFound;
  record.queued = absl::Microseconds(12);
  record.device = absl::Microseconds(3400);
  record.total = absl::Microseconds(3500);
  record.bytes_in = 4096;
  record.bytes_out = 40;
  return record;
}

std::unique_ptr<AccessLog> OpenOrDie(const std::string& path, LogFormat format, int fd = 1) {
  absl::StatusOr<std::unique_ptr<AccessLog>> log = AccessLog::Open(path, format, fd);
  EXPECT_TRUE(log.ok()) << log.status();
  return log.ok() ? *std::move(log) : nullptr;
}

// The line `record` makes at kTime in `format` (Format needs an open log: one in a temp folder).
std::string Line(LogFormat format, const AccessRecord& record) {
  testing::TempDir dir;
  std::unique_ptr<AccessLog> log = OpenOrDie(dir.Join("access.log"), format);
  return log != nullptr ? log->Format(record, kTime) : "";
}

TEST(AccessLogTest, TextLineHasEveryFieldInOrder) {
  EXPECT_EQ(Line(LogFormat::kText, Record()),
            "2026-12-03T05:50:05.123Z access method=Infer peer=ipv4:127.0.0.1:50312 model=resnet "
            "version=2 id=req-7 code=NOT_FOUND queue_us=12 device_us=3400 total_us=3500 "
            "bytes_in=4096 bytes_out=40");
}

TEST(AccessLogTest, TextValuesThatAreEmptyOrHoldSpacesQuotesOrEqualsAreQuoted) {
  AccessRecord record = Record();
  record.version = "";
  record.id = "a b";
  record.model = "x=\"y\\";
  EXPECT_THAT(Line(LogFormat::kText, record),
              HasSubstr(" model=\"x=\\\"y\\\\\" version=\"\" id=\"a b\" "));
}

TEST(AccessLogTest, JsonLineIsOneObjectWithEveryField) {
  AccessRecord record = Record();
  record.id = "quote\" and \n newline";
  const nlohmann::json line = nlohmann::json::parse(Line(LogFormat::kJson, record));
  EXPECT_EQ(line["time"], "2026-12-03T05:50:05.123Z");
  EXPECT_EQ(line["type"], "access");
  EXPECT_EQ(line["method"], "Infer");
  EXPECT_EQ(line["peer"], "ipv4:127.0.0.1:50312");
  EXPECT_EQ(line["model"], "resnet");
  EXPECT_EQ(line["version"], "2");
  EXPECT_EQ(line["id"], "quote\" and \n newline");
  EXPECT_EQ(line["code"], "NOT_FOUND");
  EXPECT_EQ(line["queue_us"], 12);
  EXPECT_EQ(line["device_us"], 3400);
  EXPECT_EQ(line["total_us"], 3500);
  EXPECT_EQ(line["bytes_in"], 4096);
  EXPECT_EQ(line["bytes_out"], 40);
}

TEST(AccessLogTest, ABatchedRequestNamesTheBatchItRanInAndNoOtherDoes) {
  AccessRecord record = Record();
  record.batch_rows = 5;
  record.batch_size = 8;
  EXPECT_THAT(Line(LogFormat::kText, record), HasSubstr(" bytes_out=40 batch_rows=5 batch_size=8"));
  const nlohmann::json line = nlohmann::json::parse(Line(LogFormat::kJson, record));
  EXPECT_EQ(line["batch_rows"], 5);
  EXPECT_EQ(line["batch_size"], 8);
  EXPECT_FALSE(nlohmann::json::parse(Line(LogFormat::kJson, Record())).contains("batch_rows"));
}

TEST(AccessLogTest, ATraceparentFollowsTheIdentityAndIsLeftOutOfTextLinesWhenEmpty) {
  AccessRecord record = Record();
  record.traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  EXPECT_THAT(Line(LogFormat::kText, record),
              HasSubstr(" peer=ipv4:127.0.0.1:50312 "
                        "traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01 "
                        "model=resnet "));
  EXPECT_EQ(nlohmann::json::parse(Line(LogFormat::kJson, record))["traceparent"],
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
  EXPECT_THAT(Line(LogFormat::kText, Record()), Not(HasSubstr("traceparent")));
}

TEST(AccessLogTest, ACodeWithoutANameIsWrittenAsItsNumber) {
  AccessRecord record = Record();
  record.code = static_cast<absl::StatusCode>(99);
  EXPECT_THAT(Line(LogFormat::kText, record), HasSubstr(" code=99 "));
}

TEST(AccessLogTest, RecordsAppendToTheFileAndAreAllWrittenByTheTimeItCloses) {
  testing::TempDir dir;
  const std::string path = dir.Write("access.log", "an earlier line\n");
  std::unique_ptr<AccessLog> log = OpenOrDie(path, LogFormat::kText);
  ASSERT_NE(log, nullptr);
  constexpr int kLines = 500;
  for (int i = 0; i < kLines; ++i) log->Record(Record());
  log.reset();  // the destructor writes every queued line

  absl::StatusOr<std::string> text = ReadFile(path);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, StartsWith("an earlier line\n"));
  EXPECT_EQ(std::count(text->begin(), text->end(), '\n'), kLines + 1);
  EXPECT_THAT(*text, HasSubstr(" access method=Infer peer=ipv4:127.0.0.1:50312 "));
}

TEST(AccessLogTest, DashWritesToTheGivenStandardOutput) {
  testing::TempDir dir;
  const std::string path = dir.Join("stdout");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  std::unique_ptr<AccessLog> log = OpenOrDie("-", LogFormat::kJson, fd);
  ::close(fd);  // the log writes to its own duplicate
  ASSERT_NE(log, nullptr);
  log->Record(Record());
  log.reset();

  absl::StatusOr<std::string> text = ReadFile(path);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, StartsWith("{\"time\":\""));
  EXPECT_THAT(*text, HasSubstr("\"type\":\"access\""));
}

TEST(AccessLogTest, AFileThatCannotBeOpenedIsUnavailableNamingThePath) {
  testing::TempDir dir;
  const std::string blocker = dir.Write("not-a-folder", "");
  const std::string path = blocker + "/access.log";
  absl::StatusOr<std::unique_ptr<AccessLog>> log = AccessLog::Open(path, LogFormat::kText);
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(log.status().message()),
              StartsWith("--access-log='" + path + "': cannot open it: "));
}

TEST(AccessLogTest, DashWithAClosedStandardOutputIsUnavailable) {
  absl::StatusOr<std::unique_ptr<AccessLog>> log = AccessLog::Open("-", LogFormat::kText, -1);
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(log.status().message()), StartsWith("--access-log=-: "));
}

}  // namespace
}  // namespace neuronserve
