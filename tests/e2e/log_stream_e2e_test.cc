// One log stream (--log-format=json) through the real daemon on the simulator: every line it
// writes to stderr is a JSON object, the daemon's own, gRPC's (logger "grpc") and the runtime's
// (logger "nrt", captured from fds 1 and 2) alike; the access log's "-" still writes to stdout;
// and when the runtime aborts the process, its last message still arrives, as a JSON line.
#include <csignal>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace log_stream_e2e_test {
namespace {

using ::testing::HasSubstr;

v1::InferRequest IdentityRequest(const std::string& model) {
  v1::InferRequest request;
  request.set_model(model);
  AddInput(request, "input", {1, 4}, {1, 2, 3, 4}, TensorForm::kRaw);
  return request;
}

// Every line of `output` parsed; a line that is not a JSON object fails the test.
std::vector<nlohmann::json> JsonLines(const std::string& output, std::string_view stream) {
  std::vector<nlohmann::json> lines;
  for (absl::string_view line : absl::StrSplit(output, '\n', absl::SkipEmpty())) {
    nlohmann::json parsed =
        nlohmann::json::parse(std::string(line), nullptr, /*allow_exceptions=*/false);
    EXPECT_TRUE(parsed.is_object()) << stream << " line is not a JSON object: " << line;
    if (parsed.is_object()) lines.push_back(std::move(parsed));
  }
  return lines;
}

std::vector<std::string> MessagesOf(const std::vector<nlohmann::json>& lines,
                                    std::string_view logger) {
  std::vector<std::string> messages;
  for (const nlohmann::json& line : lines) {
    if (line.value("logger", "") == logger) messages.push_back(line.value("message", ""));
  }
  return messages;
}

TEST(LogStreamE2ETest, WithJsonEveryLineIsJsonRuntimeAndGrpcIncluded) {
  DaemonArgs args = SimDaemonArgs({"--log-format=json", "--access-log=-"},
                                  // gRPC's own debug lines, which --log-level=info does not
                                  // hide because GRPC_VERBOSITY asks for them explicitly.
                                  {{"GRPC_VERBOSITY", "debug"}});
  args.capture_stdout = true;
  START_DAEMON(daemon, args);
  ASSERT_TRUE(Upload(*daemon->stub, Config("id"), EncodeNeff(IdentityModel({1, 4}))).status.ok());
  ASSERT_TRUE(Infer(*daemon->stub, IdentityRequest("id"), nullptr).ok());
  // A NEFF the runtime refuses: the simulator says why on its stderr.
  EXPECT_FALSE(Upload(*daemon->stub, Config("bad"), GarbageNeff()).status.ok());
  ASSERT_EQ(daemon->process->StopWith(SIGTERM), 0) << daemon->process->Stderr();

  const std::string stderr_text = daemon->process->Stderr();
  const std::vector<nlohmann::json> lines = JsonLines(stderr_text, "stderr");
  std::set<std::string> loggers;
  for (const nlohmann::json& line : lines) {
    loggers.insert(line.value("logger", ""));
    EXPECT_TRUE(line.contains("time") && line.contains("level") && line.contains("message"))
        << line.dump();
  }
  EXPECT_THAT(loggers, ::testing::IsSupersetOf({"neuron-serve", "nrt", "grpc"}));
  const std::vector<std::string> nrt = MessagesOf(lines, "nrt");
  EXPECT_THAT(nrt, ::testing::Contains(HasSubstr("nrtsim: nrt_init: simulated runtime")));
  EXPECT_THAT(nrt, ::testing::Contains(HasSubstr("nrtsim: nrt_load: ")));
  EXPECT_THAT(nrt, ::testing::Contains("nrtsim: nrt_close"));
  EXPECT_THAT(MessagesOf(lines, "neuron-serve"), ::testing::Contains("neuron-serve stopped"));

  // stdout holds the access log, nothing else: one JSON record for the one inference.
  const std::vector<nlohmann::json> access = JsonLines(daemon->process->Stdout(), "stdout");
  ASSERT_EQ(access.size(), 1u) << daemon->process->Stdout();
  EXPECT_EQ(access[0]["type"], "access");
  EXPECT_EQ(access[0]["model"], "id");
}

TEST(LogStreamE2ETest, TextFormatRoutesGrpcLinesThroughTheDaemonsLogger) {
  START_DAEMON(daemon, SimDaemonArgs({}, {{"GRPC_VERBOSITY", "debug"}}));
  ASSERT_EQ(daemon->process->StopWith(SIGTERM), 0);
  // gRPC's default log function writes "D1203 06:10:05.123456 ..." lines; ours are the
  // daemon's text lines, naming the logger.
  const std::string stderr_text = daemon->process->Stderr();
  EXPECT_THAT(stderr_text,
              ::testing::ContainsRegex("\\.[0-9]{3} (debug|info) grpc: [a-z_0-9]+\\.cc:[0-9]+: "));
  const std::regex grpc_default_line("^[DIE][0-9]{4} [0-9]{2}:");
  for (absl::string_view line : absl::StrSplit(stderr_text, '\n', absl::SkipEmpty())) {
    EXPECT_FALSE(std::regex_search(std::string(line), grpc_default_line)) << line;
  }
}

TEST(LogStreamE2ETest, AnAbortingRuntimesMessageStillReachesStderr) {
  START_DAEMON(daemon, SimDaemonArgs({"--log-format=json"}, {{"NRTSIM_ABORT_ON_EXECUTE", "1"}}));
  // The first execution aborts the daemon: the load (if it warms up) or the inference fails.
  if (Upload(*daemon->stub, Config("id"), EncodeNeff(IdentityModel({1, 4}))).status.ok()) {
    EXPECT_FALSE(Infer(*daemon->stub, IdentityRequest("id"), nullptr).ok());
  }
  // -1: killed by a signal (SIGABRT). WaitForExit also waits for the end of stderr, i.e. for
  // the forwarder, which outlives the daemon, to finish.
  EXPECT_EQ(daemon->process->WaitForExit(absl::Seconds(60)), -1);
  const std::vector<nlohmann::json> lines = JsonLines(daemon->process->Stderr(), "stderr");
  const std::vector<std::string> nrt = MessagesOf(lines, "nrt");
  EXPECT_THAT(nrt, ::testing::Contains("nrtsim: nrt_execute: aborting (NRTSIM_ABORT_ON_EXECUTE=1)"))
      << daemon->process->Stderr();
}

}  // namespace
}  // namespace log_stream_e2e_test
}  // namespace neuronserve::testing
