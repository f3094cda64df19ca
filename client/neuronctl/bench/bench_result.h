// What one level of `neuronctl bench` measured: the numbers every report format shows.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_RESULT_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_RESULT_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/time/time.h"
#include "client/neuronctl/bench/latency_stats.h"

namespace neuronserve::neuronctl {

struct LevelResult {
  uint32_t concurrency = 0;
  // Requests that succeeded within the measurement (warmup excluded). Latencies, server times
  // and throughput are of these only: a rejected request returns at once and would make a
  // struggling server look fast.
  uint64_t requests = 0;
  // The measurement window: --duration, or with --requests from its start to the last answer.
  absl::Duration measured = absl::ZeroDuration();
  LatencySummary latency;  // client-measured, send to answer
  // Means of what the server reported in each successful response.
  int64_t mean_queue_ns = 0;
  int64_t mean_device_ns = 0;
  // The mean, over those responses, of the rows in the execution each request ran in (its own
  // and its batch-mates', padding not counted): how full the batcher made the batches. 0 when
  // no response said (a model without batching, or the v2 protocol, which does not report it).
  double mean_batch_rows = 0;
  // Failed requests within the measurement, by gRPC code name ("RESOURCE_EXHAUSTED").
  std::map<std::string, uint64_t> errors;
  // The message of the first failure, for the exit message when nothing succeeded.
  std::string first_error;

  uint64_t error_count() const {
    uint64_t total = 0;
    for (const auto& [code, count] : errors) total += count;
    return total;
  }
  // Successful requests per second of the measurement window; 0 for an empty window.
  double throughput() const {
    const double seconds = absl::ToDoubleSeconds(measured);
    return seconds > 0 ? static_cast<double>(requests) / seconds : 0.0;
  }
};

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_RESULT_H_
