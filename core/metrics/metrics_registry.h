// MetricsRegistry: the daemon's metric families and the Prometheus text it serves on /metrics.
//
// Families are registered once at startup and live as long as the registry; workers update
// their metrics lock-free while an HTTP thread calls RenderText. Scrape hooks refresh the
// gauges that are computed from state (queue depths, memory in use) right before a render.
#ifndef NEURON_SERVE_CORE_METRICS_METRICS_REGISTRY_H_
#define NEURON_SERVE_CORE_METRICS_METRICS_REGISTRY_H_

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "core/metrics/counter.h"
#include "core/metrics/gauge.h"
#include "core/metrics/histogram.h"
#include "core/metrics/metric_family.h"
#include "base/mutex.h"

namespace neuronserve::metrics {

class MetricsRegistry {
 public:
  static constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";

  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // Names must match [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]* without the
  // reserved "__" prefix and without repeats; a counter's name ends in "_total"; a histogram
  // has no "le" label. A bad name, or one whose samples would clash with another family's
  // (a histogram "x" claims x_bucket, x_sum and x_count), aborts with a message.
  Family<Counter>& AddCounter(std::string name, std::string help,
                              std::vector<std::string> label_names);
  Family<Gauge>& AddGauge(std::string name, std::string help,
                          std::vector<std::string> label_names);
  // `upper_bounds` as for Histogram (checked here, at registration).
  Family<Histogram>& AddHistogram(std::string name, std::string help,
                                  std::vector<std::string> label_names,
                                  std::vector<double> upper_bounds);

  // Runs at the start of every RenderText, in registration order, one scrape at a time (so a
  // hook may Clear() a family and refill it). A hook must not call AddScrapeHook or
  // RenderText.
  void AddScrapeHook(std::function<void()> hook);

  // Prometheus text exposition format 0.0.4: families in registration order, each with
  // "# HELP" and "# TYPE" (even with no samples), then its samples sorted by label values.
  std::string RenderText();

 private:
  // Checks the names, claims the sample names and stores the family.
  template <typename Metric>
  Family<Metric>& Add(std::string name, std::string help, std::vector<std::string> label_names,
                      typename Family<Metric>::Factory factory,
                      const std::vector<std::string>& sample_names);

  // Held across a whole RenderText: scrapes (and their hooks) run one at a time.
  Mutex scrape_mutex_ ABSL_ACQUIRED_BEFORE(mutex_);
  std::vector<std::function<void()>> hooks_ ABSL_GUARDED_BY(scrape_mutex_);

  Mutex mutex_;
  std::vector<std::unique_ptr<internal::FamilyBase>> families_ ABSL_GUARDED_BY(mutex_);
  // Every sample name a family renders, so that no two families render the same one.
  std::set<std::string> sample_names_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve::metrics

#endif  // NEURON_SERVE_CORE_METRICS_METRICS_REGISTRY_H_
