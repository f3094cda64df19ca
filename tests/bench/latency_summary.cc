#include "tests/bench/latency_summary.h"

#include <algorithm>
#include <cmath>

namespace neuronserve::bench {
namespace {

// The smallest sample with at least `fraction` of all samples at or below it.
double PercentileMs(std::vector<int64_t>& samples, double fraction) {
  const size_t rank =
      static_cast<size_t>(std::ceil(fraction * static_cast<double>(samples.size())));
  const size_t index = rank == 0 ? 0 : rank - 1;
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(index),
                   samples.end());
  return static_cast<double>(samples[index]) / 1e6;
}

}  // namespace

LatencySummary Summarize(std::vector<int64_t>& latencies_ns) {
  LatencySummary summary;
  if (latencies_ns.empty()) return summary;
  summary.p50_ms = PercentileMs(latencies_ns, 0.50);
  summary.p99_ms = PercentileMs(latencies_ns, 0.99);
  return summary;
}

}  // namespace neuronserve::bench
