// Bench's memory runs: the daemon's RSS over millions of requests, and its RSS and /metrics
// over thousands of replacements of a model under new version labels.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "tests/bench/bench.h"
#include "tests/bench/payload.h"

namespace neuronserve::bench {

using ::neuronserve::testing::ProcessStatusBytes;

int Bench::RunRss() {
  if (!BinariesExist()) return 1;
  daemon_ = StartDaemon(flags_.sim_cores, {});
  const std::string address = AddressOf(*daemon_, "neuron-serve daemon");
  if (address.empty()) return 1;
  const std::unique_ptr<v1::NeuronServing::Stub> stub =
      v1::NeuronServing::NewStub(Connect(address, ChannelLimit()));
  const StartCall call = InferCallOn(stub.get());
  const pid_t pid = daemon_->pid();
  PrintRssHeader(pid, DaemonMallocMode(), flags_.rss_size, flags_.rss_concurrency,
                 flags_.rss_warmup_requests, flags_.rss_requests, flags_.rss_sample_every);

  const IdentityModel model{"bench-rss", flags_.rss_size, 0, 1};
  const grpc::Status loaded = LoadIdentityModel(*stub, model);
  const v1::InferRequest request = MakeRequest(model.name, model.tensor_bytes, TensorForm::kRaw);
  if (const std::string error = LoadedOrProbe(loaded, call, request); !error.empty()) {
    std::printf("bench: the RSS run's model does not serve: %s\n", error.c_str());
    failed_ = true;
  } else {
    RssSummary summary;
    const RssStretch warmup = DriveRequests("warm-up", call, request, flags_.rss_warmup_requests);
    summary.warmup_requests = warmup.requests;
    summary.after_warmup_bytes = ProcessStatusBytes(pid, "VmRSS");
    if (warmup.failed == 0) {
      const RssStretch run = DriveRequests("run", call, request, flags_.rss_requests);
      summary.requests = run.requests;
      summary.failed = run.failed;
      summary.seconds = run.seconds;
      summary.max_sampled_bytes = std::max(summary.after_warmup_bytes, run.max_rss_bytes);
    }
    summary.failed += warmup.failed;
    summary.final_bytes = ProcessStatusBytes(pid, "VmRSS");
    summary.peak_bytes = ProcessStatusBytes(pid, "VmHWM");
    PrintRssSummary(summary);
    failed_ |= summary.failed > 0;
    Unload(*stub, model.name);
  }
  StopDaemon(*daemon_, "neuron-serve");
  return failed_ ? 1 : 0;
}

Bench::RssStretch Bench::DriveRequests(const char* phase, const StartCall& call,
                                       const v1::InferRequest& request, uint64_t total) {
  constexpr absl::Duration kRssMaxWindow = absl::Seconds(5);
  const CheckResponse check = ExpectSameSize(request);
  const pid_t pid = daemon_->pid();
  RssStretch stretch;
  const absl::Time start = absl::Now();
  absl::Time last_line = start;
  uint64_t requests_at_last_line = 0;
  while (stretch.requests < total) {
    LoadOptions options;
    options.concurrency = flags_.rss_concurrency;
    options.warmup = absl::ZeroDuration();
    options.min_calls_per_slot = 0;
    options.measure = kRssMaxWindow;
    options.stop_after_calls = std::min(flags_.rss_sample_every, total - stretch.requests);
    const LoadResult window = RunLoad(call, request, check, options);
    stretch.requests += window.completed + window.failed;
    stretch.failed += window.failed;
    const uint64_t rss = ProcessStatusBytes(pid, "VmRSS");
    stretch.max_rss_bytes = std::max(stretch.max_rss_bytes, rss);
    const absl::Time now = absl::Now();
    const bool last = stretch.requests >= total || window.failed > 0;
    if (now - last_line >= kRssMaxWindow || last) {
      PrintRssProgress(phase, stretch.requests, total,
                       static_cast<double>(stretch.requests - requests_at_last_line) /
                           absl::ToDoubleSeconds(now - last_line),
                       rss);
      last_line = now;
      requests_at_last_line = stretch.requests;
    }
    if (window.failed > 0) {
      std::printf("bench: %llu calls failed, first: %s\n",
                  static_cast<unsigned long long>(window.failed), window.first_error.c_str());
      break;
    }
  }
  stretch.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  return stretch;
}

int Bench::RunChurn() {
  if (!BinariesExist()) return 1;
  daemon_ = StartDaemon(flags_.sim_cores, {});
  const std::string address = AddressOf(*daemon_, "neuron-serve daemon");
  if (address.empty()) return 1;
  const std::string http = HttpAddressOf(*daemon_);
  const std::unique_ptr<v1::NeuronServing::Stub> stub =
      v1::NeuronServing::NewStub(Connect(address, ChannelLimit()));
  const StartCall call = InferCallOn(stub.get());
  const pid_t pid = daemon_->pid();
  std::printf(
      "\n== version churn: %llu reloads of one identity model, each with a new "
      "version label; /metrics every %llu ==\n",
      static_cast<unsigned long long>(flags_.churn_reloads),
      static_cast<unsigned long long>(flags_.churn_scrape_every));
  HttpConnection scraper(http);
  HttpPost get;
  get.method = "GET";
  get.path = "/metrics";
  struct Sample {
    uint64_t reloads = 0;
    uint64_t rss_bytes = 0;
    size_t metrics_bytes = 0;
    size_t versions_shown = 0;
  };
  // The version labels one scrape shows for the model.
  auto versions_in = [](const std::string& body) {
    std::set<std::string> versions;
    const std::string prefix = "model=\"bench-churn\",version=\"";
    for (size_t at = body.find(prefix); at != std::string::npos; at = body.find(prefix, at + 1)) {
      const size_t start = at + prefix.size();
      versions.insert(body.substr(start, body.find('"', start) - start));
    }
    return versions.size();
  };
  auto sample = [&](uint64_t reloads) -> std::optional<Sample> {
    const HttpAnswer answer = scraper.Send(get);
    if (answer.status != 200) {
      std::printf("bench: /metrics answered %d after %llu reloads\n", answer.status,
                  static_cast<unsigned long long>(reloads));
      return std::nullopt;
    }
    return Sample{reloads, ProcessStatusBytes(pid, "VmRSS"), answer.body.size(),
                  versions_in(answer.body)};
  };
  auto print = [](const char* what, const Sample& s) {
    std::printf("%-14s reloads %7llu  RSS %8.1f MiB  /metrics %8zu bytes  versions shown %zu\n",
                what, static_cast<unsigned long long>(s.reloads), s.rss_bytes / 1048576.0,
                s.metrics_bytes, s.versions_shown);
  };
  std::optional<Sample> warm;
  std::optional<Sample> last;
  size_t most_versions = 0;
  const absl::Time start = absl::Now();
  absl::Time last_line = start;
  for (uint64_t i = 1; i <= flags_.churn_reloads && !failed_; ++i) {
    IdentityModel model{"bench-churn", 4096, 0, 1};
    model.version = absl::StrCat("churn-", i);
    const grpc::Status loaded = LoadIdentityModel(*stub, model);
    const v1::InferRequest request = MakeRequest(model.name, model.tensor_bytes, TensorForm::kRaw);
    if (const std::string error = LoadedOrProbe(loaded, call, request); !error.empty()) {
      std::printf("bench: version %llu does not serve: %s\n", static_cast<unsigned long long>(i),
                  error.c_str());
      failed_ = true;
      break;
    }
    if (i % flags_.churn_scrape_every != 0 && i != flags_.churn_warmup_reloads &&
        i != flags_.churn_reloads) {
      continue;
    }
    last = sample(i);
    if (!last.has_value()) {
      failed_ = true;
      break;
    }
    most_versions = std::max(most_versions, last->versions_shown);
    if (i == flags_.churn_warmup_reloads) {
      warm = last;
      print("after warm-up", *warm);
    }
    if (absl::Now() - last_line >= absl::Seconds(10)) {
      print("progress", *last);
      last_line = absl::Now();
    }
  }
  if (last.has_value()) {
    print("at the end", *last);
    std::printf("most versions one scrape showed: %zu; %.1f reloads/s\n", most_versions,
                last->reloads / absl::ToDoubleSeconds(absl::Now() - start));
    if (warm.has_value()) {
      std::printf("after warm-up to the end: RSS %+.1f MiB, /metrics %+lld bytes\n",
                  (static_cast<double>(last->rss_bytes) - warm->rss_bytes) / 1048576.0,
                  static_cast<long long>(last->metrics_bytes) -
                      static_cast<long long>(warm->metrics_bytes));
    }
  }
  Unload(*stub, "bench-churn");
  StopDaemon(*daemon_, "neuron-serve");
  return failed_ ? 1 : 0;
}

}  // namespace neuronserve::bench
