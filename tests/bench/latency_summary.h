// Percentiles of a run's request latencies.
#ifndef NEURON_SERVE_TESTS_BENCH_LATENCY_SUMMARY_H_
#define NEURON_SERVE_TESTS_BENCH_LATENCY_SUMMARY_H_

#include <cstdint>
#include <vector>

namespace neuronserve::bench {

struct LatencySummary {
  double p50_ms = 0;
  double p99_ms = 0;
};

// Nearest-rank percentiles of `latencies_ns` (reordered in place); zeros when it is empty.
LatencySummary Summarize(std::vector<int64_t>& latencies_ns);

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_LATENCY_SUMMARY_H_
