// neuron_serve_bench's runs: the default run (the grid of sizes x concurrency against the echo
// servers, then replica scaling, pipelining, the protocols, REST, shared memory and batching),
// the RSS run and the version-churn run. One client process (this one) and its servers on
// loopback: the baseline echo servers and the neuron-serve daemon on the simulated runtime, each
// a child process. Every cell measures the echo server and then the daemon with the same
// request, the same client code and the same number of calls in flight, and prints the ratio:
// these machines are noisy, so only a ratio against a baseline measured in the same run means
// anything.
//
// The members are defined by run, one file each: bench_servers.cc (the servers, Run and what
// every run shares), bench_grid.cc, bench_scaling.cc, bench_pipelining.cc, bench_protocols.cc
// (ModelInfer and REST), bench_shared_memory.cc, bench_batching.cc and bench_memory_runs.cc
// (the RSS and version-churn runs).
//
// Thread safety: one thread calls a Bench's runs, one at a time; a run may start threads of
// its own (load slots, the batching run's second load) and joins them before it returns.
// Ownership: a Bench owns its child processes and stops them at the end of its run.
#ifndef NEURON_SERVE_TESTS_BENCH_BENCH_H_
#define NEURON_SERVE_TESTS_BENCH_BENCH_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_echo.grpc.pb.h"
#include "grpcpp/support/status.h"
#include "inference/grpc_service.grpc.pb.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"
#include "tests/bench/bench_flags.h"
#include "tests/bench/bench_support.h"
#include "tests/bench/daemon_models.h"
#include "tests/bench/http_load.h"
#include "tests/bench/load_generator.h"
#include "tests/bench/report.h"
#include "tests/support/child_process.h"
#include "tests/support/shm_object.h"

namespace neuronserve::bench {

class Bench {
 public:
  explicit Bench(const BenchFlags& flags) : flags_(flags) {}

  // The process exit code: 0 when every load and every call succeeded.
  int Run();

  // The RSS run: the daemon alone (no echo servers, no other section), one 0-latency identity
  // model, a warm-up, then --rss-requests at --rss-concurrency in flight, the daemon's VmRSS
  // sampled as it goes. The exit code: 0 when every call succeeded.
  int RunRss();

  // The version-churn run: one identity model replaced --churn-reloads times, each under a new
  // version label and serving one request, /metrics scraped every --churn-scrape-every
  // reloads. Prints the daemon's RSS and the size of /metrics (and the versions it shows) after
  // the warm-up and at the end. The exit code: 0 when every load, request and scrape succeeded.
  int RunChurn();

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
                           const v1::InferRequest& request, uint64_t total);

  bool BinariesExist() const;

  // The largest message (or REST body) any section sends or gets back, with headroom: the
  // limit of the client's channels, of both echo servers, and of the daemon when its default
  // is too small. One number for all, so no server refuses what another accepts.
  uint64_t MessageLimitBytes() const;

  int ChannelLimit() const { return static_cast<int>(MessageLimitBytes()); }

  // The daemon's --malloc: the last one among --daemon-arg, else its default.
  std::string DaemonMallocMode() const;

  int CoresNeeded() const;

  // A neuron-serve child on the simulator with `cores` cores and `env` added to its
  // environment; the caller waits for it (AddressOf). Every daemon of the run gets the same
  // flags, so that the sections differ only in what they measure.
  std::unique_ptr<testing::ChildProcess> StartDaemon(int cores,
                                                     std::map<std::string, std::string> env);

  // SIGTERM, and a failed run unless the daemon exits 0 (then its log is shown).
  void StopDaemon(testing::ChildProcess& daemon, const char* what);

  bool StartServers();

  // Every size: its identity model is loaded, measured at every form and concurrency against
  // the echo server through Infer and ModelInfer, then unloaded, so only one grid model holds
  // cores at a time. A size none of whose cells fit --memory-budget is never loaded.
  std::vector<ComparisonRow> RunComparison();

  std::vector<ScalingRow> RunScaling();

  // Loads `model` through `stub`, probes it, measures one round at `concurrency` in flight and
  // unloads it. One round: the sections that use it compare with a computed ideal, not with a
  // baseline to alternate with.
  // With `metrics_address` (the daemon's HTTP endpoint), the daemon's core totals are scraped
  // just before and after the round into `before` and `after`.
  Measurement MeasureModel(v1::NeuronServing::Stub& stub, const StartCall& call,
                           const IdentityModel& model, int concurrency,
                           const std::string& metrics_address = "",
                           std::optional<CoreTotals>* before = nullptr,
                           std::optional<CoreTotals>* after = nullptr);

  // A copy-bound model with and without pipelining. Copies cost time only when the simulator is
  // told a copy bandwidth, which it reads from its process's environment at nrt_init: so a second
  // daemon, started for this section and stopped after it, with the bandwidth at which one
  // request's input and output take --pipelining-copy-us together.
  void RunPipelining();

  // ModelInfer against native Infer: per size one identity model, the same tensor through both
  // protocols, rounds alternating so background load hits both alike.
  std::vector<ProtocolRow> RunProtocols();

  // Infer with the tensor in the request against the same tensor in shared memory: per size an
  // identity model and one POSIX shared-memory object of twice the size, made as a client makes
  // one, registered as two regions (the input's bytes, then room for the output). Every call of
  // the shared-memory target reads the same input range and writes the same output range (the
  // bench reads neither during the load; the probe checks the output once).
  std::vector<SharedMemoryRow> RunSharedMemory();

  // Registers `name` over the object through the native API; empty, or why not.
  std::string RegisterRegion(const std::string& name, const std::string& key, uint64_t offset,
                             uint64_t byte_size);

  void UnregisterRegions();

  static v1::SharedMemoryRef ShmRef(const std::string& region, uint64_t offset, uint64_t byte_size);

  // One call of the shared-memory request, its output compared byte for byte with the input.
  std::string ProbeShared(const v1::InferRequest& request, testing::ShmObject& object,
                          uint64_t size);

  // REST against gRPC ModelInfer at 4 KiB on the same daemon: binary extension in and out, and
  // JSON in and out, one keep-alive connection per slot; rounds alternate among the three.
  void RunHttp();

  // REST binary against the HTTP echo server: per size one identity model, the same request
  // (JSON part and tensor bytes) to both, rounds alternating so background load hits both alike.
  void RunRestEcho();

  // One REST binary call on a connection of its own, its output compared in full with `bytes`;
  // empty when right.
  static std::string ProbeHttp(const std::string& address, const HttpPost& post,
                               const std::string& bytes);

  void MeasureHttpRound(const std::string& address, const HttpPost& post, const HttpCheck& check,
                        const LoadOptions& options, Measurement& measurement);

  // Batching: the identity as one NEFF of batch 1 against the same as variants of batch 1 and
  // 8 (the dynamic batcher), one replica each, at each concurrency (rounds alternating between
  // the two); then two batched models sharing core 0, loaded at once from two threads.
  void RunBatching();

  // "" when the model loaded and answers `request` (sent with `call`) correctly; else why not.
  std::string LoadedOrProbe(const grpc::Status& loaded, const StartCall& call,
                            const v1::InferRequest& request);

  void Unload(const std::string& name) { Unload(*daemon_stub_, name); }

  void Unload(v1::NeuronServing::Stub& stub, const std::string& name);

  const BenchFlags flags_;
  std::unique_ptr<testing::ChildProcess> echo_;
  std::unique_ptr<testing::ChildProcess> hand_off_echo_;
  std::unique_ptr<testing::ChildProcess> http_echo_;  // unless --skip-rest
  std::string http_echo_address_;
  std::unique_ptr<testing::ChildProcess> daemon_;
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

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_BENCH_H_
