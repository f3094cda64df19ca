// The command line of neuron_serve_bench. Its own small parser rather than absl::flags, because
// the flags are spelled with dashes (--skip-scaling), which Abseil's flag names cannot be.
#ifndef NEURON_SERVE_TESTS_BENCH_BENCH_FLAGS_H_
#define NEURON_SERVE_TESTS_BENCH_BENCH_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace neuronserve::bench {

struct BenchFlags {
  // Measurement per cell, after a warm-up. A cell also runs until every in-flight slot has
  // completed a couple of requests, so large payloads at high concurrency are not judged on a
  // handful of completions.
  double seconds = 2.0;
  double warmup_seconds = 0.5;
  // The measurement of a cell is split into this many rounds, echo and Infer alternating, so
  // that a change in the machine's background load hits both targets alike.
  int rounds = 3;

  // The comparison grid: tensor bytes x requests in flight, echo against Infer and ModelInfer.
  // "--grid=full" swaps in kFullGridSizes x kFullGridConcurrency unless --sizes or
  // --concurrency are given too (what is given explicitly wins).
  std::vector<uint64_t> sizes = {4096, uint64_t{1} << 20, uint64_t{16} << 20};
  std::vector<int> concurrency = {1, 8, 64};
  std::string grid = "default";
  // What the requests in flight of one cell may hold, all processes together (8 x size per
  // request: see kTensorCopiesPerRequestInFlight in bench_support.h). A cell above it is skipped
  // with a line saying so: 16 GiB leaves a 24 GiB machine room for the processes themselves.
  uint64_t memory_budget = uint64_t{16} << 30;
  // Tensor forms to send: "raw" (raw_data bytes) and/or "float" (packed float_data).
  std::vector<std::string> forms = {"raw"};
  // Replicas of each 0-latency identity model of the grid.
  int infer_replicas = 1;

  // The scaling run: one identity model of scaling_latency_us device time with each replica
  // count, concurrency_per_replica requests in flight per replica.
  bool skip_scaling = false;
  std::vector<int> scaling_replicas = {1, 2, 4, 8};
  uint64_t scaling_latency_us = 2000;
  int scaling_concurrency_per_replica = 2;
  uint64_t scaling_size = 4096;

  // The pipelining run, on a second daemon whose simulator charges copies: an identity model of
  // pipelining_size bytes in and out, pipelining_latency_us of execution and pipelining_copy_us
  // of copies (input and output together) per request, with each replica count at pipeline
  // depth 1 and 2, pipelining_concurrency_per_replica requests in flight per replica.
  bool skip_pipelining = false;
  std::vector<int> pipelining_replicas = {1, 2, 4, 8};
  uint64_t pipelining_latency_us = 2000;
  uint64_t pipelining_copy_us = 1000;
  int pipelining_concurrency_per_replica = 2;
  uint64_t pipelining_size = 4096;

  // The protocol comparison: ModelInfer (the Open Inference Protocol) against native Infer on
  // the same daemon and model, raw form, these tensor bytes x requests in flight.
  bool skip_v2 = false;
  std::vector<uint64_t> v2_sizes = {4096, uint64_t{1} << 20};
  std::vector<int> v2_concurrency = {1, 64};

  // REST binary against its own baseline: the daemon's POST /v2/models/{name}/infer with the
  // binary data extension against the bench's HTTP/1.1 echo server, the same request bytes to
  // both, these sizes x requests in flight.
  bool skip_rest = false;
  std::vector<uint64_t> rest_sizes = {4096, uint64_t{1} << 20, uint64_t{16} << 20};
  std::vector<int> rest_concurrency = {1, 8, 64};

  // The shared-memory run: the daemon's Infer with the tensor in the request (raw_data) against
  // the same tensor in a registered shared-memory region (input from one region, output into
  // another), these sizes x requests in flight, rounds alternating.
  bool skip_shared_memory = false;
  std::vector<uint64_t> shm_sizes = {4096, uint64_t{64} << 20};
  std::vector<int> shm_concurrency = {1, 8};

  // The batching run: the identity of batching_size bytes a row as one NEFF of batch 1
  // (batch1_latency_us) against a batched model of the same (batch 1 at batch1_latency_us,
  // batch 8 at batch8_latency_us), one replica each, at these requests in flight; then two
  // batched models sharing one core, batching_share_concurrency in flight each.
  bool skip_batching = false;
  std::vector<int> batching_concurrency = {1, 64};
  uint64_t batching_size = 4096;
  uint64_t batch1_latency_us = 1000;
  uint64_t batch8_latency_us = 2000;
  int batching_share_concurrency = 32;

  std::string daemon;       // neuron-serve binary
  std::string nrt_library;  // libnrtsim.so
  int sim_cores = 8;        // NRTSIM_CORES of the main daemon; raised to what the run needs
  std::vector<std::string> daemon_args;  // extra flags for the daemon (--daemon-arg, repeated)

  // "tuned": the same glibc malloc settings for the client and both servers (malloc_tuning.h);
  // "default": glibc's own.
  std::string malloc_mode = "tuned";

  // The RSS run, a mode of its own (--rss-run: nothing else runs): the daemon alone with a
  // 0-latency identity model of rss_size, rss_warmup_requests of warm-up, then rss_requests
  // more at rss_concurrency in flight; the daemon's RSS is sampled every rss_sample_every
  // requests (and at least every few seconds).
  bool rss_run = false;
  uint64_t rss_requests = 10'000'000;
  uint64_t rss_warmup_requests = 200'000;
  int rss_concurrency = 64;
  uint64_t rss_sample_every = 100'000;
  uint64_t rss_size = 4096;

  // The version-churn run, a mode of its own (--churn-run): one identity model replaced
  // churn_reloads times, each time with a new version label and one request served by it,
  // /metrics scraped every churn_scrape_every reloads; the daemon's RSS and the size of
  // /metrics after churn_warmup_reloads and at the end.
  bool churn_run = false;
  uint64_t churn_reloads = 10'000;
  uint64_t churn_warmup_reloads = 500;
  uint64_t churn_scrape_every = 10;

  // The soak, a mode of its own (--soak-run, tests/bench/soak_run.h): soak_clients clients of
  // every kind against one daemon for soak_seconds, then the reckoning.
  bool soak_run = false;
  double soak_seconds = 600;
  int soak_clients = 32;
  int soak_seed = 1;
  bool soak_skip_rss_bound = false;
  double soak_scrape_seconds = 0;  // 0: /metrics scraped only at the start and the end
  bool soak_reuse_labels = false;
  std::vector<std::string> soak_fault_statuses = {"NRT_FAILURE", "NRT_RESOURCE"};

  // Internal: run as the gRPC echo server or the HTTP echo server (the bench starts itself this
  // way), on `listen`, accepting messages (or bodies) up to max_message_bytes, which the bench
  // sets to what the daemon accepts.
  bool serve_echo = false;
  bool echo_hand_off = false;  // with serve_echo: EchoAnswer::kHandOff (echo_server.h)
  bool serve_http_echo = false;
  std::string listen = "127.0.0.1:0";
  uint64_t max_message_bytes = uint64_t{64} << 20;

  bool help = false;
};

// Defaults for `daemon` and `nrt_library` come from the build tree. InvalidArgument names the
// flag and what is wrong with it.
absl::StatusOr<BenchFlags> ParseBenchFlags(int argc, char** argv);

// The --help text.
std::string BenchUsage();

// The grid of --grid=full: 4 KiB to 64 MiB x 1 to 256 in flight.
inline const std::vector<uint64_t> kFullGridSizes = {4096, uint64_t{64} << 10, uint64_t{1} << 20,
                                                     uint64_t{16} << 20, uint64_t{64} << 20};
inline const std::vector<int> kFullGridConcurrency = {1, 8, 64, 256};

// "4 KiB", "1 MiB", "16 GiB", "1000 B".
std::string FormatBytes(uint64_t bytes);

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_BENCH_FLAGS_H_
