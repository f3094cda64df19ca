// MetricsRegistry: name checks at registration, and the scrape (hooks, then every family).
#include "core/metrics/metrics_registry.h"

#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>

#include "core/metrics/text_exposition.h"

namespace neuronserve::metrics {
namespace {

void CheckLabelNames(const std::string& name, const std::vector<std::string>& label_names,
                     bool is_histogram) {
  std::set<std::string_view> seen;
  for (const std::string& label : label_names) {
    if (!IsValidLabelName(label)) {
      internal::DieOnMisuse("metric \"" + name + "\": label name \"" + label +
                            "\" does not match [a-zA-Z_][a-zA-Z0-9_]*");
    }
    if (label.starts_with("__")) {
      internal::DieOnMisuse("metric \"" + name + "\": label name \"" + label +
                            "\" starts with \"__\", which Prometheus reserves");
    }
    if (is_histogram && label == "le") {
      internal::DieOnMisuse("histogram \"" + name +
                            "\": label name \"le\" is the bucket label of a histogram");
    }
    if (!seen.insert(label).second) {
      internal::DieOnMisuse("metric \"" + name + "\": label name \"" + label + "\" repeats");
    }
  }
}

}  // namespace

template <typename Metric>
Family<Metric>& MetricsRegistry::Add(std::string name, std::string help,
                                     std::vector<std::string> label_names,
                                     typename Family<Metric>::Factory factory,
                                     const std::vector<std::string>& sample_names) {
  if (!IsValidMetricName(name)) {
    internal::DieOnMisuse("metric name \"" + name + "\" does not match [a-zA-Z_:][a-zA-Z0-9_:]*");
  }
  CheckLabelNames(name, label_names, std::is_same_v<Metric, Histogram>);
  auto family = std::make_unique<Family<Metric>>(std::move(name), std::move(help),
                                                 std::move(label_names), std::move(factory));
  Family<Metric>& result = *family;
  MutexLock lock(&mutex_);
  for (const std::string& sample_name : sample_names) {
    if (sample_names_.count(sample_name) > 0) {
      internal::DieOnMisuse("metric \"" + result.name() + "\": sample name \"" + sample_name +
                            "\" is already registered");
    }
  }
  sample_names_.insert(sample_names.begin(), sample_names.end());
  families_.push_back(std::move(family));
  return result;
}

Family<Counter>& MetricsRegistry::AddCounter(std::string name, std::string help,
                                             std::vector<std::string> label_names) {
  if (!name.ends_with("_total")) {
    internal::DieOnMisuse("counter name \"" + name + "\" does not end in \"_total\"");
  }
  const std::vector<std::string> sample_names = {name};
  return Add<Counter>(std::move(name), std::move(help), std::move(label_names),
                      [] { return std::make_unique<Counter>(); }, sample_names);
}

Family<Gauge>& MetricsRegistry::AddGauge(std::string name, std::string help,
                                         std::vector<std::string> label_names) {
  const std::vector<std::string> sample_names = {name};
  return Add<Gauge>(std::move(name), std::move(help), std::move(label_names),
                    [] { return std::make_unique<Gauge>(); }, sample_names);
}

Family<Histogram>& MetricsRegistry::AddHistogram(std::string name, std::string help,
                                                 std::vector<std::string> label_names,
                                                 std::vector<double> upper_bounds) {
  // Checks the bounds now (aborting on bad ones) rather than at the first WithLabels; the
  // family's histograms share them.
  auto bounds =
      std::make_shared<const std::vector<double>>(CheckedBucketBounds(std::move(upper_bounds)));
  const std::vector<std::string> sample_names = {name, name + "_bucket", name + "_sum",
                                                 name + "_count"};
  return Add<Histogram>(
      std::move(name), std::move(help), std::move(label_names),
      [bounds = std::move(bounds)] { return std::make_unique<Histogram>(bounds); },
      sample_names);
}

void MetricsRegistry::AddScrapeHook(std::function<void()> hook) {
  MutexLock lock(&scrape_mutex_);
  hooks_.push_back(std::move(hook));
}

std::string MetricsRegistry::RenderText() {
  MutexLock scrape(&scrape_mutex_);
  for (const std::function<void()>& hook : hooks_) hook();
  std::vector<const internal::FamilyBase*> families;
  {
    MutexLock lock(&mutex_);
    families.reserve(families_.size());
    for (const auto& family : families_) families.push_back(family.get());
  }
  // Families are never removed, so the pointers outlive the lock.
  std::string text;
  for (const internal::FamilyBase* family : families) family->AppendText(&text);
  return text;
}

}  // namespace neuronserve::metrics
