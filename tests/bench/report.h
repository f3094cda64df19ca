// The tables neuron_serve_bench prints, one row at a time as cells finish (a full run takes a
// minute or more), and the targets of the issue, reported but never asserted.
#ifndef NEURON_SERVE_TESTS_BENCH_REPORT_H_
#define NEURON_SERVE_TESTS_BENCH_REPORT_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tests/bench/load_generator.h"
#include "tests/bench/payload.h"

namespace neuronserve::bench {

// One target in one cell: the load's result (its rounds added up), or why it was not loaded.
struct Measurement {
  std::optional<LoadResult> result;
  std::string error;  // the probe call failed or answered wrongly, or the model did not load

  bool ok() const { return result.has_value() && result->failed == 0 && error.empty(); }
};

// A cell of the comparison grid: the same tensor to the echo server, the hand-off echo server
// (echo_server.h: EchoAnswer::kHandOff), the daemon's Infer and its ModelInfer (v2).
struct ComparisonRow {
  uint64_t tensor_bytes = 0;
  TensorForm form = TensorForm::kRaw;
  int concurrency = 1;
  Measurement echo;
  Measurement hand_off_echo;
  Measurement infer;
  Measurement v2;
  // infer (or v2) req/s over echo req/s, when both were measured.
  std::optional<double> Ratio() const;
  std::optional<double> V2Ratio() const;
  // What one thread hop costs the echo (hand-off req/s over echo req/s), and infer against the
  // hand-off echo (infer req/s over hand-off req/s).
  std::optional<double> HandOffRatio() const;
  std::optional<double> InferOverHandOff() const;
  // p50 latency above the echo's, in microseconds: infer's and the hand-off echo's.
  std::optional<double> InferP50AboveEchoUs() const;
  std::optional<double> HandOffP50AboveEchoUs() const;
};

struct ScalingRow {
  int replicas = 1;
  int concurrency = 1;
  double ideal_per_second = 0;  // replicas / device latency
  Measurement infer;
  std::optional<double> Ratio() const;
};

// The pipelining run: a copy-bound identity model at one replica count and pipeline depth, on
// the daemon whose simulator charges copies. Each request is one execution of latency_us and
// copy_us of copies (its input written, its output read) on the replica's copy engine.
struct PipeliningRow {
  int replicas = 1;
  uint32_t depth = 1;
  int concurrency = 1;
  uint64_t latency_us = 0;
  uint64_t copy_us = 0;
  Measurement infer;
  // What the daemon measured around nrt_execute while the cell ran (neuronserve_core_busy_
  // seconds_total and neuronserve_core_executions_total of every core, scraped before and after
  // it, warm-up included): the mean time one execution held its core, and the cores' busy share
  // (busy seconds / (replicas x wall seconds between the scrapes)). The simulator sleeps for an
  // execution's latency and a sleep overshoots on a loaded machine, so an execution holds the
  // core a little longer than latency_us; unset when the scrape failed.
  std::optional<double> execution_us;
  std::optional<double> busy_share;
  std::optional<double> PerReplica() const;  // req/s per replica
  // Per replica against 1/max(execution, copies), what overlapping copies with executions can
  // reach, and against 1/(execution + copies), what a replica doing them in turn reaches; the
  // execution as measured (execution_us) when known, else latency_us.
  std::optional<double> OfOverlapped() const;
  std::optional<double> OfSerial() const;
  // The device utilization: busy_share.
  std::optional<double> Utilization() const { return busy_share; }
  double ExecutionUs() const {
    return execution_us.has_value() ? *execution_us : static_cast<double>(latency_us);
  }
};

// The protocol run: the same request to ModelInfer (v2) and to Infer (native), same daemon.
struct ProtocolRow {
  uint64_t tensor_bytes = 0;
  int concurrency = 1;
  Measurement native;
  Measurement v2;
  // v2 req/s over native req/s, when both were measured.
  std::optional<double> Ratio() const;
};

// REST (the HTTP server's /v2/models/{name}/infer) against gRPC ModelInfer on the same daemon.
struct HttpRow {
  uint64_t tensor_bytes = 0;
  int concurrency = 1;
  Measurement grpc;
  Measurement rest_binary;  // Triton's binary extension, in and out
  Measurement rest_json;    // JSON data in and out
  // REST req/s over gRPC req/s, when both were measured.
  std::optional<double> BinaryRatio() const;
  std::optional<double> JsonRatio() const;
};

// The REST run: the daemon's REST binary request against the HTTP echo server, same bytes.
struct RestEchoRow {
  uint64_t tensor_bytes = 0;
  int concurrency = 1;
  Measurement http_echo;
  Measurement rest;
  // REST req/s over HTTP echo req/s, when both were measured.
  std::optional<double> Ratio() const;
};

// The shared-memory run: Infer with the tensor in the request (raw_data, the answer's too)
// against the same tensor in shared memory (input and output in registered regions).
struct SharedMemoryRow {
  uint64_t tensor_bytes = 0;
  int concurrency = 1;
  Measurement raw;
  Measurement shared;
  // shared req/s over raw req/s, when both were measured.
  std::optional<double> Ratio() const;
};

// The RSS run's figures: requests counted after the warm-up, and the daemon's resident memory
// (VmRSS) in bytes: after the warm-up, at the end, the highest sample, and the kernel's own peak
// (VmHWM, which also sees what happened between samples).
struct RssSummary {
  uint64_t warmup_requests = 0;
  uint64_t requests = 0;
  uint64_t failed = 0;
  double seconds = 0;  // of the requests after the warm-up
  uint64_t after_warmup_bytes = 0;
  uint64_t final_bytes = 0;
  uint64_t max_sampled_bytes = 0;
  uint64_t peak_bytes = 0;
};

// The batching run: the same identity as a model of one NEFF of batch 1 and as a batched model
// (variants of batch 1 and 8, the dynamic batcher), at the same requests in flight.
struct BatchingRow {
  int concurrency = 1;
  Measurement batch1;
  Measurement batched;
  // batched req/s over batch-1 req/s; batched p50 over batch-1 p50.
  std::optional<double> ThroughputRatio() const;
  std::optional<double> P50Ratio() const;
};

// Two identical batched models sharing one core, the same load on each: identical models have
// the same device time per request, so each one's share of the requests is its share of the
// core's device time.
struct SharingRow {
  int concurrency = 1;  // in flight per model
  Measurement first;
  Measurement second;
  std::optional<double> FirstShare() const;
  std::optional<double> SecondShare() const;
};

void PrintBatchingHeader(uint64_t row_bytes, uint64_t batch1_latency_us,
                         uint64_t batch8_latency_us);
void PrintBatchingRow(const BatchingRow& row);
void PrintSharingRow(const SharingRow& row);
// The targets: at the highest concurrency batched/batch-1 throughput >= 3.5, at
// concurrency 1 the p50s within 10 %, and each model sharing a core >= 40 % of it.
void PrintBatchingTargets(const std::vector<BatchingRow>& rows, const SharingRow& sharing);

void PrintRestEchoHeader(int infer_replicas);
void PrintRestEchoRow(const RestEchoRow& row);
void PrintRestEchoSkipped(uint64_t tensor_bytes, int concurrency, const std::string& why);

void PrintSharedMemoryHeader(int infer_replicas);
void PrintSharedMemoryRow(const SharedMemoryRow& row);
// The shared-memory issue's targets: at 64 MiB shm/raw at least 3, at 4 KiB no worse (at least
// 0.95: this machine's run-to-run noise of one target against itself).
void PrintSharedMemoryTargets(const std::vector<SharedMemoryRow>& rows);

// The RSS run: what runs (header), a progress line (requests so far of `total` in `phase`,
// req/s of the last stretch, RSS now), and the summary with the target: growth after the
// warm-up within 16 MiB.
void PrintRssHeader(pid_t daemon_pid, const std::string& malloc_mode, uint64_t tensor_bytes,
                    int concurrency, uint64_t warmup_requests, uint64_t requests,
                    uint64_t sample_every);
void PrintRssProgress(const char* phase, uint64_t done, uint64_t total, double per_second,
                      uint64_t rss_bytes);
void PrintRssSummary(const RssSummary& summary);

void PrintHttpHeader(int infer_replicas);
void PrintHttpRow(const HttpRow& row);

void PrintComparisonHeader(int infer_replicas);
void PrintComparisonRow(const ComparisonRow& row);
// A cell left out, and why (its requests in flight would not fit --memory-budget).
void PrintComparisonSkipped(uint64_t tensor_bytes, TensorForm form, int concurrency,
                            const std::string& why);
void PrintScalingHeader(uint64_t latency_us, uint64_t tensor_bytes);
void PrintScalingRow(const ScalingRow& row);
// `dma_bytes_per_second`: the pipelining daemon's NRTSIM_DMA_BYTES_PER_SECOND.
void PrintPipeliningHeader(uint64_t latency_us, uint64_t copy_us, uint64_t tensor_bytes,
                           uint64_t dma_bytes_per_second);
void PrintPipeliningRow(const PipeliningRow& row);
// The targets: at depth 2, req/s per replica >= 0.9 x 1/max(execution, copies) at every
// replica count, and utilization >= 0.97 at 8 replicas ("not run" without that cell); depth 1's
// ratio to 1/(execution + copies) for information.
void PrintPipeliningTargets(const std::vector<PipeliningRow>& rows);

void PrintProtocolHeader(int infer_replicas);
void PrintProtocolRow(const ProtocolRow& row);
// The issues' targets: at 16 MiB infer/echo >= 0.8, at 4 KiB and concurrency 64 >= 0.7 (raw
// form), >= 0.9 of ideal at 4 replicas, and v2/native within 10 % (0.9 to 1.1) at 4 KiB and 1 MiB,
// concurrency 1 and 64; "not run" for those whose cells were not run.
void PrintTargets(const std::vector<ComparisonRow>& comparison,
                  const std::vector<ScalingRow>& scaling, const std::vector<ProtocolRow>& protocol);

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_REPORT_H_
