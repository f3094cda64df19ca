// Gauge: a Prometheus gauge, a double that goes up and down (queue depth, memory in use...).
//
// Lock-free so that hot paths may Add to it; gauges computed from state are usually Set by a
// scrape hook instead (MetricsRegistry::AddScrapeHook).
#ifndef NEURON_SERVE_CORE_METRICS_GAUGE_H_
#define NEURON_SERVE_CORE_METRICS_GAUGE_H_

#include <atomic>

namespace neuronserve::metrics {

class Gauge {
 public:
  Gauge() = default;
  Gauge(const Gauge&) = delete;
  Gauge& operator=(const Gauge&) = delete;

  void Set(double value) { value_.store(value, std::memory_order_relaxed); }
  // `delta` may be negative.
  void Add(double delta) { value_.fetch_add(delta, std::memory_order_relaxed); }

  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

}  // namespace neuronserve::metrics

#endif  // NEURON_SERVE_CORE_METRICS_GAUGE_H_
