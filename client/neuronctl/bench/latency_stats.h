// Client-measured request latencies of one benchmark level and their nearest-rank percentiles.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_BENCH_LATENCY_STATS_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_BENCH_LATENCY_STATS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace neuronserve::neuronctl {

// What a level's report shows of its latencies, in nanoseconds. All zero when count is 0.
struct LatencySummary {
  uint64_t count = 0;
  int64_t mean_ns = 0;
  int64_t p50_ns = 0;
  int64_t p90_ns = 0;
  int64_t p95_ns = 0;
  int64_t p99_ns = 0;
};

// Latencies in nanoseconds. Each worker thread records into its own LatencyStats (no locking in
// the hot path) and the level merges them once the workers are done.
class LatencyStats {
 public:
  // Reserves room for `expected` samples, so recording does not reallocate while measuring.
  void Reserve(size_t expected) { samples_.reserve(expected); }
  void Add(int64_t latency_ns) {
    samples_.push_back(latency_ns);
    sorted_ = false;
  }
  // Moves `other`'s samples in.
  void Merge(LatencyStats&& other);

  size_t count() const { return samples_.size(); }

  // The nearest-rank percentile: the smallest sample such that at least `percent` % of the
  // samples are <= it (rank ceil(percent / 100 * n), counting from 1). An actually observed
  // latency, never an interpolation. 0 when there are no samples; `percent` is in (0, 100].
  // Sorts the samples on first use after a change.
  int64_t Percentile(double percent);

  LatencySummary Summarize();

 private:
  std::vector<int64_t> samples_;
  bool sorted_ = true;
};

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_BENCH_LATENCY_STATS_H_
