// neuron_serve_bench: the inference path's benchmark (see BenchUsage in bench_flags.cc).
//
// One client process (this one) and its servers on loopback: the baseline echo server and the
// neuron-serve daemon on the simulated runtime, each a child process. Every cell measures the
// echo server and then the daemon with the same request, the same client code and the same
// number of calls in flight, and prints the ratio: these machines are noisy, so only a ratio
// against a baseline measured in the same run means anything.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "bench_echo.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "inference/grpc_service.grpc.pb.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "tests/bench/bench_flags.h"
#include "tests/bench/daemon_models.h"
#include "tests/bench/echo_server.h"
#include "tests/bench/http_echo_server.h"
#include "tests/bench/http_load.h"
#include "tests/bench/load_generator.h"
#include "tests/bench/payload.h"
#include "tests/bench/report.h"
#include "tests/bench/soak_run.h"
#include "tests/prometheus/prometheus_text_parser.h"
#include "tests/support/child_process.h"
#include "tests/support/shm_object.h"
#include "util/malloc_tuning.h"

namespace neuronserve::bench {
namespace {

using ::neuronserve::testing::ChildProcess;
using ::neuronserve::testing::ChildSpec;
using ::neuronserve::testing::ProcessStatusBytes;

constexpr absl::Duration kStartTimeout = absl::Seconds(30);
constexpr absl::Duration kStopTimeout = absl::Seconds(30);
constexpr absl::Duration kProbeTimeout = absl::Seconds(60);

// The daemon's own --max-message-bytes default (server/daemon/flags.cc): the bench raises it
// only when a request would not fit under it.
constexpr uint64_t kDaemonDefaultMaxMessageBytes = uint64_t{64} << 20;
// Room beside the tensor in a message or body: the protobuf framing and names, or the REST
// request's JSON part, each well under this.
constexpr uint64_t kMessageHeadroomBytes = uint64_t{1} << 20;

// What one request in flight holds, in copies of its tensor: on the client the request as
// serialized for its call and the response; in a server the request as received, the output
// and the response as serialized. A cell loads its baseline and the daemon in turn, but each
// server keeps what it freed (the tuned malloc trims only past 1 GiB free), so the machine
// holds both servers' peaks at once: 2 + 3 + 3. Measured at 16 MiB x 64 in flight: client 2.6 GiB,
// echo 2.5 GiB, daemon 2.5 GiB at their peaks, 7.3 GiB together against 8 GiB estimated. Fixed
// costs (a model's device tensors, the one request the client keeps per cell) are small beside it.
constexpr uint64_t kClientCopiesPerRequest = 2;
constexpr uint64_t kServerCopiesPerRequest = 3;
constexpr uint64_t kTensorCopiesPerRequestInFlight =
    kClientCopiesPerRequest + 2 * kServerCopiesPerRequest;

uint64_t BytesInFlight(uint64_t tensor_bytes, int concurrency) {
  return kTensorCopiesPerRequestInFlight * tensor_bytes * static_cast<uint64_t>(concurrency);
}

// Empty when the cell's requests in flight fit `budget`, else the line that says why it is
// skipped.
std::string WhyOverBudget(uint64_t tensor_bytes, int concurrency, uint64_t budget) {
  const uint64_t need = BytesInFlight(tensor_bytes, concurrency);
  if (need <= budget) return "";
  return absl::StrCat(kTensorCopiesPerRequestInFlight, " x ", FormatBytes(tensor_bytes), " x ",
                      concurrency, " in flight = ", FormatBytes(need),
                      ", over --memory-budget=", FormatBytes(budget));
}

// A channel whose messages may be as large as the servers accept (`max_message_bytes`); gRPC's
// default receive limit is 4 MiB.
std::shared_ptr<grpc::Channel> Connect(const std::string& address, int max_message_bytes) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(max_message_bytes);
  args.SetMaxSendMessageSize(max_message_bytes);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

// Waits for the "listening on" line; on failure prints the child's log and returns "".
std::string AddressOf(ChildProcess& child, const char* what) {
  std::optional<std::string> address = child.WaitUntilListening(kStartTimeout);
  if (!address.has_value()) {
    std::fprintf(stderr, "bench: the %s did not start; its output:\n%s\n", what,
                 child.Stderr().c_str());
    return "";
  }
  return *address;
}

// One call whose answer is compared in full: a target that does not answer correctly is not
// loaded, its error goes in the table instead. Empty when the answer is right.
std::string Probe(const StartCall& start, const v1::InferRequest& request) {
  v1::InferResponse response;
  grpc::Status status = CallOnce(start, request, &response, kProbeTimeout);
  if (!status.ok()) {
    return absl::StrCat("code ", status.error_code(), ": ", status.error_message());
  }
  return CompareOutput(request, response);
}

std::string Probe(const V2StartCall& start, const inference::ModelInferRequest& request) {
  inference::ModelInferResponse response;
  grpc::Status status = CallOnce(start, request, &response, kProbeTimeout);
  if (!status.ok()) {
    return absl::StrCat("code ", status.error_code(), ": ", status.error_message());
  }
  return V2CompareOutput(request, response);
}

// Round `round` of `rounds`: the first warms up for --warmup-seconds; later ones only until
// every slot has completed its calls (the connection is warm by then).
LoadOptions OptionsFor(const BenchFlags& flags, int concurrency, int round, int rounds) {
  LoadOptions options;
  options.concurrency = concurrency;
  options.warmup = round == 0 ? absl::Seconds(flags.warmup_seconds) : absl::ZeroDuration();
  options.measure = absl::Seconds(flags.seconds / rounds);
  return options;
}

// Adds one round of load to `measurement`, unless the target already failed its probe.
template <typename Request, typename Response>
void MeasureRound(const StartCallOf<Request, Response>& start, const Request& request,
                  const CheckResponseOf<Response>& check, const LoadOptions& options,
                  Measurement& measurement) {
  if (!measurement.error.empty()) return;
  LoadResult round = RunLoad(start, request, check, options);
  if (measurement.result.has_value()) {
    measurement.result->Add(round);
  } else {
    measurement.result = std::move(round);
  }
}

// Echo calls on `stub`, for RunLoad and Probe.
StartCall EchoCallOn(BenchEcho::Stub* stub) {
  return [stub](grpc::ClientContext* context, const v1::InferRequest* request,
                v1::InferResponse* response, std::function<void(grpc::Status)> done) {
    stub->async()->Echo(context, request, response, std::move(done));
  };
}

// Infer calls on `stub`, for RunLoad and Probe.
StartCall InferCallOn(v1::NeuronServing::Stub* stub) {
  return [stub](grpc::ClientContext* context, const v1::InferRequest* request,
                v1::InferResponse* response, std::function<void(grpc::Status)> done) {
    stub->async()->Infer(context, request, response, std::move(done));
  };
}

std::string HttpAddressOf(ChildProcess& daemon) { return HttpAddressInLog(daemon.Stderr()); }

// What every core of a daemon did so far, from its /metrics: the seconds its executions held
// it (measured around nrt_execute) and their count, summed over the cores.
struct CoreTotals {
  double busy_seconds = 0;
  double executions = 0;
  absl::Time at;
};

std::optional<CoreTotals> ScrapeCoreTotals(const std::string& http_address) {
  if (http_address.empty()) return std::nullopt;
  HttpConnection connection(http_address);
  HttpPost get;
  get.method = "GET";
  get.path = "/metrics";
  const HttpAnswer answer = connection.Send(get);
  CoreTotals totals;
  totals.at = absl::Now();
  if (answer.status != 200) return std::nullopt;
  absl::StatusOr<std::vector<testing::PromFamily>> families =
      testing::ParsePrometheusText(answer.body);
  if (!families.ok()) return std::nullopt;
  for (const testing::PromFamily& family : *families) {
    double* sum = family.name == "neuronserve_core_busy_seconds_total" ? &totals.busy_seconds
                  : family.name == "neuronserve_core_executions_total" ? &totals.executions
                                                                       : nullptr;
    if (sum == nullptr) continue;
    for (const testing::PromSample& sample : family.samples) *sum += sample.value;
  }
  return totals;
}

std::string SelfPath() {
  std::error_code error;
  std::filesystem::path path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? "" : path.string();
}

class Bench {
 public:
  explicit Bench(const BenchFlags& flags) : flags_(flags) {}

  // The process exit code: 0 when every load and every call succeeded.
  int Run() {
    if (!BinariesExist() || !StartServers()) return 1;

    std::vector<ComparisonRow> comparison = RunComparison();
    std::vector<ScalingRow> scaling;
    if (!flags_.skip_scaling) scaling = RunScaling();
    if (!flags_.skip_pipelining) RunPipelining();
    std::vector<ProtocolRow> protocol;
    if (!flags_.skip_v2) protocol = RunProtocols();
    if (!flags_.skip_v2) RunHttp();
    if (!flags_.skip_rest) RunRestEcho();
    std::vector<SharedMemoryRow> shared_memory;
    if (!flags_.skip_shared_memory) shared_memory = RunSharedMemory();
    PrintTargets(comparison, scaling, protocol);
    PrintSharedMemoryTargets(shared_memory);
    if (!flags_.skip_batching) RunBatching();

    if (const int code = echo_->StopWith(SIGTERM, kStopTimeout); code != 0) {
      std::printf("bench: the echo server exited with %d\n", code);
      failed_ = true;
    }
    if (const int code = hand_off_echo_->StopWith(SIGTERM, kStopTimeout); code != 0) {
      std::printf("bench: the hand-off echo server exited with %d\n", code);
      failed_ = true;
    }
    if (http_echo_ != nullptr) {
      if (const int code = http_echo_->StopWith(SIGTERM, kStopTimeout); code != 0) {
        std::printf("bench: the HTTP echo server exited with %d\n", code);
        failed_ = true;
      }
    }
    StopDaemon(*daemon_, "neuron-serve");
    return failed_ ? 1 : 0;
  }

  // The RSS run: the daemon alone (no echo servers, no other section), one 0-latency identity
  // model, a warm-up, then --rss-requests at --rss-concurrency in flight, the daemon's VmRSS
  // sampled as it goes. The exit code: 0 when every call succeeded.
  int RunRss() {
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

  // The version-churn run: one identity model replaced --churn-reloads times, each under a new
  // version label and serving one request, /metrics scraped every --churn-scrape-every
  // reloads. Prints the daemon's RSS and the size of /metrics (and the versions it shows) after
  // the warm-up and at the end. The exit code: 0 when every load, request and scrape succeeded.
  int RunChurn() {
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
      const v1::InferRequest request =
          MakeRequest(model.name, model.tensor_bytes, TensorForm::kRaw);
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

 private:
  // A stretch of the RSS run: requests counted, failures, its wall time and the highest VmRSS
  // sampled in it.
  struct RssStretch {
    uint64_t requests = 0;
    uint64_t failed = 0;
    double seconds = 0;
    uint64_t max_rss_bytes = 0;
  };

  // Keeps --rss-concurrency calls in flight until `total` requests are counted, as windows of
  // RunLoad (no warm-up of their own) that each end at the next sample: after
  // --rss-sample-every requests, or after kRssMaxWindow, so that a progress line (printed once
  // kRssMaxWindow has passed since the last, and at the end) comes at least every 10 s. Counted
  // are the calls that completed inside the windows; the few in flight when a window closes
  // are served but not counted, so the daemon serves a little more than `total`. Stops at the
  // first failed call: a daemon failing calls is not one whose memory is worth watching.
  RssStretch DriveRequests(const char* phase, const StartCall& call,
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

  bool BinariesExist() const {
    for (const std::string* path : {&flags_.daemon, &flags_.nrt_library}) {
      if (!std::filesystem::exists(*path)) {
        std::fprintf(stderr,
                     "bench: %s does not exist (build it, or pass --daemon / "
                     "--nrt-library)\n",
                     path->c_str());
        return false;
      }
    }
    return true;
  }

  // The largest message (or REST body) any section sends or gets back, with headroom: the
  // limit of the client's channels, of both echo servers, and of the daemon when its default
  // is too small. One number for all, so no server refuses what another accepts.
  uint64_t MessageLimitBytes() const {
    uint64_t largest = std::max(
        {flags_.scaling_size, flags_.pipelining_size, flags_.batching_size, flags_.rss_size});
    for (const std::vector<uint64_t>* sizes :
         {&flags_.sizes, &flags_.v2_sizes, &flags_.rest_sizes, &flags_.shm_sizes}) {
      for (uint64_t size : *sizes) largest = std::max(largest, size);
    }
    // gRPC's limits are ints, and the daemon refuses more.
    return std::min<uint64_t>(
        std::max(kDaemonDefaultMaxMessageBytes, largest + kMessageHeadroomBytes), INT_MAX);
  }

  int ChannelLimit() const { return static_cast<int>(MessageLimitBytes()); }

  // The daemon's --malloc: the last one among --daemon-arg, else its default.
  std::string DaemonMallocMode() const {
    std::string mode = "tuned (its default)";
    for (const std::string& arg : flags_.daemon_args) {
      if (absl::StartsWith(arg, "--malloc=")) mode = arg.substr(std::strlen("--malloc="));
    }
    return mode;
  }

  int CoresNeeded() const {
    int cores = std::max(flags_.sim_cores, flags_.infer_replicas);
    if (!flags_.skip_scaling) {
      for (int replicas : flags_.scaling_replicas) cores = std::max(cores, replicas);
    }
    return cores;
  }

  // A neuron-serve child on the simulator with `cores` cores and `env` added to its
  // environment; the caller waits for it (AddressOf). Every daemon of the run gets the same
  // flags, so that the sections differ only in what they measure.
  std::unique_ptr<ChildProcess> StartDaemon(int cores, std::map<std::string, std::string> env) {
    // The HTTP endpoint too, for the REST table (RunHttp).
    std::vector<std::string> daemon_argv = {flags_.daemon, "--listen=127.0.0.1:0",
                                            "--http-listen=127.0.0.1:0",
                                            "--nrt-library=" + flags_.nrt_library};
    // No --malloc: the daemon chooses its allocator settings itself, as it does in production
    // (--daemon-arg=--malloc=default gives it glibc's own).
    // The shared-memory run registers regions: client shared memory is off by default.
    if (!flags_.skip_shared_memory) daemon_argv.push_back("--allow-client-shared-memory");
    // Only when the largest request needs it: otherwise the daemon runs with its own default.
    if (MessageLimitBytes() > kDaemonDefaultMaxMessageBytes) {
      daemon_argv.push_back(absl::StrCat("--max-message-bytes=", MessageLimitBytes()));
    }
    daemon_argv.insert(daemon_argv.end(), flags_.daemon_args.begin(), flags_.daemon_args.end());
    env["NRTSIM_CORES"] = std::to_string(cores);
    // The bench's own environment must not shape the daemon (a NEURON_SERVE_STATE_DIR would
    // bring back old models, NEURON_RT_VISIBLE_CORES would hide cores), except for the lock
    // directory, where the simulator reserves its cores: the bench's private one
    // (tests/sim_lock_dir), so that its daemon never collides with another one on this machine,
    // unless `env` names another.
    if (const char* lock_dir = std::getenv("NRTSIM_LOCK_DIR"); lock_dir != nullptr) {
      env.emplace("NRTSIM_LOCK_DIR", lock_dir);
    }
    return std::make_unique<ChildProcess>(ChildSpec{daemon_argv,
                                                    env,
                                                    {"NEURON_LOGICAL_NC_CONFIG"},
                                                    {"NRTSIM_", "NEURON_RT_", "NEURON_SERVE_"}});
  }

  // SIGTERM, and a failed run unless the daemon exits 0 (then its log is shown).
  void StopDaemon(ChildProcess& daemon, const char* what) {
    if (const int code = daemon.StopWith(SIGTERM, kStopTimeout); code != 0) {
      std::printf("bench: %s exited with %d; its log:\n%s\n", what, code, daemon.Stderr().c_str());
      failed_ = true;
    }
  }

  bool StartServers() {
    const std::string self = SelfPath();
    if (self.empty()) {
      std::fprintf(stderr, "bench: cannot find its own binary through /proc/self/exe\n");
      return false;
    }
    // Allocator settings (util/malloc_tuning.h). This client is the measuring instrument: always
    // tuned, so it costs the same in every run. The echo servers get --malloc's settings through
    // GLIBC_TUNABLES. The daemon chooses its own (its --malloc, tuned unless a --daemon-arg says
    // otherwise), as it does in production: that --malloc=default changes nothing of the
    // daemon's is what a run of each shows.
    ApplyMallocMode(MallocMode::kTuned);
    std::map<std::string, std::string> echo_env;
    if (flags_.malloc_mode == "tuned") {
      echo_env["GLIBC_TUNABLES"] = TunedGlibcTunables(std::getenv("GLIBC_TUNABLES"));
    }
    const std::string tunables = echo_env.count("GLIBC_TUNABLES") ? echo_env["GLIBC_TUNABLES"] : "";

    // All start at once (the daemon opens the runtime meanwhile), then all are waited for.
    const std::string limit = absl::StrCat("--max-message-bytes=", MessageLimitBytes());
    echo_ = std::make_unique<ChildProcess>(
        ChildSpec{{self, "--serve-echo", "--listen=127.0.0.1:0", limit}, echo_env, {}, {}});
    hand_off_echo_ = std::make_unique<ChildProcess>(
        ChildSpec{{self, "--serve-echo", "--echo-hand-off", "--listen=127.0.0.1:0", limit},
                  echo_env,
                  {},
                  {}});
    if (!flags_.skip_rest) {
      http_echo_ = std::make_unique<ChildProcess>(
          ChildSpec{{self, "--serve-http-echo", "--listen=127.0.0.1:0", limit}, echo_env, {}, {}});
    }
    const int cores = CoresNeeded();
    daemon_ = StartDaemon(cores, {});
    const std::string echo_address = AddressOf(*echo_, "echo server");
    const std::string hand_off_echo_address = AddressOf(*hand_off_echo_, "hand-off echo server");
    if (http_echo_ != nullptr) http_echo_address_ = AddressOf(*http_echo_, "HTTP echo server");
    const std::string daemon_address = AddressOf(*daemon_, "neuron-serve daemon");
    if (echo_address.empty() || hand_off_echo_address.empty() || daemon_address.empty()) {
      return false;
    }
    if (http_echo_ != nullptr && http_echo_address_.empty()) return false;
    // Logged before "listening on".
    http_address_ = HttpAddressOf(*daemon_);

    echo_stub_ = BenchEcho::NewStub(Connect(echo_address, ChannelLimit()));
    hand_off_echo_stub_ = BenchEcho::NewStub(Connect(hand_off_echo_address, ChannelLimit()));
    // One channel for both protocols of the daemon: they share its connection, as a client of
    // both would, and neither gets a fresher connection than the other.
    const std::shared_ptr<grpc::Channel> daemon_channel = Connect(daemon_address, ChannelLimit());
    daemon_stub_ = v1::NeuronServing::NewStub(daemon_channel);
    v2_stub_ = inference::GRPCInferenceService::NewStub(daemon_channel);
    echo_call_ = EchoCallOn(echo_stub_.get());
    hand_off_echo_call_ = EchoCallOn(hand_off_echo_stub_.get());
    infer_call_ = InferCallOn(daemon_stub_.get());
    v2_call_ = [stub = v2_stub_.get()](grpc::ClientContext* context,
                                       const inference::ModelInferRequest* request,
                                       inference::ModelInferResponse* response,
                                       std::function<void(grpc::Status)> done) {
      stub->async()->ModelInfer(context, request, response, std::move(done));
    };

    std::printf(
        "neuron_serve_bench: client = this process (pid %d), gRPC callback API, one "
        "channel per server, N unary calls in flight\n",
        static_cast<int>(getpid()));
    std::printf("  echo server  = child process %s (BenchEcho, callback API) on %s\n", self.c_str(),
                echo_address.c_str());
    std::printf(
        "  hand-off echo = child process %s (the same, answered from one other thread) on %s\n",
        self.c_str(), hand_off_echo_address.c_str());
    if (http_echo_ != nullptr) {
      std::printf(
          "  HTTP echo    = child process %s (libmicrohttpd, threaded as the daemon's REST "
          "server) on %s\n",
          self.c_str(), http_echo_address_.c_str());
    }
    std::printf("  neuron-serve = child process %s on %s, NRTSIM_CORES=%d, --nrt-library=%s\n",
                flags_.daemon.c_str(), daemon_address.c_str(), cores, flags_.nrt_library.c_str());
    std::printf(
        "  messages up to %s everywhere (client channels, echo servers, the daemon's "
        "--max-message-bytes%s); cells over --memory-budget=%s (%llu x size x concurrency) are "
        "skipped\n",
        FormatBytes(MessageLimitBytes()).c_str(),
        MessageLimitBytes() > kDaemonDefaultMaxMessageBytes ? ", raised" : ", its default",
        FormatBytes(flags_.memory_budget).c_str(),
        static_cast<unsigned long long>(kTensorCopiesPerRequestInFlight));
    std::printf(
        "  malloc: the daemon --malloc=%s; echo servers %s; client tuned (mallopt)\n",
        DaemonMallocMode().c_str(),
        tunables.empty() ? "glibc's defaults" : absl::StrCat("GLIBC_TUNABLES=", tunables).c_str());
    std::printf(
        "  per cell and target: warm-up %.3g s, then %.3g s measured in %d round%s, the "
        "targets alternating (each round lasts until every slot completed 2 calls)\n",
        flags_.warmup_seconds, flags_.seconds, flags_.rounds, flags_.rounds == 1 ? "" : "s");
    std::fflush(stdout);
    return true;
  }

  // Every size: its identity model is loaded, measured at every form and concurrency against
  // the echo server through Infer and ModelInfer, then unloaded, so only one grid model holds
  // cores at a time. A size none of whose cells fit --memory-budget is never loaded.
  std::vector<ComparisonRow> RunComparison() {
    std::vector<ComparisonRow> rows;
    PrintComparisonHeader(flags_.infer_replicas);
    for (uint64_t size : flags_.sizes) {
      IdentityModel model{absl::StrCat("bench-identity-", size), size, 0, flags_.infer_replicas};
      std::optional<grpc::Status> loaded;  // at the first cell that runs
      for (const std::string& form_name : flags_.forms) {
        const TensorForm form = form_name == "float" ? TensorForm::kFloat : TensorForm::kRaw;
        const v1::InferRequest request = MakeRequest(model.name, size, form);
        const inference::ModelInferRequest v2 = MakeV2Request(request);
        for (int concurrency : flags_.concurrency) {
          if (const std::string why = WhyOverBudget(size, concurrency, flags_.memory_budget);
              !why.empty()) {
            PrintComparisonSkipped(size, form, concurrency, why);
            continue;
          }
          if (!loaded.has_value()) loaded = LoadIdentityModel(*daemon_stub_, model);
          ComparisonRow row{size, form, concurrency, {}, {}, {}, {}};
          row.echo.error = Probe(echo_call_, request);
          row.hand_off_echo.error = Probe(hand_off_echo_call_, request);
          row.infer.error = LoadedOrProbe(*loaded, infer_call_, request);
          row.v2.error = loaded->ok() ? Probe(v2_call_, v2) : row.infer.error;
          for (int round = 0; round < flags_.rounds; ++round) {
            const LoadOptions options = OptionsFor(flags_, concurrency, round, flags_.rounds);
            MeasureRound(echo_call_, request, ExpectSameSize(request), options, row.echo);
            MeasureRound(hand_off_echo_call_, request, ExpectSameSize(request), options,
                         row.hand_off_echo);
            MeasureRound(infer_call_, request, ExpectSameSize(request), options, row.infer);
            MeasureRound(v2_call_, v2, V2ExpectSameSize(v2), options, row.v2);
          }
          failed_ |= !row.echo.ok() || !row.hand_off_echo.ok() || !row.infer.ok() || !row.v2.ok();
          PrintComparisonRow(row);
          rows.push_back(std::move(row));
        }
      }
      if (loaded.has_value() && loaded->ok()) Unload(model.name);
    }
    return rows;
  }

  std::vector<ScalingRow> RunScaling() {
    std::vector<ScalingRow> rows;
    PrintScalingHeader(flags_.scaling_latency_us, flags_.scaling_size);
    for (int replicas : flags_.scaling_replicas) {
      IdentityModel model{absl::StrCat("bench-scaling-", replicas), flags_.scaling_size,
                          flags_.scaling_latency_us, replicas};
      ScalingRow row;
      row.replicas = replicas;
      // Two requests in flight per replica by default: one executing, one queued behind it, so
      // no core idles between a completion and the client's next call.
      row.concurrency = replicas * flags_.scaling_concurrency_per_replica;
      row.ideal_per_second = replicas * 1e6 / static_cast<double>(flags_.scaling_latency_us);
      row.infer = MeasureModel(*daemon_stub_, infer_call_, model, row.concurrency);
      failed_ |= !row.infer.ok();
      PrintScalingRow(row);
      rows.push_back(std::move(row));
    }
    return rows;
  }

  // Loads `model` through `stub`, probes it, measures one round at `concurrency` in flight and
  // unloads it. One round: the sections that use it compare with a computed ideal, not with a
  // baseline to alternate with.
  // With `metrics_address` (the daemon's HTTP endpoint), the daemon's core totals are scraped
  // just before and after the round into `before` and `after`.
  Measurement MeasureModel(v1::NeuronServing::Stub& stub, const StartCall& call,
                           const IdentityModel& model, int concurrency,
                           const std::string& metrics_address = "",
                           std::optional<CoreTotals>* before = nullptr,
                           std::optional<CoreTotals>* after = nullptr) {
    Measurement measurement;
    const grpc::Status loaded = LoadIdentityModel(stub, model);
    const v1::InferRequest request = MakeRequest(model.name, model.tensor_bytes, TensorForm::kRaw);
    measurement.error = LoadedOrProbe(loaded, call, request);
    if (before != nullptr) *before = ScrapeCoreTotals(metrics_address);
    MeasureRound(call, request, ExpectSameSize(request), OptionsFor(flags_, concurrency, 0, 1),
                 measurement);
    if (after != nullptr) *after = ScrapeCoreTotals(metrics_address);
    if (loaded.ok()) Unload(stub, model.name);
    return measurement;
  }

  // A copy-bound model with and without pipelining. Copies cost time only when the simulator is
  // told a copy bandwidth, which it reads from its process's environment at nrt_init: so a second
  // daemon, started for this section and stopped after it, with the bandwidth at which one
  // request's input and output take --pipelining-copy-us together.
  void RunPipelining() {
    const uint64_t size = flags_.pipelining_size;
    const uint64_t dma_bytes_per_second =
        std::max<uint64_t>(1, std::llround(2.0 * static_cast<double>(size) * 1e6 /
                                           static_cast<double>(flags_.pipelining_copy_us)));
    const int cores =
        *std::max_element(flags_.pipelining_replicas.begin(), flags_.pipelining_replicas.end());
    std::map<std::string, std::string> env = {
        {"NRTSIM_DMA_BYTES_PER_SECOND", std::to_string(dma_bytes_per_second)}};
    // A lock directory of its own, inside the bench's private one (removed with it): the main
    // daemon holds its cores until the end of the run, and in one directory the simulator would
    // refuse this daemon the same core numbers. Different lock directories are different
    // machines, which is what this daemon is: one whose copies cost time.
    if (const char* lock_dir = std::getenv("NRTSIM_LOCK_DIR"); lock_dir != nullptr) {
      env["NRTSIM_LOCK_DIR"] = absl::StrCat(lock_dir, "/pipelining");
    }
    std::unique_ptr<ChildProcess> daemon = StartDaemon(cores, env);
    const std::string address = AddressOf(*daemon, "pipelining neuron-serve daemon");
    if (address.empty()) {
      failed_ = true;
      return;
    }
    std::printf(
        "\npipelining daemon = child process %s on %s, NRTSIM_CORES=%d, "
        "NRTSIM_DMA_BYTES_PER_SECOND=%llu, a lock directory of its own\n",
        flags_.daemon.c_str(), address.c_str(), cores,
        static_cast<unsigned long long>(dma_bytes_per_second));
    const std::unique_ptr<v1::NeuronServing::Stub> stub =
        v1::NeuronServing::NewStub(Connect(address, ChannelLimit()));
    const StartCall call = InferCallOn(stub.get());
    const std::string metrics_address = HttpAddressOf(*daemon);

    PrintPipeliningHeader(flags_.pipelining_latency_us, flags_.pipelining_copy_us, size,
                          dma_bytes_per_second);
    std::vector<PipeliningRow> rows;
    for (int replicas : flags_.pipelining_replicas) {
      for (uint32_t depth : {1u, 2u}) {
        IdentityModel model{absl::StrCat("bench-pipelining-", replicas, "-", depth), size,
                            flags_.pipelining_latency_us, replicas};
        model.pipeline_depth = depth;
        PipeliningRow row;
        row.replicas = replicas;
        row.depth = depth;
        row.concurrency = replicas * flags_.pipelining_concurrency_per_replica;
        row.latency_us = flags_.pipelining_latency_us;
        row.copy_us = flags_.pipelining_copy_us;
        std::optional<CoreTotals> before;
        std::optional<CoreTotals> after;
        row.infer =
            MeasureModel(*stub, call, model, row.concurrency, metrics_address, &before, &after);
        if (before.has_value() && after.has_value() && after->executions > before->executions) {
          const double busy = after->busy_seconds - before->busy_seconds;
          row.execution_us = busy * 1e6 / (after->executions - before->executions);
          row.busy_share = busy / (replicas * absl::ToDoubleSeconds(after->at - before->at));
        }
        failed_ |= !row.infer.ok();
        PrintPipeliningRow(row);
        rows.push_back(std::move(row));
      }
    }
    PrintPipeliningTargets(rows);
    StopDaemon(*daemon, "the pipelining neuron-serve");
  }

  // ModelInfer against native Infer: per size one identity model, the same tensor through both
  // protocols, rounds alternating so background load hits both alike.
  std::vector<ProtocolRow> RunProtocols() {
    std::vector<ProtocolRow> rows;
    PrintProtocolHeader(flags_.infer_replicas);
    for (uint64_t size : flags_.v2_sizes) {
      IdentityModel model{absl::StrCat("bench-v2-", size), size, 0, flags_.infer_replicas};
      grpc::Status loaded = LoadIdentityModel(*daemon_stub_, model);
      const v1::InferRequest native = MakeRequest(model.name, size, TensorForm::kRaw);
      const inference::ModelInferRequest v2 = MakeV2Request(native);
      for (int concurrency : flags_.v2_concurrency) {
        ProtocolRow row{size, concurrency, {}, {}};
        if (loaded.ok()) {
          row.native.error = Probe(infer_call_, native);
          row.v2.error = Probe(v2_call_, v2);
        } else {
          row.native.error = row.v2.error = absl::StrCat(
              "LoadModel failed, code ", loaded.error_code(), ": ", loaded.error_message());
        }
        for (int round = 0; round < flags_.rounds; ++round) {
          const LoadOptions options = OptionsFor(flags_, concurrency, round, flags_.rounds);
          MeasureRound(infer_call_, native, ExpectSameSize(native), options, row.native);
          MeasureRound(v2_call_, v2, V2ExpectSameSize(v2), options, row.v2);
        }
        failed_ |= !row.native.ok() || !row.v2.ok();
        PrintProtocolRow(row);
        rows.push_back(std::move(row));
      }
      if (loaded.ok()) Unload(model.name);
    }
    return rows;
  }

  // Infer with the tensor in the request against the same tensor in shared memory: per size an
  // identity model and one POSIX shared-memory object of twice the size, made as a client makes
  // one, registered as two regions (the input's bytes, then room for the output). Every call of
  // the shared-memory target reads the same input range and writes the same output range (the
  // bench reads neither during the load; the probe checks the output once).
  std::vector<SharedMemoryRow> RunSharedMemory() {
    std::vector<SharedMemoryRow> rows;
    PrintSharedMemoryHeader(flags_.infer_replicas);
    for (uint64_t size : flags_.shm_sizes) {
      IdentityModel model{absl::StrCat("bench-shm-", size), size, 0, flags_.infer_replicas};
      const grpc::Status loaded = LoadIdentityModel(*daemon_stub_, model);
      const v1::InferRequest raw = MakeRequest(model.name, size, TensorForm::kRaw);
      testing::ShmObject object(2 * size);
      const std::string in = absl::StrCat("bench-in-", size);
      const std::string out = absl::StrCat("bench-out-", size);
      std::string setup_error;
      if (!loaded.ok()) {
        setup_error = absl::StrCat("LoadModel failed, code ", loaded.error_code(), ": ",
                                   loaded.error_message());
      } else if (!object.ok()) {
        setup_error = absl::StrCat("cannot make a shared memory object of ", 2 * size, " bytes");
      } else {
        std::memcpy(object.bytes(), raw.inputs(0).raw_data().data(), size);
        setup_error = RegisterRegion(in, object.key(), 0, size);
        if (setup_error.empty()) setup_error = RegisterRegion(out, object.key(), size, size);
      }
      v1::InferRequest shared = raw;
      shared.mutable_inputs(0)->clear_raw_data();
      *shared.mutable_inputs(0)->mutable_shared_memory() = ShmRef(in, 0, size);
      v1::OutputSharedMemory* output = shared.add_output_shared_memory();
      output->set_name(std::string(kOutputName));
      *output->mutable_shared_memory() = ShmRef(out, 0, size);
      const CheckResponse in_region = [](const v1::InferResponse& response) -> std::string {
        if (response.outputs_size() != 1 || !response.outputs(0).has_shared_memory() ||
            !response.outputs(0).raw_data().empty()) {
          return "expected 1 output in shared memory and none in the response";
        }
        return "";
      };
      for (int concurrency : flags_.shm_concurrency) {
        SharedMemoryRow row{size, concurrency, {}, {}};
        row.raw.error = setup_error.empty() ? Probe(infer_call_, raw) : setup_error;
        row.shared.error = setup_error.empty() ? ProbeShared(shared, object, size) : setup_error;
        for (int round = 0; round < flags_.rounds; ++round) {
          const LoadOptions options = OptionsFor(flags_, concurrency, round, flags_.rounds);
          MeasureRound(infer_call_, raw, ExpectSameSize(raw), options, row.raw);
          MeasureRound(infer_call_, shared, in_region, options, row.shared);
        }
        failed_ |= !row.raw.ok() || !row.shared.ok();
        PrintSharedMemoryRow(row);
        rows.push_back(std::move(row));
      }
      UnregisterRegions();
      if (loaded.ok()) Unload(model.name);
    }
    return rows;
  }

  // Registers `name` over the object through the native API; empty, or why not.
  std::string RegisterRegion(const std::string& name, const std::string& key, uint64_t offset,
                             uint64_t byte_size) {
    v1::RegisterSharedMemoryRequest request;
    request.set_name(name);
    request.set_key(key);
    request.set_offset(offset);
    request.set_byte_size(byte_size);
    v1::RegisterSharedMemoryResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    const grpc::Status status = daemon_stub_->RegisterSharedMemory(&context, request, &response);
    if (status.ok()) return "";
    return absl::StrCat("RegisterSharedMemory '", name, "' failed, code ", status.error_code(),
                        ": ", status.error_message());
  }

  void UnregisterRegions() {
    v1::UnregisterSharedMemoryRequest request;  // every region
    v1::UnregisterSharedMemoryResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    const grpc::Status status = daemon_stub_->UnregisterSharedMemory(&context, request, &response);
    if (!status.ok()) {
      std::printf("bench: UnregisterSharedMemory failed, code %d: %s\n",
                  static_cast<int>(status.error_code()), status.error_message().c_str());
      failed_ = true;
    }
  }

  static v1::SharedMemoryRef ShmRef(const std::string& region, uint64_t offset,
                                    uint64_t byte_size) {
    v1::SharedMemoryRef ref;
    ref.set_region(region);
    ref.set_offset(offset);
    ref.set_byte_size(byte_size);
    return ref;
  }

  // One call of the shared-memory request, its output compared byte for byte with the input.
  std::string ProbeShared(const v1::InferRequest& request, testing::ShmObject& object,
                          uint64_t size) {
    std::memset(object.bytes() + size, 0, size);
    v1::InferResponse response;
    const grpc::Status status = CallOnce(infer_call_, request, &response, kProbeTimeout);
    if (!status.ok()) {
      return absl::StrCat("code ", status.error_code(), ": ", status.error_message());
    }
    if (std::memcmp(object.bytes(), object.bytes() + size, size) != 0) {
      return "the output region does not hold the input's bytes";
    }
    return "";
  }

  // REST against gRPC ModelInfer at 4 KiB on the same daemon: binary extension in and out, and
  // JSON in and out, one keep-alive connection per slot; rounds alternate among the three.
  void RunHttp() {
    constexpr uint64_t kSize = 4096;
    PrintHttpHeader(flags_.infer_replicas);
    IdentityModel model{"bench-http", kSize, 0, flags_.infer_replicas};
    grpc::Status loaded = LoadIdentityModel(*daemon_stub_, model);
    const v1::InferRequest native = MakeRequest(model.name, kSize, TensorForm::kRaw);
    const inference::ModelInferRequest v2 = MakeV2Request(native);
    const std::string& bytes = v2.raw_input_contents(0);
    const HttpPost binary = MakeRestBinaryRequest(v2);
    const std::string& path = binary.path;
    const nlohmann::json shape = {1, kSize / 4};
    std::vector<float> values(kSize / 4);
    std::memcpy(values.data(), bytes.data(), kSize);
    const HttpPost json{
        path,
        {"Content-Type: application/json"},
        nlohmann::json{
            {"inputs",
             {{{"name", kInputName}, {"shape", shape}, {"datatype", "FP32"}, {"data", values}}}}}
            .dump()};
    // The identity's bytes must come back: after the JSON part, or as many JSON numbers.
    const HttpCheck binary_check = [&bytes](const HttpAnswer& answer) {
      return RestBinaryCompareOutput(bytes, answer);
    };
    const HttpCheck json_check = [count = values.size()](const HttpAnswer& answer) -> std::string {
      if (answer.status != 200) return absl::StrCat("HTTP ", answer.status, ": ", answer.body);
      const size_t commas = std::count(answer.body.begin(), answer.body.end(), ',');
      return commas >= count ? "" : "the JSON output has too few values";
    };
    for (int concurrency : flags_.v2_concurrency) {
      HttpRow row{kSize, concurrency, {}, {}, {}};
      if (!loaded.ok()) {
        row.grpc.error = row.rest_binary.error = row.rest_json.error = absl::StrCat(
            "LoadModel failed, code ", loaded.error_code(), ": ", loaded.error_message());
      } else if (http_address_.empty()) {
        row.rest_binary.error = row.rest_json.error = "the daemon logged no HTTP endpoint";
      } else {
        row.grpc.error = Probe(v2_call_, v2);
        HttpConnection probe(http_address_);
        row.rest_binary.error = binary_check(probe.Send(binary));
        row.rest_json.error = json_check(probe.Send(json));
      }
      for (int round = 0; round < flags_.rounds; ++round) {
        const LoadOptions options = OptionsFor(flags_, concurrency, round, flags_.rounds);
        MeasureRound(v2_call_, v2, V2ExpectSameSize(v2), options, row.grpc);
        MeasureHttpRound(http_address_, binary, binary_check, options, row.rest_binary);
        MeasureHttpRound(http_address_, json, json_check, options, row.rest_json);
      }
      failed_ |= !row.grpc.ok() || !row.rest_binary.ok() || !row.rest_json.ok();
      PrintHttpRow(row);
    }
    if (loaded.ok()) Unload(model.name);
  }

  // REST binary against the HTTP echo server: per size one identity model, the same request
  // (JSON part and tensor bytes) to both, rounds alternating so background load hits both alike.
  void RunRestEcho() {
    PrintRestEchoHeader(flags_.infer_replicas);
    for (uint64_t size : flags_.rest_sizes) {
      IdentityModel model{absl::StrCat("bench-rest-", size), size, 0, flags_.infer_replicas};
      std::optional<grpc::Status> loaded;  // at the first cell that runs
      const inference::ModelInferRequest v2 =
          MakeV2Request(MakeRequest(model.name, size, TensorForm::kRaw));
      const std::string& bytes = v2.raw_input_contents(0);
      const HttpPost post = MakeRestBinaryRequest(v2);
      const HttpCheck check = RestBinaryExpectSameSize(size);
      for (int concurrency : flags_.rest_concurrency) {
        if (const std::string why = WhyOverBudget(size, concurrency, flags_.memory_budget);
            !why.empty()) {
          PrintRestEchoSkipped(size, concurrency, why);
          continue;
        }
        if (!loaded.has_value()) loaded = LoadIdentityModel(*daemon_stub_, model);
        RestEchoRow row{size, concurrency, {}, {}};
        row.http_echo.error = ProbeHttp(http_echo_address_, post, bytes);
        if (!loaded->ok()) {
          row.rest.error = absl::StrCat("LoadModel failed, code ", loaded->error_code(), ": ",
                                        loaded->error_message());
        } else if (http_address_.empty()) {
          row.rest.error = "the daemon logged no HTTP endpoint";
        } else {
          row.rest.error = ProbeHttp(http_address_, post, bytes);
        }
        for (int round = 0; round < flags_.rounds; ++round) {
          const LoadOptions options = OptionsFor(flags_, concurrency, round, flags_.rounds);
          MeasureHttpRound(http_echo_address_, post, check, options, row.http_echo);
          MeasureHttpRound(http_address_, post, check, options, row.rest);
        }
        failed_ |= !row.http_echo.ok() || !row.rest.ok();
        PrintRestEchoRow(row);
      }
      if (loaded.has_value() && loaded->ok()) Unload(model.name);
    }
  }

  // One REST binary call on a connection of its own, its output compared in full with `bytes`;
  // empty when right.
  static std::string ProbeHttp(const std::string& address, const HttpPost& post,
                               const std::string& bytes) {
    HttpConnection connection(address);
    const HttpAnswer answer = connection.Send(post);
    if (answer.status == 0) return answer.error;
    return RestBinaryCompareOutput(bytes, answer);
  }

  void MeasureHttpRound(const std::string& address, const HttpPost& post, const HttpCheck& check,
                        const LoadOptions& options, Measurement& measurement) {
    if (!measurement.error.empty()) return;
    LoadResult round = RunHttpLoad(address, post, check, options);
    if (measurement.result.has_value()) {
      measurement.result->Add(round);
    } else {
      measurement.result = std::move(round);
    }
  }

  // Batching: the identity as one NEFF of batch 1 against the same as variants of batch 1 and
  // 8 (the dynamic batcher), one replica each, at each concurrency (rounds alternating between
  // the two); then two batched models sharing core 0, loaded at once from two threads.
  void RunBatching() {
    const uint64_t size = flags_.batching_size;
    const std::vector<IdentityModel::Variant> variants = {{1, flags_.batch1_latency_us},
                                                          {8, flags_.batch8_latency_us}};
    IdentityModel batch1{"bench-batch1", size, flags_.batch1_latency_us, 1, {}, {}};
    IdentityModel batched{"bench-batched", size, 0, 1, variants, {}};
    PrintBatchingHeader(size, flags_.batch1_latency_us, flags_.batch8_latency_us);
    const grpc::Status batch1_loaded = LoadIdentityModel(*daemon_stub_, batch1);
    const grpc::Status batched_loaded = LoadIdentityModel(*daemon_stub_, batched);
    const v1::InferRequest batch1_request = MakeRequest(batch1.name, size, TensorForm::kRaw);
    const v1::InferRequest batched_request = MakeRequest(batched.name, size, TensorForm::kRaw);
    std::vector<BatchingRow> rows;
    for (int concurrency : flags_.batching_concurrency) {
      BatchingRow row;
      row.concurrency = concurrency;
      row.batch1.error = LoadedOrProbe(batch1_loaded, infer_call_, batch1_request);
      row.batched.error = LoadedOrProbe(batched_loaded, infer_call_, batched_request);
      for (int round = 0; round < flags_.rounds; ++round) {
        const LoadOptions options = OptionsFor(flags_, concurrency, round, flags_.rounds);
        MeasureRound(infer_call_, batch1_request, ExpectSameSize(batch1_request), options,
                     row.batch1);
        MeasureRound(infer_call_, batched_request, ExpectSameSize(batched_request), options,
                     row.batched);
      }
      failed_ |= !row.batch1.ok() || !row.batched.ok();
      PrintBatchingRow(row);
      rows.push_back(std::move(row));
    }
    if (batch1_loaded.ok()) Unload(batch1.name);
    if (batched_loaded.ok()) Unload(batched.name);

    IdentityModel first{"bench-share-a", size, 0, 1, variants, 0};
    IdentityModel second{"bench-share-b", size, 0, 1, variants, 0};
    const grpc::Status first_loaded = LoadIdentityModel(*daemon_stub_, first);
    const grpc::Status second_loaded = LoadIdentityModel(*daemon_stub_, second);
    const v1::InferRequest first_request = MakeRequest(first.name, size, TensorForm::kRaw);
    const v1::InferRequest second_request = MakeRequest(second.name, size, TensorForm::kRaw);
    SharingRow sharing;
    sharing.concurrency = flags_.batching_share_concurrency;
    sharing.first.error = LoadedOrProbe(first_loaded, infer_call_, first_request);
    sharing.second.error = LoadedOrProbe(second_loaded, infer_call_, second_request);
    // One window, both loads at once: the point is what each gets while the other competes.
    const LoadOptions options = OptionsFor(flags_, sharing.concurrency, 0, 1);
    std::thread other([&] {
      MeasureRound(infer_call_, second_request, ExpectSameSize(second_request), options,
                   sharing.second);
    });
    MeasureRound(infer_call_, first_request, ExpectSameSize(first_request), options, sharing.first);
    other.join();
    failed_ |= !sharing.first.ok() || !sharing.second.ok();
    PrintSharingRow(sharing);
    if (first_loaded.ok()) Unload(first.name);
    if (second_loaded.ok()) Unload(second.name);
    PrintBatchingTargets(rows, sharing);
  }

  // "" when the model loaded and answers `request` (sent with `call`) correctly; else why not.
  std::string LoadedOrProbe(const grpc::Status& loaded, const StartCall& call,
                            const v1::InferRequest& request) {
    if (!loaded.ok()) {
      return absl::StrCat("LoadModel failed, code ", loaded.error_code(), ": ",
                          loaded.error_message());
    }
    return Probe(call, request);
  }

  void Unload(const std::string& name) { Unload(*daemon_stub_, name); }

  void Unload(v1::NeuronServing::Stub& stub, const std::string& name) {
    grpc::Status status = UnloadModel(stub, name);
    if (!status.ok()) {
      std::printf("bench: UnloadModel %s failed, code %d: %s\n", name.c_str(),
                  static_cast<int>(status.error_code()), status.error_message().c_str());
      failed_ = true;
    }
  }

  const BenchFlags flags_;
  std::unique_ptr<ChildProcess> echo_;
  std::unique_ptr<ChildProcess> hand_off_echo_;
  std::unique_ptr<ChildProcess> http_echo_;  // unless --skip-rest
  std::string http_echo_address_;
  std::unique_ptr<ChildProcess> daemon_;
  std::unique_ptr<BenchEcho::Stub> echo_stub_;
  std::unique_ptr<BenchEcho::Stub> hand_off_echo_stub_;
  std::unique_ptr<v1::NeuronServing::Stub> daemon_stub_;
  std::unique_ptr<inference::GRPCInferenceService::Stub> v2_stub_;
  StartCall echo_call_;
  StartCall hand_off_echo_call_;
  StartCall infer_call_;
  V2StartCall v2_call_;
  std::string http_address_;  // the daemon's HTTP endpoint
  bool failed_ = false;
};

}  // namespace
}  // namespace neuronserve::bench

int main(int argc, char** argv) {
  using namespace neuronserve::bench;
  absl::StatusOr<BenchFlags> flags = ParseBenchFlags(argc, argv);
  if (!flags.ok()) {
    std::fprintf(stderr, "neuron_serve_bench: %s\n", std::string(flags.status().message()).c_str());
    return 2;
  }
  if (flags->help) {
    std::printf("%s", BenchUsage().c_str());
    return 0;
  }
  // As the daemon does (server/daemon/main.cc): no deadlock graph behind every absl::Mutex lock
  // of gRPC's, in the echo server and in this client, so the baseline is gRPC at its cheapest.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  if (flags->serve_echo) {
    return RunEchoServer(flags->listen, flags->max_message_bytes,
                         flags->echo_hand_off ? EchoAnswer::kHandOff : EchoAnswer::kInline);
  }
  if (flags->serve_http_echo) return RunHttpEchoServer(flags->listen, flags->max_message_bytes);
  if (flags->rss_run) return Bench(*flags).RunRss();
  if (flags->churn_run) return Bench(*flags).RunChurn();
  if (flags->soak_run) {
    SoakOptions soak;
    soak.daemon = flags->daemon;
    soak.nrt_library = flags->nrt_library;
    soak.daemon_args = flags->daemon_args;
    soak.duration = absl::Seconds(flags->soak_seconds);
    soak.clients = flags->soak_clients;
    soak.seed = static_cast<uint32_t>(flags->soak_seed);
    soak.fault_statuses = flags->soak_fault_statuses;
    soak.check_rss = !flags->soak_skip_rss_bound;
    soak.scrape_every = absl::Seconds(flags->soak_scrape_seconds);
    soak.reuse_labels = flags->soak_reuse_labels;
    return RunSoak(soak);
  }
  return Bench(*flags).Run();
}
