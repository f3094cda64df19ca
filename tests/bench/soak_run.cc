// The soak's driver: the daemon and its fixed models, the mix, one thread per client, the
// fault writer and the monitor, then the reckoning.
#include "tests/bench/soak_run.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/bench/daemon_models.h"
#include "tests/bench/http_load.h"
#include "tests/bench/soak.h"

namespace neuronserve::bench::soak {

using ::neuronserve::testing::ChildSpec;
using ::neuronserve::testing::ProcessStatusBytes;

int Soak::Run() {
  if (options_.clients < 16) {
    std::fprintf(stderr, "soak: --soak-clients must be at least 16 (the mix repeats every 16)\n");
    return 1;
  }
  if (!StartDaemon() || !LoadFixedModels()) return Finish(false);
  PrintMix();
  stop_at_ = absl::Now() + options_.duration;
  std::vector<Tally> tallies(options_.clients);
  std::vector<std::thread> threads;
  int lifecycle_ordinal = 0;
  for (int i = 0; i < options_.clients; ++i) {
    const Kind kind = kMix[i % 16];
    const int ordinal = kind == Kind::kLifecycle ? lifecycle_ordinal++ : 0;
    threads.emplace_back([this, i, kind, ordinal, &tallies] {
      std::mt19937 random(options_.seed * 1000 + static_cast<uint32_t>(i));
      RunClient(kind, i, ordinal % kChurnModels, random, tallies[i]);
    });
  }
  std::thread faults([this] { WriteFaults(); });
  Monitor();
  for (std::thread& thread : threads) thread.join();
  faults.join();
  // Before the end's scrapes, whose text (every retired version's series, up to
  // --max-retired-metric-versions of them) is a transient of its own, and while every model
  // is still loaded: the RSS as the traffic ended, then polled (at most 15 s) until it is
  // within the bound, since what the last bursts freed goes back to the kernel at the
  // daemon's next --malloc-trim-interval (10 s). A leak stays.
  traffic_end_rss_ = ProcessStatusBytes(daemon_->pid(), "VmRSS");
  settled_rss_ = traffic_end_rss_;
  const absl::Time settle_deadline = absl::Now() + absl::Seconds(15);
  while (warm_rss_.has_value() && settled_rss_ > *warm_rss_ + options_.rss_growth_bytes &&
         absl::Now() < settle_deadline) {
    absl::SleepFor(absl::Milliseconds(250));
    settled_rss_ = ProcessStatusBytes(daemon_->pid(), "VmRSS");
  }
  std::map<Kind, Tally> by_kind;
  for (int i = 0; i < options_.clients; ++i) by_kind[kMix[i % 16]].Add(tallies[i]);
  const bool answers_held = Reckon(by_kind);
  const bool state_held = CheckQuiescentState();
  return Finish(answers_held && state_held);
}

bool Soak::StartDaemon() {
  WriteFaultRules("");
  std::vector<std::string> argv = {
      options_.daemon, "--listen=127.0.0.1:0", "--http-listen=127.0.0.1:0",
      "--nrt-library=" + options_.nrt_library, "--allow-client-shared-memory"};
  argv.insert(argv.end(), options_.daemon_args.begin(), options_.daemon_args.end());
  std::map<std::string, std::string> env = {{"NRTSIM_CORES", std::to_string(kCores)},
                                            {"NRTSIM_FAULTS_FILE", faults_file_}};
  // The simulator's core locks: the bench's private directory (tests/sim_lock_dir).
  if (const char* lock_dir = std::getenv("NRTSIM_LOCK_DIR"); lock_dir != nullptr) {
    env.emplace("NRTSIM_LOCK_DIR", lock_dir);
  }
  daemon_ = std::make_unique<ChildProcess>(ChildSpec{
      argv, env, {"NEURON_LOGICAL_NC_CONFIG"}, {"NRTSIM_", "NEURON_RT_", "NEURON_SERVE_"}});
  std::optional<std::string> address = daemon_->WaitUntilListening(absl::Seconds(30));
  if (!address.has_value()) {
    std::printf("soak: the daemon did not start; its log:\n%s\n", daemon_->Stderr().c_str());
    return false;
  }
  address_ = *address;
  http_address_ = HttpAddressInLog(daemon_->Stderr());
  if (http_address_.empty()) {
    std::printf("soak: the daemon logged no HTTP endpoint\n");
    return false;
  }
  stub_ = v1::NeuronServing::NewStub(Connect(address_));
  return true;
}

bool Soak::LoadFixedModels() {
  IdentityModel stable{kStable, kRowBytes, 200, 2};
  IdentityModel batched{kBatched, kRowBytes, 0, 1};
  batched.variants = {{1, 150}, {4, 300}};
  batched.max_queue_delay_us = 2000;
  for (const IdentityModel& model : {stable, batched}) {
    const grpc::Status loaded = LoadIdentityModel(*stub_, model);
    if (!loaded.ok()) {
      std::printf("soak: loading '%s' failed, code %d: %s\n", model.name.c_str(),
                  loaded.error_code(), loaded.error_message().c_str());
      return false;
    }
  }
  return true;
}

void Soak::PrintMix() const {
  std::map<Kind, int> counts;
  for (int i = 0; i < options_.clients; ++i) ++counts[kMix[i % 16]];
  std::vector<std::string> parts;
  for (const auto& [kind, count] : counts)
    parts.push_back(absl::StrCat(count, " ", KindName(kind)));
  std::printf(
      "\n== soak: %s, %d clients (%s) against one daemon on the simulator (%d cores), "
      "execution faults from NRTSIM_FAULTS_FILE ==\n",
      absl::FormatDuration(options_.duration).c_str(), options_.clients,
      absl::StrJoin(parts, ", ").c_str(), kCores);
  std::fflush(stdout);
}

std::string Soak::PickModel(std::mt19937& random) {
  const uint32_t pick = random() % 4;
  return pick < 2 ? kStable : ChurnName(static_cast<int>(pick - 2));
}

void Soak::RunClient(Kind kind, int client, int churn, std::mt19937& random, Tally& tally) {
  switch (kind) {
    case Kind::kNativeUnary:
    case Kind::kV2Unary:
    case Kind::kBatched:
      return UnaryClient(kind, client, random, tally);
    case Kind::kRest:
      return RestClient(client, random, tally);
    case Kind::kNativeStream:
      return NativeStreamClient(client, random, tally);
    case Kind::kV2Stream:
      return V2StreamClient(client, random, tally);
    case Kind::kNativeSharedMemory:
    case Kind::kV2SharedMemory:
      return SharedMemoryClient(kind == Kind::kV2SharedMemory, client, random, tally);
    case Kind::kCanceller:
      return CancellingClient(client, random, tally);
    case Kind::kLifecycle:
      return LifecycleClient(churn, random);
  }
}

}  // namespace neuronserve::bench::soak

namespace neuronserve::bench {

int RunSoak(const SoakOptions& options) { return soak::Soak(options).Run(); }

}  // namespace neuronserve::bench
