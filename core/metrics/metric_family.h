// Family<Metric>: all the metrics of one name, one per set of label values.
//
// The daemon looks a metric up once (WithLabels) and keeps the reference for its hot path, so
// metrics live in node-stable storage and are removed only when nobody holds them any more:
// by Clear() for gauges a scrape hook recomputes, and by Remove() for the series of a model
// version that is gone (ServingMetrics retires them). A per-family Mutex guards the lookup
// table only; the metrics themselves are lock-free.
#ifndef NEURON_SERVE_CORE_METRICS_METRIC_FAMILY_H_
#define NEURON_SERVE_CORE_METRICS_METRIC_FAMILY_H_

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "core/metrics/counter.h"
#include "core/metrics/gauge.h"
#include "core/metrics/histogram.h"
#include "core/metrics/text_exposition.h"
#include "base/mutex.h"

namespace neuronserve::metrics {

// Label values, in the order of the family's label names.
using Labels = std::vector<std::string>;

namespace internal {

// Misuse of the metrics API (a bad name, a wrong number of label values) is a bug in the
// daemon, not a runtime condition: say what was wrong and abort.
[[noreturn]] inline void DieOnMisuse(const std::string& message) {
  std::fprintf(stderr, "neuronserve::metrics: %s\n", message.c_str());
  std::fflush(stderr);
  std::abort();
}

template <typename Metric>
struct MetricType;
template <>
struct MetricType<Counter> {
  static constexpr const char* kName = "counter";
};
template <>
struct MetricType<Gauge> {
  static constexpr const char* kName = "gauge";
};
template <>
struct MetricType<Histogram> {
  static constexpr const char* kName = "histogram";
};

inline double ReadForExposition(const Counter& counter) { return counter.value(); }
inline double ReadForExposition(const Gauge& gauge) { return gauge.value(); }
inline Histogram::Snapshot ReadForExposition(const Histogram& histogram) {
  return histogram.Read();
}

// What the registry renders, whatever the metric type.
class FamilyBase {
 public:
  virtual ~FamilyBase() = default;
  // Appends "# HELP", "# TYPE" and the samples sorted by label values.
  virtual void AppendText(std::string* out) const = 0;
};

}  // namespace internal

template <typename Metric>
class Family final : public internal::FamilyBase {
 public:
  // Makes the metric of a new label set (histograms need their bounds).
  using Factory = std::function<std::unique_ptr<Metric>()>;

  // Families are made by MetricsRegistry, which checks the names first.
  Family(std::string name, std::string help, std::vector<std::string> label_names,
         Factory factory)
      : name_(std::move(name)),
        help_(std::move(help)),
        label_names_(std::move(label_names)),
        factory_(std::move(factory)) {}
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;

  // The metric for these label values, created on first use. The reference stays valid for
  // the life of the registry unless Clear() is called. The wrong number of values aborts.
  Metric& WithLabels(const Labels& values) {
    if (values.size() != label_names_.size()) DieOnWrongLabelCount(values);
    MutexLock lock(&mutex_);
    auto it = metrics_.find(values);
    if (it == metrics_.end()) it = metrics_.emplace(values, factory_()).first;
    return *it->second;
  }

  // Forgets every label set; only for gauges a scrape hook recomputes. Invalidates every
  // reference WithLabels returned before.
  void Clear() {
    MutexLock lock(&mutex_);
    metrics_.clear();
  }

  // Forgets one label set (nothing if it has none). Invalidates the reference WithLabels
  // returned for it: the caller makes sure nobody holds it.
  void Remove(const Labels& values) {
    MutexLock lock(&mutex_);
    metrics_.erase(values);
  }

  // How many label sets the family holds now.
  size_t size() const {
    MutexLock lock(&mutex_);
    return metrics_.size();
  }

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& label_names() const { return label_names_; }

  void AppendText(std::string* out) const override {
    using Value = decltype(internal::ReadForExposition(std::declval<const Metric&>()));
    std::vector<std::pair<Labels, Value>> samples;
    {
      // Copy out under the lock; format without it so that WithLabels does not wait on text.
      MutexLock lock(&mutex_);
      samples.reserve(metrics_.size());
      for (const auto& [labels, metric] : metrics_) {
        samples.emplace_back(labels, internal::ReadForExposition(*metric));
      }
    }
    out->append("# HELP ").append(name_).push_back(' ');
    AppendEscapedHelp(help_, out);
    out->append("\n# TYPE ").append(name_).push_back(' ');
    out->append(internal::MetricType<Metric>::kName).push_back('\n');
    for (const auto& [labels, value] : samples) {  // std::map: sorted by label values
      AppendSamples(name_, label_names_, labels, value, out);
    }
  }

 private:
  [[noreturn]] void DieOnWrongLabelCount(const Labels& values) const {
    std::string message = "metric \"" + name_ + "\" has " +
                          std::to_string(label_names_.size()) + " label name(s) (";
    for (size_t i = 0; i < label_names_.size(); ++i) {
      message += (i > 0 ? ", " : "") + label_names_[i];
    }
    message += ") but WithLabels got " + std::to_string(values.size()) + " value(s)";
    internal::DieOnMisuse(message);
  }

  const std::string name_;
  const std::string help_;
  const std::vector<std::string> label_names_;
  const Factory factory_;

  mutable Mutex mutex_;
  // std::map never moves its nodes, so the references WithLabels hands out stay valid.
  std::map<Labels, std::unique_ptr<Metric>> metrics_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve::metrics

#endif  // NEURON_SERVE_CORE_METRICS_METRIC_FAMILY_H_
