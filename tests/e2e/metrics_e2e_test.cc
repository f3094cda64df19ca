// /metrics through the real daemon: scraped with curl while clients send a known mix of
// requests (successes unary and streamed, unknown models, bad shapes); every scrape parses as
// Prometheus text format with a strict parser of our own, counters never go down, and at the
// end the counters equal what the clients sent, by code. The access log has one line each.
#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/prometheus/prometheus_text_parser.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace metrics_e2e_test {
namespace {

using ::testing::HasSubstr;

constexpr int kMetricsUnaryClients = 4;
constexpr int kUnaryPerClient = 150;
constexpr int kStreamed = 200;
constexpr int kUnknownModel = 40;
constexpr int kBadShapeUnary = 30;
constexpr int kBadNameStreamed = 20;
constexpr uint64_t kTensorBytes = 4 * sizeof(float);

v1::InferRequest Request(const std::string& model, std::vector<uint32_t> shape = {1, 4},
                         const std::string& input = "input") {
  v1::InferRequest request;
  request.set_model(model);
  std::vector<float> values(shape.empty() ? 4 : shape[0] * shape[1], 1.5f);
  AddInput(request, input, shape, values, TensorForm::kRaw);
  return request;
}

// Every sample of `name` (whatever its labels) whose label `label` is `value`, summed.
double SumWhere(const std::vector<PromFamily>& families, const std::string& name,
                const std::string& label, const std::string& value) {
  double sum = 0;
  for (const PromFamily& family : families) {
    for (const PromSample& sample : family.samples) {
      if (sample.name != name) continue;
      auto it = sample.labels.find(label);
      if (label.empty() || (it != sample.labels.end() && it->second == value)) sum += sample.value;
    }
  }
  return sum;
}

double Sample(const std::vector<PromFamily>& families, const std::string& name,
              const std::map<std::string, std::string>& labels) {
  absl::StatusOr<double> value = FindSample(families, name, labels);
  EXPECT_TRUE(value.ok()) << value.status();
  return value.ok() ? *value : -1;
}

TEST(MetricsE2ETest, ScrapesParseAndCountersEqualTheRequestsSentByCode) {
  TempDir dir;
  const std::string access_log = dir.Join("access.log");
  START_DAEMON(daemon, SimDaemonArgs({"--http-listen=127.0.0.1:0", "--access-log=" + access_log}));
  const std::optional<std::string> http = WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+)");
  ASSERT_TRUE(http.has_value());
  const std::string url = "http://" + *http + "/metrics";
  v1::ModelConfig config = Config("id");
  config.set_replicas(2);
  ASSERT_TRUE(Upload(*daemon->stub, config, EncodeNeff(IdentityModel({1, 4}, 100))).status.ok());

  // Scrape all along: each one must parse, and no counter may go down between two scrapes.
  std::atomic<bool> load_done{false};
  std::atomic<int> scrapes{0};
  std::thread scraper([&] {
    std::map<std::string, double> previous;
    while (!load_done.load() || scrapes.load() < 3) {
      const HttpResult scrape = HttpGet(url);
      ASSERT_EQ(scrape.status, 200);
      absl::StatusOr<std::vector<PromFamily>> families = ParsePrometheusText(scrape.body + "\n");
      ASSERT_TRUE(families.ok()) << families.status();
      for (const PromFamily& family : *families) {
        if (family.type != "counter") continue;
        for (const PromSample& sample : family.samples) {
          std::string key = sample.name;
          for (const auto& [k, v] : sample.labels) absl::StrAppend(&key, ",", k, "=", v);
          EXPECT_GE(sample.value, previous[key]) << key;
          previous[key] = sample.value;
        }
      }
      ++scrapes;
      absl::SleepFor(absl::Milliseconds(20));
    }
  });

  std::atomic<int> ok{0}, not_found{0}, invalid{0}, other{0};
  auto tally = [&](grpc::StatusCode code) {
    if (code == grpc::StatusCode::OK) {
      ++ok;
    } else if (code == grpc::StatusCode::NOT_FOUND) {
      ++not_found;
    } else if (code == grpc::StatusCode::INVALID_ARGUMENT) {
      ++invalid;
    } else {
      ++other;
    }
  };
  std::vector<std::thread> clients;
  for (int c = 0; c < kMetricsUnaryClients; ++c) {
    clients.emplace_back([&, c] {
      for (int i = 0; i < kUnaryPerClient; ++i) tally(Infer(*daemon->stub, Request("id"), nullptr).error_code());
      if (c == 0) {
        for (int i = 0; i < kUnknownModel; ++i) {
          tally(Infer(*daemon->stub, Request("no-such-model"), nullptr).error_code());
        }
      } else if (c == 1) {
        for (int i = 0; i < kBadShapeUnary; ++i) {
          tally(Infer(*daemon->stub, Request("id", {2, 4}), nullptr).error_code());
        }
      }
    });
  }
  clients.emplace_back([&] {
    std::vector<v1::InferRequest> requests;
    for (int i = 0; i < kStreamed; ++i) requests.push_back(Request("id"));
    for (int i = 0; i < kBadNameStreamed; ++i) requests.push_back(Request("id", {1, 4}, "wrong"));
    grpc::Status status;
    for (const v1::InferResponse& response : RunStream(*daemon->stub, requests, &status)) {
      tally(static_cast<grpc::StatusCode>(response.error().code()));
    }
    EXPECT_TRUE(status.ok()) << status.error_message();
  });
  for (std::thread& client : clients) client.join();
  load_done.store(true);
  scraper.join();
  EXPECT_GE(scrapes.load(), 3);

  const int sent_ok = kMetricsUnaryClients * kUnaryPerClient + kStreamed;
  ASSERT_EQ(ok.load(), sent_ok);
  ASSERT_EQ(not_found.load(), kUnknownModel);
  ASSERT_EQ(invalid.load(), kBadShapeUnary + kBadNameStreamed);
  ASSERT_EQ(other.load(), 0);

  const HttpResult final_scrape = HttpGet(url);
  ASSERT_EQ(final_scrape.status, 200);
  absl::StatusOr<std::vector<PromFamily>> parsed = ParsePrometheusText(final_scrape.body + "\n");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const std::vector<PromFamily>& f = *parsed;
  const std::string requests = "neuronserve_requests_total";
  // By code, over every model label, exactly what was sent.
  EXPECT_EQ(SumWhere(f, requests, "code", "OK"), sent_ok);
  EXPECT_EQ(SumWhere(f, requests, "code", "NOT_FOUND"), kUnknownModel);
  EXPECT_EQ(SumWhere(f, requests, "code", "INVALID_ARGUMENT"), kBadShapeUnary + kBadNameStreamed);
  EXPECT_EQ(SumWhere(f, requests, "", ""), sent_ok + kUnknownModel + kBadShapeUnary +
                                                kBadNameStreamed);
  // And by model: unknown names count under model "", so clients cannot grow the label set.
  EXPECT_EQ(Sample(f, requests, {{"model", "id"}, {"version", ""}, {"code", "OK"}}), sent_ok);
  EXPECT_EQ(Sample(f, requests, {{"model", ""}, {"version", ""}, {"code", "NOT_FOUND"}}),
            kUnknownModel);
  // Latency histograms: every request of "id" has a total; only executed ones a device time.
  const std::map<std::string, std::string> id = {{"model", "id"}, {"version", ""}};
  EXPECT_EQ(Sample(f, "neuronserve_request_duration_seconds_count", id),
            sent_ok + kBadShapeUnary + kBadNameStreamed);
  EXPECT_EQ(Sample(f, "neuronserve_request_device_duration_seconds_count", id), sent_ok);
  EXPECT_EQ(Sample(f, "neuronserve_request_queue_duration_seconds_count", id), sent_ok);
  EXPECT_GT(Sample(f, "neuronserve_request_device_duration_seconds_sum", id),
            sent_ok * 100e-6 * 0.9);  // 100 us each, at least
  EXPECT_EQ(Sample(f, "neuronserve_request_tensor_bytes_total", id), sent_ok * kTensorBytes);
  EXPECT_EQ(Sample(f, "neuronserve_response_tensor_bytes_total", id), sent_ok * kTensorBytes);
  // Executions per core add up, and both replicas took work.
  const double core0 = Sample(f, "neuronserve_core_executions_total", {{"core", "0"}});
  const double core1 = Sample(f, "neuronserve_core_executions_total", {{"core", "1"}});
  EXPECT_EQ(core0 + core1, sent_ok);
  EXPECT_GT(core0, 0);
  EXPECT_GT(core1, 0);
  EXPECT_GT(Sample(f, "neuronserve_core_busy_seconds_total", {{"core", "0"}}), 0);
  EXPECT_EQ(Sample(f, "neuronserve_models", {{"state", "READY"}}), 1);
  EXPECT_EQ(Sample(f, "neuronserve_queue_depth", id), 0);
  EXPECT_EQ(Sample(f, "neuronserve_ready", {}), 1);
  EXPECT_EQ(Sample(f, "neuronserve_live", {}), 1);
  EXPECT_GT(Sample(f, "neuronserve_device_memory_used_bytes", {{"core", "0"}}), 0);
  EXPECT_EQ(SumWhere(f, "neuronserve_nrt_errors_total", "", ""), 0);

  // Counters survive the unload: a scrape after it still adds up.
  ASSERT_TRUE(UnloadModel(*daemon->stub, "id", nullptr).ok());
  const HttpResult after = HttpGet(url);
  absl::StatusOr<std::vector<PromFamily>> after_parsed = ParsePrometheusText(after.body + "\n");
  ASSERT_TRUE(after_parsed.ok()) << after_parsed.status();
  EXPECT_EQ(SumWhere(*after_parsed, requests, "code", "OK"), sent_ok);
  EXPECT_EQ(Sample(*after_parsed, "neuronserve_models", {{"state", "READY"}}), 0);
  // Then they go: a later scrape no longer has the unloaded version's series, so /metrics is
  // bounded by what is loaded. Only the unknown model's stay.
  EXPECT_TRUE(WaitUntil([&] { return HttpGet(url).body.find("model=\"id\"") == std::string::npos; },
                        absl::Seconds(10)));
  const HttpResult gone = HttpGet(url);
  EXPECT_THAT(gone.body, HasSubstr("neuronserve_requests_total{model=\"\",version=\"\","
                                   "code=\"NOT_FOUND\"} 40"));

  // The access log: one line per request, written in the background once gRPC is done with
  // the call (after the client has its answer): wait for them.
  const int total = sent_ok + kUnknownModel + kBadShapeUnary + kBadNameStreamed;
  std::vector<std::string> lines;
  WaitUntil([&] {
    std::ifstream in(access_log);
    lines.clear();
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return static_cast<int>(lines.size()) >= total;
  }, absl::Seconds(10));
  ASSERT_EQ(static_cast<int>(lines.size()), total);
  int logged_not_found = 0;
  for (const std::string& line : lines) {
    EXPECT_THAT(line, HasSubstr(" access method=Infer"));
    if (line.find("model=no-such-model") != std::string::npos) {
      EXPECT_THAT(line, HasSubstr("code=NOT_FOUND"));
      ++logged_not_found;
    }
  }
  EXPECT_EQ(logged_not_found, kUnknownModel);
  EXPECT_THAT(lines.front(), HasSubstr("peer=ipv"));
}

// The version labels /metrics shows for model `model`.
std::set<std::string> VersionsShown(const std::string& body, const std::string& model) {
  std::set<std::string> versions;
  const std::string prefix = absl::StrCat("model=\"", model, "\",version=\"");
  for (size_t at = body.find(prefix); at != std::string::npos; at = body.find(prefix, at + 1)) {
    const size_t start = at + prefix.size();
    versions.insert(body.substr(start, body.find('"', start) - start));
  }
  return versions;
}

// A user who replaces a model with a new version label again and again: each scrape shows the
// serving version and the few it just replaced (each with its final values, once), so the text
// stays the same size however many versions came and went.
TEST(MetricsE2ETest, VersionChurnKeepsMetricsBoundedByWhatIsLoaded) {
  START_DAEMON(daemon, SimDaemonArgs({"--http-listen=127.0.0.1:0"}));
  const std::optional<std::string> http = WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+)");
  ASSERT_TRUE(http.has_value());
  const std::string url = "http://" + *http + "/metrics";
  constexpr int kVersions = 40;
  size_t size_after_warm_up = 0;
  size_t largest = 0;
  for (int version = 0; version < kVersions; ++version) {
    const std::string label = absl::StrCat("v", version);
    ASSERT_TRUE(Upload(*daemon->stub, Config("churn", label), SimNeff({.tag = label})).status.ok());
    ASSERT_TRUE(Infer(*daemon->stub, Request("churn", {1, 4}, "x"), nullptr).ok());
    const HttpResult scrape = HttpGet(url);
    ASSERT_EQ(scrape.status, 200);
    const std::set<std::string> shown = VersionsShown(scrape.body, "churn");
    EXPECT_TRUE(shown.count(label)) << label;
    // The serving version, the one it replaced, and the one before when the registry had not
    // yet destroyed that one at the previous scrape (an old version is drained in the
    // background): never more.
    EXPECT_LE(shown.size(), 3u) << "version " << version << " scrape shows "
                                << absl::StrJoin(shown, ",");
    if (version == 5) size_after_warm_up = scrape.body.size();
    if (version >= 5) largest = std::max(largest, scrape.body.size());
  }
  // Only the labels' lengths differ ("v5" against "v39"): a few bytes per series.
  EXPECT_LE(largest, size_after_warm_up + 2048);
}

TEST(MetricsE2ETest, JsonLogsAndAccessLogAreOneObjectPerLine) {
  TempDir dir;
  const std::string access_log = dir.Join("access.jsonl");
  START_DAEMON(daemon, SimDaemonArgs({"--log-format=json", "--access-log=" + access_log}));
  ASSERT_TRUE(Upload(*daemon->stub, Config("id"), EncodeNeff(IdentityModel({1, 4}))).status.ok());
  v1::InferRequest request = Request("id");
  request.set_id("req-\"7\"");
  ASSERT_TRUE(Infer(*daemon->stub, request, nullptr).ok());
  EXPECT_EQ(daemon->process->StopWith(SIGTERM), 0);
  // Stopping wrote every queued line.
  std::ifstream in(access_log);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_TRUE(absl::StartsWith(line, "{\"time\":\"")) << line;
  EXPECT_THAT(line, HasSubstr("\"type\":\"access\",\"method\":\"Infer\""));
  EXPECT_THAT(line, HasSubstr("\"model\":\"id\",\"version\":\"\",\"id\":\"req-\\\"7\\\"\""));
  EXPECT_THAT(line, HasSubstr("\"code\":\"OK\""));
  EXPECT_THAT(line, HasSubstr("\"bytes_in\":16,\"bytes_out\":16}"));
  EXPECT_FALSE(std::getline(in, line)) << "one request, one line: " << line;
  // The daemon's own lines (stderr): JSON objects with time, level and message.
  int json_lines = 0;
  for (absl::string_view line : absl::StrSplit(daemon->process->Stderr(), '\n')) {
    if (line.empty() || absl::StartsWith(line, "nrtsim: ")) continue;  // the simulator's own
    EXPECT_TRUE(absl::StartsWith(line, "{\"time\":\"") && absl::EndsWith(line, "\"}")) << line;
    ++json_lines;
  }
  EXPECT_GE(json_lines, 4);
  EXPECT_THAT(daemon->process->Stderr(),
              HasSubstr("\"level\":\"info\",\"logger\":\"neuron-serve\",\"message\":\"model 'id' "
                        "ready on cores 0"));
}

}  // namespace
}  // namespace metrics_e2e_test
}  // namespace neuronserve::testing
