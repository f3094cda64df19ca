// Bench: the default run, the servers it starts and stops, and what every run shares (the
// message limit, the daemon's flags, a probe after a load, an unload).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/bench/bench.h"
#include "tests/bench/payload.h"
#include "util/malloc_tuning.h"

namespace neuronserve::bench {

using ::neuronserve::testing::ChildProcess;
using ::neuronserve::testing::ChildSpec;

int Bench::Run() {
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

bool Bench::BinariesExist() const {
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

uint64_t Bench::MessageLimitBytes() const {
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

std::string Bench::DaemonMallocMode() const {
  std::string mode = "tuned (its default)";
  for (const std::string& arg : flags_.daemon_args) {
    if (absl::StartsWith(arg, "--malloc=")) mode = arg.substr(std::strlen("--malloc="));
  }
  return mode;
}

int Bench::CoresNeeded() const {
  int cores = std::max(flags_.sim_cores, flags_.infer_replicas);
  if (!flags_.skip_scaling) {
    for (int replicas : flags_.scaling_replicas) cores = std::max(cores, replicas);
  }
  return cores;
}

std::unique_ptr<ChildProcess> Bench::StartDaemon(int cores,
                                                 std::map<std::string, std::string> env) {
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
  return std::make_unique<ChildProcess>(ChildSpec{
      daemon_argv, env, {"NEURON_LOGICAL_NC_CONFIG"}, {"NRTSIM_", "NEURON_RT_", "NEURON_SERVE_"}});
}

void Bench::StopDaemon(ChildProcess& daemon, const char* what) {
  if (const int code = daemon.StopWith(SIGTERM, kStopTimeout); code != 0) {
    std::printf("bench: %s exited with %d; its log:\n%s\n", what, code, daemon.Stderr().c_str());
    failed_ = true;
  }
}

bool Bench::StartServers() {
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
  hand_off_echo_ = std::make_unique<ChildProcess>(ChildSpec{
      {self, "--serve-echo", "--echo-hand-off", "--listen=127.0.0.1:0", limit}, echo_env, {}, {}});
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
  v2_call_ = [stub = v2_stub_.get()](
                 grpc::ClientContext* context, const inference::ModelInferRequest* request,
                 inference::ModelInferResponse* response, std::function<void(grpc::Status)> done) {
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

std::string Bench::LoadedOrProbe(const grpc::Status& loaded, const StartCall& call,
                                 const v1::InferRequest& request) {
  if (!loaded.ok()) {
    return absl::StrCat("LoadModel failed, code ", loaded.error_code(), ": ",
                        loaded.error_message());
  }
  return Probe(call, request);
}

void Bench::Unload(v1::NeuronServing::Stub& stub, const std::string& name) {
  grpc::Status status = UnloadModel(stub, name);
  if (!status.ok()) {
    std::printf("bench: UnloadModel %s failed, code %d: %s\n", name.c_str(),
                static_cast<int>(status.error_code()), status.error_message().c_str());
    failed_ = true;
  }
}

}  // namespace neuronserve::bench
