// server/audit_log: the audit line in both formats, and the access log's identity field.
#include "server/logs/audit_log.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "server/logs/access_log.h"
#include "tests/support/temp_dir.h"
#include "util/posix_file.h"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const absl::Time kAuditTime = absl::FromUnixMillis(1796277005123);  // 2026-12-03T05:50:05.123Z

AuditRecord Refusal() {
  AuditRecord record;
  record.rpc = "LoadModel";
  record.peer = "ipv4:127.0.0.1:50312";
  record.identity = "reader";
  record.code = absl::StatusCode::kPermissionDenied;
  record.message =
      "LoadModel needs a token with the admin scope; token 'reader' has the infer scope";
  return record;
}

std::string Line(LogFormat format, const AuditRecord& record) {
  testing::TempDir dir;
  absl::StatusOr<std::unique_ptr<AuditLog>> log = AuditLog::Open(dir.Join("audit.log"), format);
  EXPECT_TRUE(log.ok()) << log.status();
  return log.ok() ? (*log)->Format(record, kAuditTime) : "";
}

TEST(AuditLogTest, TextLineHasEveryFieldInOrder) {
  AuditRecord record = Refusal();
  EXPECT_EQ(Line(LogFormat::kText, record),
            "2026-12-03T05:50:05.123Z audit rpc=LoadModel peer=ipv4:127.0.0.1:50312 "
            "identity=reader model=\"\" code=PERMISSION_DENIED message=\"LoadModel needs a token "
            "with the admin scope; token 'reader' has the infer scope\"");
  record.model = "resnet";
  record.identity = "";
  record.code = absl::StatusCode::kOk;
  record.message = "";
  EXPECT_THAT(Line(LogFormat::kText, record),
              HasSubstr(" identity=\"\" model=resnet code=OK message=\"\""));
}

TEST(AuditLogTest, JsonLineIsOneObjectWithEveryField) {
  AuditRecord record = Refusal();
  record.model = "m\"1";
  const nlohmann::json line = nlohmann::json::parse(Line(LogFormat::kJson, record));
  EXPECT_EQ(line["time"], "2026-12-03T05:50:05.123Z");
  EXPECT_EQ(line["type"], "audit");
  EXPECT_EQ(line["rpc"], "LoadModel");
  EXPECT_EQ(line["peer"], "ipv4:127.0.0.1:50312");
  EXPECT_EQ(line["identity"], "reader");
  EXPECT_EQ(line["model"], "m\"1");
  EXPECT_EQ(line["code"], "PERMISSION_DENIED");
  EXPECT_EQ(line["message"], record.message);
}

TEST(AuditLogTest, RecordsAreWrittenByTheTimeItCloses) {
  testing::TempDir dir;
  const std::string path = dir.Join("audit.log");
  absl::StatusOr<std::unique_ptr<AuditLog>> log = AuditLog::Open(path, LogFormat::kText);
  ASSERT_TRUE(log.ok()) << log.status();
  (*log)->Record(Refusal());
  log->reset();
  absl::StatusOr<std::string> text = ReadFile(path);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, HasSubstr(" audit rpc=LoadModel "));
}

TEST(AuditLogTest, AFileThatCannotBeOpenedNamesTheFlag) {
  testing::TempDir dir;
  const std::string blocker = dir.Write("not-a-folder", "");
  absl::StatusOr<std::unique_ptr<AuditLog>> log =
      AuditLog::Open(blocker + "/audit.log", LogFormat::kText);
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(log.status().message()),
              StartsWith("--audit-log='" + blocker + "/audit.log': cannot open it: "));
}

TEST(AccessLogIdentityTest, TheIdentityFollowsThePeerAndIsLeftOutOfTextWhenEmpty) {
  testing::TempDir dir;
  for (const LogFormat format : {LogFormat::kText, LogFormat::kJson}) {
    absl::StatusOr<std::unique_ptr<AccessLog>> log =
        AccessLog::Open(dir.Join("access.log"), format);
    ASSERT_TRUE(log.ok()) << log.status();
    AccessRecord record;
    record.method = "Infer";
    record.peer = "ipv4:127.0.0.1:1";
    record.model = "m";
    const std::string anonymous = (*log)->Format(record, kAuditTime);
    record.identity = "ci-runner";
    const std::string named = (*log)->Format(record, kAuditTime);
    if (format == LogFormat::kText) {
      EXPECT_THAT(anonymous, HasSubstr(" peer=ipv4:127.0.0.1:1 model=m "));
      EXPECT_THAT(named, HasSubstr(" peer=ipv4:127.0.0.1:1 identity=ci-runner model=m "));
    } else {
      EXPECT_EQ(nlohmann::json::parse(anonymous)["identity"], "");
      EXPECT_EQ(nlohmann::json::parse(named)["identity"], "ci-runner");
    }
  }
}

}  // namespace
}  // namespace neuronserve
