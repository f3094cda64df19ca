#include "server/logs/output_capture.h"

#include <signal.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/child_process.h"
#include "tests/support/build_paths.h"

namespace neuronserve {
namespace {

using ::neuronserve::testing::ChildProcess;
using ::neuronserve::testing::ChildSpec;

// Every line of `output` as JSON; a line that does not parse fails the test.
std::vector<nlohmann::json> JsonLines(const std::string& output) {
  std::vector<nlohmann::json> lines;
  for (absl::string_view line : absl::StrSplit(output, '\n', absl::SkipEmpty())) {
    nlohmann::json parsed =
        nlohmann::json::parse(std::string(line), nullptr, /*allow_exceptions=*/false);
    EXPECT_TRUE(parsed.is_object()) << "not a JSON object: " << line;
    if (parsed.is_object()) lines.push_back(std::move(parsed));
  }
  return lines;
}

std::vector<nlohmann::json> OfLogger(const std::vector<nlohmann::json>& lines,
                                     std::string_view logger) {
  std::vector<nlohmann::json> found;
  for (const nlohmann::json& line : lines) {
    if (line.value("logger", "") == logger) found.push_back(line);
  }
  return found;
}

TEST(CapturedLineLevelTest, FindsALevelWordNearTheStart) {
  EXPECT_EQ(CapturedLineLevel("2026-Dec-03 06:10:05 42:42 ERROR  NRT:nrt_init x", "info"), "error");
  EXPECT_EQ(CapturedLineLevel("[warn] low memory", "info"), "warning");
  EXPECT_EQ(CapturedLineLevel("nrtsim: warning: nrt_close with 1 model", "info"), "warning");
  EXPECT_EQ(CapturedLineLevel("FATAL: giving up", "info"), "critical");
  EXPECT_EQ(CapturedLineLevel("Debug: x", "warning"), "debug");
  EXPECT_EQ(CapturedLineLevel("<Info> x", "warning"), "info");
  // Prose is not a level.
  EXPECT_EQ(CapturedLineLevel("loaded model, no error at all", "info"), "info");
  EXPECT_EQ(CapturedLineLevel("info about the model", "warning"), "warning");
  EXPECT_EQ(CapturedLineLevel("a b c d ERROR", "warning"), "warning");  // too far in
  EXPECT_EQ(CapturedLineLevel("", "warning"), "warning");
}

TEST(ForwardCapturedOutputTest, BothStreamsBecomeNrtLinesUntilBothEnd) {
  int out[2], err[2], sink[2];
  ASSERT_EQ(pipe(out), 0);
  ASSERT_EQ(pipe(err), 0);
  ASSERT_EQ(pipe(sink), 0);
  const std::string out_bytes = "hello from stdout\nand an unterminated rest";
  const std::string err_bytes = "something went wrong\n\"quoted\" \\ \x01\xFF\n";
  ASSERT_EQ(write(out[1], out_bytes.data(), out_bytes.size()), ssize_t(out_bytes.size()));
  ASSERT_EQ(write(err[1], err_bytes.data(), err_bytes.size()), ssize_t(err_bytes.size()));
  close(out[1]);
  close(err[1]);
  ForwardCapturedOutput(out[0], err[0], sink[1]);  // returns at the end of both
  close(sink[1]);
  std::string written;
  char buffer[4096];
  for (ssize_t n; (n = read(sink[0], buffer, sizeof(buffer))) > 0;) written.append(buffer, n);
  close(sink[0]);
  const std::vector<nlohmann::json> lines = JsonLines(written);
  ASSERT_EQ(lines.size(), 4u) << written;
  std::vector<std::string> messages;
  for (const nlohmann::json& line : lines) {
    EXPECT_EQ(line["logger"], "nrt");
    EXPECT_TRUE(line.contains("time"));
    messages.push_back(line["message"]);
    const std::string level = line["level"];
    EXPECT_EQ(level, messages.back().find("stdout") != std::string::npos ||
                             messages.back().find("unterminated") != std::string::npos
                         ? "info"
                         : "warning")
        << messages.back();
  }
  EXPECT_THAT(messages, ::testing::UnorderedElementsAre(
                            "hello from stdout", "and an unterminated rest", "something went wrong",
                            "\"quoted\" \\ \x01\xEF\xBF\xBD"));
}

TEST(OutputCaptureTest, RefusesToForkOnceThreadsRun) {
  absl::Notification done;
  std::thread other([&] { done.WaitForNotification(); });
  absl::StatusOr<std::unique_ptr<OutputCapture>> capture = OutputCapture::Start();
  done.Notify();
  other.join();
  EXPECT_EQ(capture.status().code(), absl::StatusCode::kFailedPrecondition) << capture.status();
  if (capture.ok()) (*capture)->Stop();
}

struct ProbeRun {
  int exit_status;
  std::string stdout_text;
  std::string stderr_text;
};

ProbeRun RunProbe(const std::string& mode) {
  ChildSpec spec;
  spec.argv = {OUTPUT_CAPTURE_PROBE_PATH, mode};
  spec.capture_stdout = true;
  ChildProcess probe(spec);
  // Returns once the probe exited and both its streams ended: the forwarder, which holds the
  // original stderr, has exited too.
  const int exit_status = probe.WaitForExit(absl::Seconds(30));
  return {exit_status, probe.Stdout(), probe.Stderr()};
}

// What both runs share: every line on stderr is JSON, the captured lines are there with their
// levels, the overlong line is cut, and only the original-stdout line reached stdout.
void ExpectCapturedLines(const ProbeRun& run) {
  EXPECT_EQ(run.stdout_text, "not captured\n");
  const std::vector<nlohmann::json> lines = JsonLines(run.stderr_text);
  const std::vector<nlohmann::json> nrt = OfLogger(lines, "nrt");
  std::vector<std::string> messages;
  std::string long_line;
  for (const nlohmann::json& line : nrt) {
    const std::string message = line["message"];
    if (message.starts_with("x")) {
      long_line += message;
      EXPECT_EQ(line.value("continued", false), long_line.size() < 40000) << long_line.size();
      EXPECT_EQ(line["level"], "warning");
      continue;
    }
    messages.push_back(message);
    if (message == "stdout line one" || message == "partial line") {
      EXPECT_EQ(line["level"], "info") << message;
    }
    if (message.ends_with("stderr line")) {
      EXPECT_EQ(line["level"], "error");
    }
    EXPECT_FALSE(message.empty());
  }
  EXPECT_EQ(long_line, std::string(40000, 'x'));
  EXPECT_THAT(messages,
              ::testing::IsSupersetOf(
                  {"stdout line one", "partial line",
                   "2026-Dec-03 06:10:05.123 4242:4242 ERROR  NRT:nrt_init  stderr line"}));
  EXPECT_EQ(OfLogger(lines, "neuron-serve").front()["message"], "probe started");
}

TEST(OutputCaptureTest, CapturedOutputBecomesJsonLinesAndStopWritesThemAll) {
  const ProbeRun run = RunProbe("exit");
  EXPECT_EQ(run.exit_status, 0) << run.stderr_text;
  ExpectCapturedLines(run);
  EXPECT_EQ(OfLogger(JsonLines(run.stderr_text), "neuron-serve").back()["message"],
            "probe stopping");
}

TEST(OutputCaptureTest, AnAbortsMessageStillReachesTheOriginalStderr) {
  const ProbeRun run = RunProbe("abort");
  EXPECT_EQ(run.exit_status, -1) << "killed by SIGABRT: " << run.stderr_text;
  ExpectCapturedLines(run);
  const std::vector<nlohmann::json> nrt = OfLogger(JsonLines(run.stderr_text), "nrt");
  ASSERT_FALSE(nrt.empty());
  EXPECT_EQ(nrt.back()["message"], "probe: about to abort") << run.stderr_text;
}

}  // namespace
}  // namespace neuronserve
