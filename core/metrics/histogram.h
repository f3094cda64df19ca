// Histogram: a Prometheus histogram (bucket counts, sum and count of observations).
//
// Observe is called once per request per latency, so it is lock-free: one atomic add on the
// bucket the value falls in and one on the sum. Buckets are stored per bucket (not
// cumulative) and summed up by Read(), which makes every snapshot cumulative and
// non-decreasing by construction even while other threads observe.
#ifndef NEURON_SERVE_CORE_METRICS_HISTOGRAM_H_
#define NEURON_SERVE_CORE_METRICS_HISTOGRAM_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace neuronserve::metrics {

class Histogram {
 public:
  // `upper_bounds` must be strictly ascending and free of NaN; a trailing +Inf is accepted and
  // dropped, since the +Inf bucket is always there. Anything else is a programming error and
  // aborts with a message.
  explicit Histogram(std::vector<double> upper_bounds);
  // Shares bounds already checked by CheckedBucketBounds: a family's histograms share one copy
  // (MetricsRegistry::AddHistogram), since a model version holds several.
  explicit Histogram(std::shared_ptr<const std::vector<double>> checked_upper_bounds);
  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;

  // Counts `value` in the first bucket whose bound is >= value (Prometheus' "le"); NaN goes
  // only into the +Inf bucket (and makes the sum NaN).
  void Observe(double value);

  struct Snapshot {
    std::vector<double> upper_bounds;        // without the implicit +Inf
    std::vector<uint64_t> cumulative_counts;  // one per bound, then +Inf
    uint64_t count = 0;                       // == cumulative_counts.back()
    double sum = 0.0;
  };
  // Cumulative counts never decrease from one bucket to the next, nor from one Read to a later
  // one. Under concurrent Observe the sum may include an observation the buckets do not yet
  // show (or the reverse); count always matches the +Inf bucket.
  Snapshot Read() const;

 private:
  const std::shared_ptr<const std::vector<double>> upper_bounds_;
  std::vector<std::atomic<uint64_t>> bucket_counts_;  // upper_bounds_.size() + 1 (+Inf last)
  std::atomic<double> sum_{0.0};
};

// `bounds` as Histogram keeps them (a trailing +Inf dropped); bad bounds abort with a message.
std::vector<double> CheckedBucketBounds(std::vector<double> bounds);

// Bucket bounds for latencies in seconds: 50us to 1s in 1-2.5-5 steps (x2 to x2.5, so the
// usual SLO thresholds 1ms, 10ms, 100ms, 1s are bounds), then 2.5s, 10s, 60s; 17 bounds.
std::vector<double> LatencyBucketsSeconds();

}  // namespace neuronserve::metrics

#endif  // NEURON_SERVE_CORE_METRICS_HISTOGRAM_H_
