// Histogram: bucket validation, the lock-free Observe and the cumulative snapshot.
#include "core/metrics/histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

#include "core/metrics/text_exposition.h"

namespace neuronserve::metrics {
namespace {

std::string DescribeBounds(const std::vector<double>& bounds) {
  std::string text = "[";
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (i > 0) text += ", ";
    AppendValue(bounds[i], &text);
  }
  return text + "]";
}

}  // namespace

// Bad bounds are a bug in the caller: abort at construction, saying which bounds.
std::vector<double> CheckedBucketBounds(std::vector<double> bounds) {
  if (!bounds.empty() && bounds.back() == std::numeric_limits<double>::infinity()) {
    bounds.pop_back();
  }
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (std::isnan(bounds[i]) || (i > 0 && !(bounds[i - 1] < bounds[i]))) {
      std::fprintf(stderr,
                   "neuronserve::metrics::Histogram: bucket bounds %s must be strictly "
                   "ascending and not NaN (+Inf only last)\n",
                   DescribeBounds(bounds).c_str());
      std::abort();
    }
  }
  return bounds;
}

Histogram::Histogram(std::vector<double> upper_bounds)
    : Histogram(std::make_shared<const std::vector<double>>(
          CheckedBucketBounds(std::move(upper_bounds)))) {}

Histogram::Histogram(std::shared_ptr<const std::vector<double>> checked_upper_bounds)
    : upper_bounds_(std::move(checked_upper_bounds)),
      bucket_counts_(upper_bounds_->size() + 1) {}

void Histogram::Observe(double value) {
  const std::vector<double>& bounds = *upper_bounds_;
  size_t bucket = bounds.size();  // +Inf, and NaN
  if (!std::isnan(value)) {
    bucket = std::lower_bound(bounds.begin(), bounds.end(), value) - bounds.begin();
  }
  bucket_counts_[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::Read() const {
  Snapshot snapshot;
  snapshot.upper_bounds = *upper_bounds_;
  snapshot.cumulative_counts.reserve(bucket_counts_.size());
  uint64_t running = 0;
  for (const std::atomic<uint64_t>& bucket : bucket_counts_) {
    running += bucket.load(std::memory_order_relaxed);
    snapshot.cumulative_counts.push_back(running);
  }
  snapshot.count = running;
  snapshot.sum = sum_.load(std::memory_order_relaxed);
  return snapshot;
}

std::vector<double> LatencyBucketsSeconds() {
  return {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
          0.05,    0.1,    0.25,    0.5,    1,     2.5,    10,    60};
}

}  // namespace neuronserve::metrics
