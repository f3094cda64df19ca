#include "client/neuronctl/bench/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace neuronserve::neuronctl {

void LatencyStats::Merge(LatencyStats&& other) {
  if (samples_.empty()) {
    samples_ = std::move(other.samples_);
  } else {
    samples_.insert(samples_.end(), other.samples_.begin(), other.samples_.end());
  }
  other.samples_.clear();
  sorted_ = samples_.size() <= 1;
}

int64_t LatencyStats::Percentile(double percent) {
  if (samples_.empty()) return 0;
  if (!sorted_) {
    std::sort(samples_.begin(), samples_.end());
    sorted_ = true;
  }
  const double n = static_cast<double>(samples_.size());
  // Subtracting a little before ceil keeps 90% of 10 samples at rank 9: 0.9 * 10 is
  // 9.000000000000002 in binary floating point.
  double rank = std::ceil(percent / 100.0 * n - 1e-9);
  rank = std::clamp(rank, 1.0, n);
  return samples_[static_cast<size_t>(rank) - 1];
}

LatencySummary LatencyStats::Summarize() {
  LatencySummary summary;
  summary.count = samples_.size();
  if (samples_.empty()) return summary;
  // An int64 of nanoseconds holds 292 years of summed latency: no overflow in practice.
  int64_t total = 0;
  for (int64_t sample : samples_) total += sample;
  summary.mean_ns = total / static_cast<int64_t>(samples_.size());
  summary.p50_ns = Percentile(50);
  summary.p90_ns = Percentile(90);
  summary.p95_ns = Percentile(95);
  summary.p99_ns = Percentile(99);
  return summary;
}

}  // namespace neuronserve::neuronctl
