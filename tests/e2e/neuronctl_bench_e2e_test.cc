// `neuronctl bench` (the real binary) against the real daemon on the simulator: each report
// format, unary and streaming, --requests, the server's queue limit showing up as errors, and
// the failures a user can hit (unknown model, unreachable server, bad flags, every request
// failing).
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "client/lib/client.h"
#include "client/simmodel/fault_spec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/simmodel/sim_model.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/support/build_paths.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/subprocess.h"

namespace neuronserve::testing {
namespace neuronctl_bench_e2e_test {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr uint64_t kBenchLatencyUs = 1000;

struct ModelSetup {
  std::string name = "id";
  std::vector<int64_t> shape = {1, 16};
  uint64_t latency_us = kBenchLatencyUs;
  uint32_t replicas = 2;
  uint32_t max_queue = 0;
  std::vector<std::string> faults;
};

// Loads an identity model over float32 (of setup.shape) through the client library.
void LoadBenchModel(const RunningDaemon& daemon, const ModelSetup& setup) {
  client::ConnectOptions options;
  options.target = daemon.address;
  options.timeout = absl::Seconds(60);
  absl::StatusOr<std::unique_ptr<client::Client>> client = client::Client::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  simmodel::SimModel model = IdentityModel(setup.shape, setup.latency_us);
  for (const std::string& spec : setup.faults) {
    absl::StatusOr<simmodel::Fault> fault = simmodel::ParseFaultSpec(spec);
    ASSERT_TRUE(fault.ok()) << fault.status();
    model.faults.push_back(*fault);
  }
  const std::string neff = EncodeNeff(model);
  v1::ModelConfig config = Config(setup.name);
  config.set_replicas(setup.replicas);
  config.set_max_queue(setup.max_queue);
  absl::StatusOr<v1::LoadModelResponse> loaded = (*client)->LoadModel(
      config,
      absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(neff.data()), neff.size()));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->model().replicas_size(), static_cast<int>(setup.replicas));
}

ProcessResult Bench(const std::string& server, const std::string& model,
                    std::vector<std::string> flags) {
  std::vector<std::string> argv = {NEURONCTL_PATH, "bench", model, "--server=" + server};
  argv.insert(argv.end(), flags.begin(), flags.end());
  return RunProcess(argv);
}

// The report's JSON, failing the test (and returning null) when stdout is not JSON.
nlohmann::json ParseReport(const ProcessResult& run) {
  nlohmann::json report = nlohmann::json::parse(run.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(report.is_discarded()) << "stdout is not JSON:\n" << run.out << "\n" << run.err;
  return report;
}

// A successful level of the identity model: requests, no errors, ordered percentiles, and
// server times that reflect the model's simulated latency.
void ExpectHealthyLevel(const nlohmann::json& level, int concurrency) {
  SCOPED_TRACE(level.dump());
  EXPECT_EQ(level["concurrency"], concurrency);
  EXPECT_GT(level["requests"].get<int64_t>(), 0);
  EXPECT_EQ(level["error_count"], 0);
  EXPECT_TRUE(level["errors"].empty());
  const nlohmann::json& latency = level["latency_ms"];
  ASSERT_TRUE(latency["p50"].is_number());
  EXPECT_LE(latency["p50"].get<double>(), latency["p90"].get<double>());
  EXPECT_LE(latency["p90"].get<double>(), latency["p95"].get<double>());
  EXPECT_LE(latency["p95"].get<double>(), latency["p99"].get<double>());
  const double device_ms = level["mean_device_ms"].get<double>();
  EXPECT_GE(device_ms, 0.9 * kBenchLatencyUs / 1000.0);
  EXPECT_LT(device_ms, 50.0);
  EXPECT_GE(level["mean_queue_ms"].get<double>(), 0.0);
  // The client waits at least as long as the device works.
  EXPECT_GE(latency["p50"].get<double>(), 0.9 * kBenchLatencyUs / 1000.0);
  EXPECT_NEAR(level["throughput_rps"].get<double>(),
              level["requests"].get<double>() / level["measured_s"].get<double>(), 1e-6);
}

TEST(NeuronctlBenchE2ETest, JsonReportsEveryLevelWithTheModelsDeviceTime) {
  START_DAEMON(daemon, SimDaemonArgs());
  LoadBenchModel(*daemon, {});
  if (HasFatalFailure()) return;
  const ProcessResult run =
      Bench(daemon->address, "id",
            {"--concurrency-range=1:4:x2", "--duration=1s", "--warmup=200ms", "--output=json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json report = ParseReport(run);
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["model"], "id");
  EXPECT_EQ(report["api"], "unary");
  EXPECT_EQ(report["form"], "raw");
  EXPECT_DOUBLE_EQ(report["duration_s"].get<double>(), 1.0);
  ASSERT_EQ(report["levels"].size(), 3u);
  ExpectHealthyLevel(report["levels"][0], 1);
  ExpectHealthyLevel(report["levels"][1], 2);
  ExpectHealthyLevel(report["levels"][2], 4);
  // One request in flight at >= 1 ms each: at most ~1000 complete in a 1 s window.
  EXPECT_LE(report["levels"][0]["requests"].get<int64_t>(), 1001);

  // The server executed at least every request the report counted (plus the warmups).
  int64_t counted = 0;
  for (const nlohmann::json& level : report["levels"]) counted += level["requests"].get<int64_t>();
  v1::ModelStatus status;
  ASSERT_TRUE(GetModel(*daemon->stub, "id", &status).ok());
  int64_t executions = 0;
  for (const v1::ModelReplica& replica : status.replicas()) executions += replica.executions();
  EXPECT_GE(executions, counted);

  // stderr is not a terminal: one line per level, no '\r' progress.
  EXPECT_THAT(run.err,
              AllOf(HasSubstr("level 1/3, concurrency 1"), HasSubstr("level 3/3, concurrency 4")));
  EXPECT_EQ(run.err.find('\r'), std::string::npos);
}

// --shared-memory on both protocols: the tensors go through a registered region, so a model
// whose 2 MiB tensors exceed the daemon's 1 MiB message limit is measured without an error
// (and fails every request without the flag); the region is gone when the run ends.
TEST(NeuronctlBenchE2ETest, SharedMemoryCarriesTensorsTooBigForAMessageAndCleansUp) {
  START_DAEMON(daemon,
               SimDaemonArgs({"--allow-client-shared-memory", "--max-message-bytes=1048576"}));
  LoadBenchModel(*daemon, {.shape = {1, 512 * 1024}, .latency_us = 100});
  if (HasFatalFailure()) return;
  const std::string prefix = absl::StrCat("nsbench", getpid());
  for (const std::vector<std::string>& api :
       {std::vector<std::string>{"--protocol=native"},
        std::vector<std::string>{"--protocol=v2", "--stream"}}) {
    SCOPED_TRACE(absl::StrJoin(api, " "));
    std::vector<std::string> flags = {"--shared-memory",
                                      "--shared-memory-prefix=" + prefix,
                                      "--concurrency-range=1:2",
                                      "--requests=20",
                                      "--warmup=0",
                                      "--output=json"};
    flags.insert(flags.end(), api.begin(), api.end());
    const ProcessResult run = Bench(daemon->address, "id", flags);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const nlohmann::json report = ParseReport(run);
    EXPECT_EQ(report["form"], "shared-memory");
    ASSERT_EQ(report["levels"].size(), 2u);
    for (const nlohmann::json& level : report["levels"]) {
      EXPECT_EQ(level["requests"], 20) << level.dump();
      EXPECT_EQ(level["error_count"], 0) << level.dump();
    }
    EXPECT_THAT(run.err, HasSubstr("shared-memory (region of "));
  }
  // Nothing left registered, nor in /dev/shm.
  client::ConnectOptions options;
  options.target = daemon->address;
  absl::StatusOr<std::unique_ptr<client::Client>> client = client::Client::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  absl::StatusOr<std::vector<client::SharedMemoryRegionStatus>> regions =
      (*client)->SharedMemoryStatus();
  ASSERT_TRUE(regions.ok()) << regions.status();
  EXPECT_TRUE(regions->empty());
  for (const std::filesystem::directory_entry& entry :
       std::filesystem::directory_iterator("/dev/shm")) {
    EXPECT_FALSE(absl::StartsWith(entry.path().filename().string(), prefix)) << entry.path();
  }

  // The same requests in the message are over the limit, every one.
  const ProcessResult in_message =
      Bench(daemon->address, "id", {"--requests=5", "--warmup=0", "--output=json"});
  EXPECT_EQ(in_message.exit_code, 1);
  EXPECT_THAT(in_message.err, HasSubstr("RESOURCE_EXHAUSTED"));
}

TEST(NeuronctlBenchE2ETest, StreamingKeepsOneRequestInFlightPerStream) {
  START_DAEMON(daemon, SimDaemonArgs());
  LoadBenchModel(*daemon, {});
  if (HasFatalFailure()) return;
  const ProcessResult run =
      Bench(daemon->address, "id",
            {"--stream", "--concurrency-range=2", "--duration=1s", "--warmup=0", "--format=json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json report = ParseReport(run);
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["api"], "stream");
  ASSERT_EQ(report["levels"].size(), 1u);
  ExpectHealthyLevel(report["levels"][0], 2);
}

TEST(NeuronctlBenchE2ETest, CsvHasAHeaderAndARowPerLevel) {
  START_DAEMON(daemon, SimDaemonArgs());
  LoadBenchModel(*daemon, {});
  if (HasFatalFailure()) return;
  const ProcessResult run =
      Bench(daemon->address, "id",
            {"--format=csv", "--concurrency-range=1:2", "--duration=500ms", "--warmup=0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> lines = absl::StrSplit(run.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u) << run.out;
  EXPECT_THAT(lines[0], StartsWith("concurrency,requests,errors,throughput_rps,p50_ms"));
  const std::vector<std::string> header = absl::StrSplit(lines[0], ',');
  for (size_t row = 1; row < lines.size(); ++row) {
    const std::vector<std::string> fields = absl::StrSplit(lines[row], ',');
    ASSERT_EQ(fields.size(), header.size()) << lines[row];
    EXPECT_EQ(fields[0], std::to_string(row));  // concurrency 1, then 2
    EXPECT_NE(fields[1], "0");                  // requests
    EXPECT_EQ(fields[2], "0");                  // errors
    EXPECT_EQ(fields.back(), "");               // no error codes
  }
}

TEST(NeuronctlBenchE2ETest, RequestsGivesExactlyThatManyPerLevel) {
  START_DAEMON(daemon, SimDaemonArgs());
  LoadBenchModel(*daemon, {});
  if (HasFatalFailure()) return;
  const ProcessResult run = Bench(daemon->address, "id",
                                  {"--requests=37", "--concurrency-range=1:3", "--warmup=100ms",
                                   "--form=float", "--output=json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json report = ParseReport(run);
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["form"], "typed");  // --form=float is the older name of typed
  EXPECT_EQ(report["requests_per_level"], 37);
  ASSERT_EQ(report["levels"].size(), 3u);
  for (int i = 0; i < 3; ++i) {
    ExpectHealthyLevel(report["levels"][i], i + 1);
    EXPECT_EQ(report["levels"][i]["requests"], 37);
  }
}

TEST(NeuronctlBenchE2ETest, TheDefaultTableHasItsColumnsAndARowPerLevel) {
  START_DAEMON(daemon, SimDaemonArgs());
  LoadBenchModel(*daemon, {});
  if (HasFatalFailure()) return;
  const ProcessResult run =
      Bench(daemon->address, "id", {"--requests=20", "--concurrency-range=2", "--warmup=0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> lines = absl::StrSplit(run.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u) << run.out;
  for (const char* title : {"concurrency", "requests", "req/s", "p50 ms", "p90 ms", "p95 ms",
                            "p99 ms", "queue ms", "device ms", "batch", "errors"}) {
    EXPECT_THAT(lines[0], HasSubstr(title));
  }
  const std::vector<std::string> fields = absl::StrSplit(lines[1], ' ', absl::SkipEmpty());
  ASSERT_EQ(fields.size(), 11u) << lines[1];
  EXPECT_EQ(fields[0], "2");
  EXPECT_EQ(fields[1], "20");
  EXPECT_GE(std::stod(fields[8]), 0.9);  // device ms
  EXPECT_EQ(fields[9], "-");             // an unbatched model: no batch reported
  EXPECT_EQ(fields[10], "-");            // no errors
}

TEST(NeuronctlBenchE2ETest, AFullQueueCountsUnavailableUnderErrors) {
  START_DAEMON(daemon, SimDaemonArgs());
  // One replica at 100 ms and room for one waiting request: of 6 in flight, at most 2 are
  // accepted at any time, so the others are refused with UNAVAILABLE from the start.
  LoadBenchModel(
      *daemon,
      {.name = "slow", .latency_us = 100'000, .replicas = 1, .max_queue = 1, .faults = {}});
  if (HasFatalFailure()) return;
  const ProcessResult run =
      Bench(daemon->address, "slow",
            {"--concurrency-range=6", "--duration=1s", "--warmup=0", "--output=json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json report = ParseReport(run);
  ASSERT_TRUE(report.is_object());
  ASSERT_EQ(report["levels"].size(), 1u);
  const nlohmann::json& level = report["levels"][0];
  EXPECT_GT(level["errors"]["UNAVAILABLE"].get<int64_t>(), 0) << level.dump();
  EXPECT_EQ(level["errors"].size(), 1u) << level.dump();
  EXPECT_EQ(level["error_count"], level["errors"]["UNAVAILABLE"]);
  // One execution at a time, 100 ms each, in a 1 s window.
  EXPECT_GE(level["requests"].get<int64_t>(), 1);
  EXPECT_LE(level["requests"].get<int64_t>(), 11);
  EXPECT_GE(level["mean_device_ms"].get<double>(), 90.0);
}

TEST(NeuronctlBenchE2ETest, EveryRequestFailingPrintsTheReportAndExitsOne) {
  START_DAEMON(daemon, SimDaemonArgs());
  LoadBenchModel(
      *daemon,
      {.name = "bad", .latency_us = 0, .replicas = 1, .faults = {"every=1:NRT_EXEC_BAD_INPUT"}});
  if (HasFatalFailure()) return;
  const ProcessResult run =
      Bench(daemon->address, "bad",
            {"--concurrency-range=1:2", "--requests=5", "--warmup=0", "--output=json"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const nlohmann::json report = ParseReport(run);
  ASSERT_TRUE(report.is_object());
  // The failing level is reported; the next one is not run.
  ASSERT_EQ(report["levels"].size(), 1u);
  const nlohmann::json& level = report["levels"][0];
  EXPECT_EQ(level["requests"], 0);
  EXPECT_EQ(level["errors"]["INVALID_ARGUMENT"], 5);
  EXPECT_TRUE(level["latency_ms"]["p50"].is_null());
  EXPECT_THAT(run.err, AllOf(HasSubstr("every request at concurrency 1 failed"),
                             HasSubstr("INVALID_ARGUMENT: 5"), HasSubstr("NRT_EXEC_BAD_INPUT")));
}

TEST(NeuronctlBenchE2ETest, AnUnknownModelExitsOneNamingIt) {
  START_DAEMON(daemon, SimDaemonArgs());
  const ProcessResult run = Bench(daemon->address, "nope", {"--duration=1s"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, AllOf(HasSubstr("neuronctl bench"), HasSubstr("'nope'")));
  EXPECT_EQ(run.out, "");
}

TEST(NeuronctlBenchE2ETest, AnUnreachableServerExitsOneNamingIt) {
  const ProcessResult run = Bench("127.0.0.1:1", "id", {"--duration=1s", "--timeout=10s"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("127.0.0.1:1"));
  EXPECT_EQ(run.out, "");
}

TEST(NeuronctlBenchE2ETest, ABadConcurrencyRangeIsAUsageError) {
  for (const char* range : {"0:4", "4:2", "1:8:x1", "1:8:y"}) {
    const ProcessResult run =
        Bench("127.0.0.1:1", "id", {std::string("--concurrency-range=") + range});
    EXPECT_EQ(run.exit_code, 2) << range;
    EXPECT_THAT(run.err,
                AllOf(HasSubstr("--concurrency-range"), HasSubstr(std::string("'") + range + "'")));
  }
}

}  // namespace
}  // namespace neuronctl_bench_e2e_test
}  // namespace neuronserve::testing
