// Unit tests of `neuronctl bench`'s parts: --concurrency-range, nearest-rank percentiles, the
// level runner against a fake server, input generation, the report formats and the progress
// line, and the command's usage errors (which fail before any server is contacted).
#include <algorithm>
#include <cstring>
#include <atomic>
#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "client/neuronctl/bench/bench_command.h"
#include "client/neuronctl/bench/bench_inputs.h"
#include "client/neuronctl/bench/bench_level_runner.h"
#include "client/neuronctl/bench/bench_report.h"
#include "client/neuronctl/bench/concurrency_range.h"
#include "client/neuronctl/bench/latency_stats.h"
#include "client/neuronctl/bench/progress_line.h"
#include "client/neuronctl/dispatch.h"
#include "client/neuronctl/usage_error.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace neuronserve::neuronctl {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// --- --concurrency-range ---------------------------------------------------------------------

std::vector<uint32_t> Levels(absl::string_view value) {
  absl::StatusOr<std::vector<uint32_t>> levels = ParseConcurrencyRange(value);
  EXPECT_TRUE(levels.ok()) << value << ": " << levels.status();
  return levels.ok() ? *levels : std::vector<uint32_t>{};
}

TEST(BenchConcurrencyRangeTest, MultiplyingStepIncludesEndWhenLandedOn) {
  EXPECT_THAT(Levels("1:16:x2"), ElementsAre(1, 2, 4, 8, 16));
  EXPECT_THAT(Levels("3:100:x3"), ElementsAre(3, 9, 27, 81));
}

TEST(BenchConcurrencyRangeTest, EndIsALevelOnlyWhenAStepLandsOnIt) {
  EXPECT_THAT(Levels("1:10:x2"), ElementsAre(1, 2, 4, 8));
  EXPECT_THAT(Levels("2:9:3"), ElementsAre(2, 5, 8));
}

TEST(BenchConcurrencyRangeTest, AddingStepLikePerfAnalyzer) {
  EXPECT_THAT(Levels("4:16:4"), ElementsAre(4, 8, 12, 16));
  EXPECT_THAT(Levels("1:3"), ElementsAre(1, 2, 3));
  EXPECT_THAT(Levels("5"), ElementsAre(5));
  EXPECT_THAT(Levels("1:1"), ElementsAre(1));
  EXPECT_THAT(Levels("7:7:x2"), ElementsAre(7));
}

TEST(BenchConcurrencyRangeTest, AHugeStepLeavesOnlyStart) {
  EXPECT_THAT(Levels("1:1024:9999999999999999999"), ElementsAre(1));
  EXPECT_THAT(Levels("2:1024:x9999999999999999999"), ElementsAre(2));
}

TEST(BenchConcurrencyRangeTest, UpToTheLimit) {
  EXPECT_THAT(Levels("512:1024:x2"), ElementsAre(512, 1024));
}

TEST(BenchConcurrencyRangeTest, BadRangesAreUsageErrorsNamingFlagAndValue) {
  for (absl::string_view bad :
       {"", "0", "0:4", "4:2", "1:4:0", "1:4:x1", "1:4:x0", "1:4:x", "1:4:-1", "a:b", "1:2:3:4",
        "1:2000", "+1:4", " 1:4", "1::2", "1:4:2x", "1:4:*2"}) {
    absl::StatusOr<std::vector<uint32_t>> levels = ParseConcurrencyRange(bad);
    ASSERT_FALSE(levels.ok()) << "'" << bad << "' was accepted";
    EXPECT_TRUE(IsUsageError(levels.status())) << bad;
    EXPECT_THAT(levels.status().message(),
                AllOf(HasSubstr("--concurrency-range"), HasSubstr(absl::StrCat("'", bad, "'"))));
  }
}

// --- percentiles -----------------------------------------------------------------------------

TEST(BenchLatencyStatsTest, NearestRankOfOneToHundredIsTheRankItself) {
  LatencyStats stats;
  // Added in reverse, so the test also covers the sort.
  for (int64_t value = 100; value >= 1; --value) stats.Add(value);
  EXPECT_EQ(stats.Percentile(50), 50);
  EXPECT_EQ(stats.Percentile(90), 90);
  EXPECT_EQ(stats.Percentile(95), 95);
  EXPECT_EQ(stats.Percentile(99), 99);
  EXPECT_EQ(stats.Percentile(100), 100);
  EXPECT_EQ(stats.Percentile(0.5), 1);
}

TEST(BenchLatencyStatsTest, NearestRankOfTenSamples) {
  LatencyStats stats;
  for (int64_t value : {70, 10, 40, 20, 100, 30, 90, 60, 50, 80}) stats.Add(value);
  // ceil(0.5 * 10) = 5, ceil(0.9 * 10) = 9, ceil(0.95 * 10) = 10, ceil(0.99 * 10) = 10.
  const LatencySummary summary = stats.Summarize();
  EXPECT_EQ(summary.count, 10u);
  EXPECT_EQ(summary.p50_ns, 50);
  EXPECT_EQ(summary.p90_ns, 90);
  EXPECT_EQ(summary.p95_ns, 100);
  EXPECT_EQ(summary.p99_ns, 100);
  EXPECT_EQ(summary.mean_ns, 55);
}

TEST(BenchLatencyStatsTest, OneSampleIsEveryPercentileAndNoneIsZero) {
  LatencyStats one;
  one.Add(7);
  EXPECT_EQ(one.Percentile(1), 7);
  EXPECT_EQ(one.Percentile(99), 7);
  LatencyStats none;
  const LatencySummary summary = none.Summarize();
  EXPECT_EQ(summary.count, 0u);
  EXPECT_EQ(summary.p99_ns, 0);
  EXPECT_EQ(summary.mean_ns, 0);
}

TEST(BenchLatencyStatsTest, MergeCombinesWorkers) {
  LatencyStats a, b, all;
  for (int64_t value = 1; value <= 50; ++value) a.Add(value * 2);     // even
  for (int64_t value = 0; value < 50; ++value) b.Add(value * 2 + 1);  // odd
  all.Merge(std::move(a));
  all.Merge(std::move(b));
  EXPECT_EQ(all.count(), 100u);
  EXPECT_EQ(a.count(), 0u);
  EXPECT_EQ(all.Percentile(50), 50);
  EXPECT_EQ(all.Percentile(99), 99);
}

// --- the level runner, against a fake server -------------------------------------------------

// Answers after `latency`, failing every `fail_every`th request (0: none) with
// RESOURCE_EXHAUSTED, and tracks how many requests are in flight at once.
struct FakeServer {
  absl::Duration latency = absl::Milliseconds(2);
  uint64_t fail_every = 0;
  // Answers report batches of 1 to batch_rows_cycle rows in turn; 0: no batch reported.
  uint32_t batch_rows_cycle = 0;
  std::atomic<uint64_t> served{0};
  std::atomic<int> in_flight{0};
  std::atomic<int> most_in_flight{0};
};

class FakeIssuer : public RequestIssuer {
 public:
  explicit FakeIssuer(FakeServer& server) : server_(server) {}
  absl::StatusOr<ServerTimes> Issue() override {
    const int now = server_.in_flight.fetch_add(1) + 1;
    int most = server_.most_in_flight.load();
    while (now > most && !server_.most_in_flight.compare_exchange_weak(most, now)) {
    }
    absl::SleepFor(server_.latency);
    server_.in_flight.fetch_sub(1);
    const uint64_t number = server_.served.fetch_add(1) + 1;
    if (server_.fail_every != 0 && number % server_.fail_every == 0) {
      return absl::ResourceExhaustedError("queue is full");
    }
    const uint32_t batch_rows =
        server_.batch_rows_cycle == 0 ? 0 : 1 + number % server_.batch_rows_cycle;
    return ServerTimes{absl::Microseconds(100), absl::Microseconds(1500), batch_rows};
  }

 private:
  FakeServer& server_;
};

IssuerFactory FactoryOf(FakeServer& server) {
  return [&server]() { return std::make_unique<FakeIssuer>(server); };
}

TEST(BenchLevelRunnerTest, ARequestCountIsExactAndConcurrencyIsHeld) {
  FakeServer server;
  LevelOptions options;
  options.concurrency = 4;
  options.requests = 101;
  const LevelResult result = RunLevel(options, FactoryOf(server), {});
  EXPECT_EQ(result.concurrency, 4u);
  EXPECT_EQ(result.requests, 101u);
  EXPECT_EQ(result.error_count(), 0u);
  EXPECT_EQ(server.served.load(), 101u);  // no warmup: nothing but the counted requests
  EXPECT_EQ(server.most_in_flight.load(), 4);
  EXPECT_EQ(result.latency.count, 101u);
  EXPECT_GE(result.latency.p50_ns, absl::ToInt64Nanoseconds(server.latency));
  EXPECT_LE(result.latency.p50_ns, result.latency.p90_ns);
  EXPECT_LE(result.latency.p90_ns, result.latency.p95_ns);
  EXPECT_LE(result.latency.p95_ns, result.latency.p99_ns);
  EXPECT_EQ(result.mean_queue_ns, 100'000);
  EXPECT_EQ(result.mean_device_ns, 1'500'000);
  EXPECT_EQ(result.mean_batch_rows, 0);  // the server reported no batch
  // 101 requests of >= 2 ms on 4 workers take at least 26 rounds.
  EXPECT_GE(result.measured, absl::Milliseconds(2 * 26));
  EXPECT_GT(result.throughput(), 0);
}

TEST(BenchLevelRunnerTest, TheMeanBatchIsOverTheAnswersThatReportedOne) {
  FakeServer server;
  server.latency = absl::Microseconds(100);
  server.batch_rows_cycle = 4;  // answers of 2, 3, 4, 1, 2, 3, 4, 1, ... rows
  LevelOptions options;
  options.concurrency = 2;
  options.requests = 400;  // 100 of each: a mean of exactly 2.5
  const LevelResult result = RunLevel(options, FactoryOf(server), {});
  EXPECT_EQ(result.requests, 400u);
  EXPECT_DOUBLE_EQ(result.mean_batch_rows, 2.5);
}

TEST(BenchLevelRunnerTest, ErrorsAreCountedByCodeNameAndLeftOutOfLatencies) {
  FakeServer server;
  server.fail_every = 4;
  LevelOptions options;
  options.concurrency = 1;  // one worker: the failing requests are exactly every 4th
  options.requests = 40;
  const LevelResult result = RunLevel(options, FactoryOf(server), {});
  EXPECT_EQ(result.requests, 30u);
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors.at("RESOURCE_EXHAUSTED"), 10u);
  EXPECT_EQ(result.latency.count, 30u);
  EXPECT_THAT(result.first_error, HasSubstr("queue is full"));
}

TEST(BenchLevelRunnerTest, WarmupIsNotCountedAndDurationBoundsTheWindow) {
  FakeServer server;
  LevelOptions options;
  options.concurrency = 2;
  options.warmup = absl::Milliseconds(200);
  options.duration = absl::Milliseconds(300);
  std::vector<LevelProgress> snapshots;
  const absl::Time start = absl::Now();
  const LevelResult result = RunLevel(
      options, FactoryOf(server),
      [&](const LevelProgress& progress) { snapshots.push_back(progress); },
      absl::Milliseconds(50));
  const absl::Duration took = absl::Now() - start;
  EXPECT_GE(took, absl::Milliseconds(500));
  EXPECT_EQ(result.measured, absl::Milliseconds(300));
  EXPECT_GT(result.requests, 0u);
  // The warmup's requests were served but not counted.
  EXPECT_LT(result.requests, server.served.load());
  // At most 2 workers * 300 ms / 2 ms, plus one straddling the start per worker.
  EXPECT_LE(result.requests, 302u);
  EXPECT_NEAR(result.throughput(), static_cast<double>(result.requests) / 0.3, 1e-6);

  ASSERT_FALSE(snapshots.empty());
  EXPECT_TRUE(snapshots.front().warming_up);
  EXPECT_EQ(snapshots.front().total, absl::Milliseconds(200));
  EXPECT_EQ(snapshots.front().requests, 0u);
  EXPECT_FALSE(snapshots.back().warming_up);
  EXPECT_EQ(snapshots.back().total, absl::Milliseconds(300));
  EXPECT_LE(snapshots.back().elapsed, absl::Milliseconds(300));
  EXPECT_GT(snapshots.back().current_rate, 0);
}

TEST(BenchLevelRunnerTest, EveryRequestFailingLeavesNoLatencies) {
  FakeServer server;
  server.fail_every = 1;
  LevelOptions options;
  options.concurrency = 3;
  options.requests = 9;
  const LevelResult result = RunLevel(options, FactoryOf(server), {});
  EXPECT_EQ(result.requests, 0u);
  EXPECT_EQ(result.error_count(), 9u);
  EXPECT_EQ(result.latency.p99_ns, 0);
  EXPECT_EQ(result.mean_device_ns, 0);
  EXPECT_EQ(result.throughput(), 0);
}

// --- inputs ----------------------------------------------------------------------------------

v1::ModelStatus ModelWithInputs(
    const std::vector<std::pair<std::string, std::vector<uint32_t>>>& inputs,
    const std::string& dtype = "float32") {
  v1::ModelStatus model;
  model.set_name("m");
  model.set_state(v1::MODEL_STATE_READY);
  for (const auto& [name, shape] : inputs) {
    v1::TensorInfo* info = model.add_inputs();
    info->set_name(name);
    info->set_dtype(dtype);
    for (uint32_t dimension : shape) info->add_shape(dimension);
  }
  return model;
}

TEST(BenchInputsTest, EveryInputGetsItsShapeWithSeededValuesInRange) {
  const v1::ModelStatus model = ModelWithInputs({{"a", {2, 3}}, {"b", {1, 5}}});
  absl::StatusOr<std::unique_ptr<BenchInputs>> inputs = BenchInputs::Generate(model, 7);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  const std::vector<client::NamedTensor>& tensors = (*inputs)->tensors();
  ASSERT_EQ(tensors.size(), 2u);
  EXPECT_EQ(tensors[0].name, "a");
  EXPECT_THAT(tensors[0].shape, ElementsAre(2, 3));
  EXPECT_EQ(tensors[0].values.size(), 6u);
  EXPECT_EQ(tensors[1].name, "b");
  EXPECT_EQ(tensors[1].values.size(), 5u);
  EXPECT_EQ((*inputs)->bytes(), 11u * 4);
  for (const client::NamedTensor& tensor : tensors) {
    for (float value : tensor.values) {
      EXPECT_GE(value, -1.0f);
      EXPECT_LT(value, 1.0f);
    }
  }
  // Not all equal (a generator stuck on one value would pass the range check).
  EXPECT_NE(tensors[0].values[0], tensors[0].values[1]);

  absl::StatusOr<std::unique_ptr<BenchInputs>> same = BenchInputs::Generate(model, 7);
  absl::StatusOr<std::unique_ptr<BenchInputs>> other = BenchInputs::Generate(model, 8);
  ASSERT_TRUE(same.ok() && other.ok());
  const auto values = [](const BenchInputs& in) {
    return std::vector<float>(in.tensors()[0].values.begin(), in.tensors()[0].values.end());
  };
  EXPECT_EQ(values(**inputs), values(**same));
  EXPECT_NE(values(**inputs), values(**other));
}

TEST(BenchInputsTest, IntegerInputsAreBytesOfTheirDtypeBelowTheRandomMax) {
  absl::StatusOr<std::unique_ptr<BenchInputs>> inputs =
      BenchInputs::Generate(ModelWithInputs({{"ids", {1, 8}}, {"mask", {1, 8}}}, "int64"), 4, 3);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  const std::vector<client::NamedTensor>& tensors = (*inputs)->tensors();
  ASSERT_EQ(tensors.size(), 2u);
  for (const client::NamedTensor& tensor : tensors) {
    EXPECT_EQ(tensor.dtype, "int64");
    EXPECT_TRUE(tensor.values.empty());
    ASSERT_EQ(tensor.bytes.size(), 8u * 8);
    for (size_t i = 0; i < 8; ++i) {
      int64_t value = 0;
      std::memcpy(&value, &tensor.bytes[8 * i], 8);
      EXPECT_GE(value, 0);
      EXPECT_LT(value, 3);
    }
  }
  EXPECT_EQ((*inputs)->bytes(), 2u * 8 * 8);
}

TEST(BenchInputsTest, UnknownInputsAndEmptyShapesAreRefusedByName) {
  absl::StatusOr<std::unique_ptr<BenchInputs>> blob =
      BenchInputs::Generate(ModelWithInputs({{"blob", {1, 8}}}, "unknown"), 0);
  EXPECT_EQ(blob.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(blob.status().message(),
              AllOf(HasSubstr("'blob'"), HasSubstr("'m'"), HasSubstr("unknown")));
  absl::StatusOr<std::unique_ptr<BenchInputs>> too_wide =
      BenchInputs::Generate(ModelWithInputs({{"ids", {1, 8}}}, "int8"), 0, 1000);
  EXPECT_EQ(too_wide.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(too_wide.status().message(), HasSubstr("--random-max=1000"));

  absl::StatusOr<std::unique_ptr<BenchInputs>> zero =
      BenchInputs::Generate(ModelWithInputs({{"x", {1, 0}}}), 0);
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(zero.status().message(), HasSubstr("[1,0]"));

  absl::StatusOr<std::unique_ptr<BenchInputs>> none = BenchInputs::Generate(ModelWithInputs({}), 0);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(none.status().message(), HasSubstr("no inputs"));
}

// --- reports ---------------------------------------------------------------------------------

LevelResult SampleLevel(uint32_t concurrency, uint64_t requests) {
  LevelResult level;
  level.concurrency = concurrency;
  level.requests = requests;
  level.measured = absl::Seconds(2);
  level.latency = {requests, 1'300'000, 1'250'000, 1'500'000, 1'750'000, 2'000'000};
  level.mean_queue_ns = 40'000;
  level.mean_device_ns = 1'010'000;
  level.mean_batch_rows = 6.25;
  return level;
}

TEST(BenchReportTest, CsvHasAHeaderAndARowPerLevelThatParseBack) {
  LevelResult failing = SampleLevel(4, 0);
  failing.errors = {{"UNAVAILABLE", 2}, {"RESOURCE_EXHAUSTED", 5}};
  std::ostringstream out;
  ReportWriter writer(ReportFormat::kCsv, BenchSetup{}, out);
  writer.AddLevel(SampleLevel(1, 100));
  writer.AddLevel(failing);
  writer.Finish();

  std::vector<std::string> lines = absl::StrSplit(out.str(), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u);
  const std::vector<std::string> header = absl::StrSplit(lines[0], ',');
  const std::vector<std::string> first = absl::StrSplit(lines[1], ',');
  const std::vector<std::string> second = absl::StrSplit(lines[2], ',');
  ASSERT_EQ(first.size(), header.size());
  ASSERT_EQ(second.size(), header.size());
  const auto field = [&](const std::vector<std::string>& row, const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name;
    return it == header.end() ? std::string() : row[it - header.begin()];
  };
  EXPECT_EQ(field(first, "concurrency"), "1");
  EXPECT_EQ(field(first, "requests"), "100");
  EXPECT_EQ(field(first, "errors"), "0");
  EXPECT_EQ(field(first, "throughput_rps"), "50.000");
  EXPECT_EQ(field(first, "p50_ms"), "1.250");
  EXPECT_EQ(field(first, "p90_ms"), "1.500");
  EXPECT_EQ(field(first, "p95_ms"), "1.750");
  EXPECT_EQ(field(first, "p99_ms"), "2.000");
  EXPECT_EQ(field(first, "mean_queue_ms"), "0.040");
  EXPECT_EQ(field(first, "mean_device_ms"), "1.010");
  EXPECT_EQ(field(first, "mean_batch_rows"), "6.25");
  EXPECT_EQ(field(first, "error_codes"), "");
  EXPECT_EQ(field(second, "concurrency"), "4");
  EXPECT_EQ(field(second, "errors"), "7");
  EXPECT_EQ(field(second, "p50_ms"), "");  // no successful request: no latency
  EXPECT_EQ(field(second, "mean_batch_rows"), "");
  EXPECT_EQ(field(second, "error_codes"), "RESOURCE_EXHAUSTED:5;UNAVAILABLE:2");
}

TEST(BenchReportTest, JsonParsesBackWithOneEntryPerLevel) {
  LevelResult failing = SampleLevel(2, 0);
  failing.errors = {{"RESOURCE_EXHAUSTED", 3}};
  BenchSetup setup;
  setup.model = "mlp";
  setup.stream = true;
  setup.raw = false;
  setup.warmup = absl::Seconds(1);
  setup.requests = 100;
  std::ostringstream out;
  ReportWriter writer(ReportFormat::kJson, setup, out);
  writer.AddLevel(SampleLevel(1, 100));
  writer.AddLevel(failing);
  EXPECT_EQ(out.str(), "");  // one document, at the end
  writer.Finish();

  const nlohmann::json report = nlohmann::json::parse(out.str());
  EXPECT_EQ(report["model"], "mlp");
  EXPECT_EQ(report["api"], "stream");
  EXPECT_EQ(report["form"], "typed");
  EXPECT_EQ(report["requests_per_level"], 100);
  EXPECT_FALSE(report.contains("duration_s"));
  ASSERT_EQ(report["levels"].size(), 2u);
  const nlohmann::json& first = report["levels"][0];
  EXPECT_EQ(first["concurrency"], 1);
  EXPECT_EQ(first["requests"], 100);
  EXPECT_EQ(first["error_count"], 0);
  EXPECT_TRUE(first["errors"].is_object());
  EXPECT_TRUE(first["errors"].empty());
  EXPECT_DOUBLE_EQ(first["throughput_rps"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(first["latency_ms"]["p50"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(first["latency_ms"]["p99"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(first["latency_ms"]["mean"].get<double>(), 1.3);
  EXPECT_DOUBLE_EQ(first["mean_queue_ms"].get<double>(), 0.04);
  EXPECT_DOUBLE_EQ(first["mean_device_ms"].get<double>(), 1.01);
  EXPECT_DOUBLE_EQ(first["mean_batch_rows"].get<double>(), 6.25);
  const nlohmann::json& second = report["levels"][1];
  EXPECT_EQ(second["errors"]["RESOURCE_EXHAUSTED"], 3);
  EXPECT_EQ(second["error_count"], 3);
  EXPECT_TRUE(second["latency_ms"]["p50"].is_null());
  EXPECT_TRUE(second["mean_device_ms"].is_null());
  EXPECT_TRUE(second["mean_batch_rows"].is_null());
}

TEST(BenchReportTest, TableRowsLineUpUnderTheirTitles) {
  LevelResult failing = SampleLevel(16, 0);
  failing.errors = {{"RESOURCE_EXHAUSTED", 3}, {"UNAVAILABLE", 1}};
  std::ostringstream out;
  ReportWriter writer(ReportFormat::kTable, BenchSetup{}, out);
  writer.AddLevel(SampleLevel(1, 100));
  writer.AddLevel(failing);
  writer.Finish();
  std::vector<std::string> lines = absl::StrSplit(out.str(), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u);
  const std::vector<std::string> titles = {"concurrency", "requests", "req/s",  "p50 ms",
                                           "p90 ms",      "p95 ms",   "p99 ms", "queue ms",
                                           "device ms",   "batch",    "errors"};
  const std::string& header = lines[0];
  for (const std::string& title : titles) EXPECT_THAT(header, HasSubstr(title));
  // Right-aligned numbers: each value ends where its title ends.
  const auto ends_at = [](const std::string& line, const std::string& text) {
    const size_t at = line.find(text);
    return at == std::string::npos ? std::string::npos : at + text.size();
  };
  EXPECT_EQ(ends_at(lines[1], " 1 "), ends_at(header, "concurrency") + 1);
  EXPECT_EQ(ends_at(lines[1], "50.0"), ends_at(header, "req/s"));
  EXPECT_EQ(ends_at(lines[1], "1.250"), ends_at(header, "p50 ms"));
  EXPECT_EQ(ends_at(lines[1], "2.000"), ends_at(header, "p99 ms"));
  EXPECT_EQ(ends_at(lines[1], "1.010"), ends_at(header, "device ms"));
  EXPECT_EQ(ends_at(lines[1], "6.25"), ends_at(header, "batch"));
  EXPECT_EQ(lines[2].substr(ends_at(header, "batch") - 1, 1), "-");  // no batch reported
  EXPECT_EQ(lines[1].substr(header.find("errors")), "-");
  EXPECT_EQ(lines[2].substr(header.find("errors")), "RESOURCE_EXHAUSTED: 3, UNAVAILABLE: 1");
  EXPECT_EQ(ends_at(lines[2], "16"), ends_at(header, "concurrency"));
  EXPECT_EQ(ends_at(lines[2], "- "), ends_at(header, "p50 ms") + 1);
}

// --- the progress line -----------------------------------------------------------------------

TEST(BenchProgressLineTest, FormatsEachPhase) {
  LevelProgress warmup;
  warmup.warming_up = true;
  warmup.elapsed = absl::Milliseconds(400);
  warmup.total = absl::Seconds(1);
  warmup.current_rate = 812.25;
  EXPECT_EQ(FormatProgress(2, 5, 2, warmup),
            "level 2/5 concurrency 2: warmup 0.4s/1.0s, 812.2 req/s");

  LevelProgress timed;
  timed.elapsed = absl::Milliseconds(1200);
  timed.total = absl::Seconds(5);
  timed.requests = 1510;
  timed.current_rate = 1254.3;
  EXPECT_EQ(FormatProgress(2, 5, 2, timed),
            "level 2/5 concurrency 2: 1.2s/5.0s, 1510 requests, 1254.3 req/s");

  LevelProgress counted;
  counted.elapsed = absl::Milliseconds(300);
  counted.requests = 37;
  counted.target_requests = 100;
  EXPECT_EQ(FormatProgress(1, 1, 8, counted),
            "level 1/1 concurrency 8: 0.3s, 37/100 requests, 0.0 req/s");
}

TEST(BenchProgressLineTest, RedrawsInPlaceAndErasesWhatItDrew) {
  std::ostringstream err;
  {
    ProgressLine line(err, true);
    line.Draw("abcdef");
    line.Draw("xy");
    line.Erase();
    EXPECT_EQ(err.str(), "\rabcdef\rxy    \r      \r");
    line.Erase();  // nothing drawn since
    EXPECT_EQ(err.str(), "\rabcdef\rxy    \r      \r");
    line.Draw("z");
  }
  // The destructor erased the last drawing.
  EXPECT_EQ(err.str(), "\rabcdef\rxy    \r      \r\rz\r \r");
}

TEST(BenchProgressLineTest, WritesNothingWhenNotATerminal) {
  std::ostringstream err;
  ProgressLine line(err, false);
  line.Draw("abc");
  line.Erase();
  EXPECT_EQ(err.str(), "");
}

// --- the command's usage errors --------------------------------------------------------------

struct CommandRun {
  int exit_code;
  std::string out;
  std::string err;
};

CommandRun Bench(std::vector<std::string> args) {
  args.insert(args.begin(), "bench");
  const Subcommand* const commands[] = {&BenchCommand()};
  std::ostringstream out, err;
  const int code = Dispatch(commands, args, out, err);
  return {code, out.str(), err.str()};
}

TEST(BenchCommandTest, UsageErrorsExitTwoNamingTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{}, "give the MODEL"},
      {{"a", "b"}, "unexpected 'b'"},
      {{"m", "--concurrency-range=8:2"}, "--concurrency-range: '8:2'"},
      {{"m", "--duration=1s", "--requests=5"}, "--duration or --requests"},
      {{"m", "--requests=0"}, "--requests: '0'"},
      {{"m", "--duration=0s"}, "--duration: '0s'"},
      {{"m", "--warmup=-1s"}, "--warmup: '-1s'"},
      {{"m", "--form=int8"}, "--form must be raw or typed, got 'int8'"},
      {{"m", "--random-max=0"}, "--random-max: '0' is not a positive integer"},
      {{"m", "--random-max=x"}, "--random-max: 'x' is not a positive integer"},
      {{"m", "--format=xml"}, "--format must be table, csv or json, got 'xml'"},
      {{"m", "--format=table", "--output=json"}, "--format=table contradicts --output=json"},
      {{"m", "--format=csv", "--output=json"}, "--format=csv contradicts --output=json"},
      {{"m", "--seed=x"}, "--seed: 'x'"},
  };
  for (const Case& c : cases) {
    const CommandRun run = Bench(c.args);
    EXPECT_EQ(run.exit_code, kExitUsageError) << c.message << "\n" << run.err;
    EXPECT_THAT(run.err, HasSubstr(c.message));
    EXPECT_EQ(run.out, "");
  }
}

TEST(BenchCommandTest, HelpDocumentsTheFlagsWithAnExample) {
  const CommandRun run = Bench({"--help"});
  EXPECT_EQ(run.exit_code, kExitSuccess);
  for (const char* text :
       {"Usage: neuronctl bench MODEL", "--concurrency-range", "xF", "--duration", "--requests",
        "--warmup", "--stream", "--form", "--seed", "--random-max", "--format", "--output", "p50",
        "UNAVAILABLE", "mean rows of the executions", "Example:", "--concurrency-range=1:16:x2"}) {
    EXPECT_THAT(run.out, HasSubstr(text));
  }
}

}  // namespace
}  // namespace neuronserve::neuronctl
