// Counter: a Prometheus counter, a double that only goes up.
//
// Increment sits on the inference hot path (every request, every execution), so it is one
// lock-free atomic add; the registry reads value() when it renders a scrape.
#ifndef NEURON_SERVE_CORE_METRICS_COUNTER_H_
#define NEURON_SERVE_CORE_METRICS_COUNTER_H_

#include <atomic>

namespace neuronserve::metrics {

class Counter {
 public:
  Counter() = default;
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;

  // Adds `amount`. A negative (or NaN) amount is ignored: a counter that went down would read
  // as a process restart to Prometheus' rate().
  void Increment(double amount = 1.0) {
    if (!(amount >= 0.0)) return;
    value_.fetch_add(amount, std::memory_order_relaxed);
  }

  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

}  // namespace neuronserve::metrics

#endif  // NEURON_SERVE_CORE_METRICS_COUNTER_H_
