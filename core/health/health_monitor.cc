#include "core/health/health_monitor.h"

#include <utility>

namespace neuronserve {

HealthMonitor::HealthMonitor(Gather gather, Publish publish, absl::Duration interval)
    : gather_(std::move(gather)), publish_(std::move(publish)), interval_(interval) {
  Evaluate();
  thread_ = std::thread([this] { Run(); });
}

HealthMonitor::~HealthMonitor() {
  {
    MutexLock lock(&wake_mutex_);
    stopping_ = true;
    wake_.NotifyAll();
  }
  thread_.join();
}

void HealthMonitor::Poke() {
  MutexLock lock(&wake_mutex_);
  poked_ = true;
  wake_.NotifyAll();
}

void HealthMonitor::EvaluateNow() { Evaluate(); }

HealthReport HealthMonitor::Latest() const {
  MutexLock lock(&latest_mutex_);
  return latest_;
}

void HealthMonitor::Run() {
  for (;;) {
    {
      MutexLock lock(&wake_mutex_);
      wake_.WaitWithTimeout(&wake_mutex_, interval_, [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(wake_mutex_) {
        return poked_ || stopping_;
      });
      if (stopping_) return;
      poked_ = false;
    }
    Evaluate();
  }
}

void HealthMonitor::Evaluate() {
  MutexLock lock(&evaluate_mutex_);
  HealthReport report = EvaluateHealth(gather_());
  {
    // Before publishing: whoever hears of a change (a Watch) and then asks Latest() (/readyz)
    // must not see the state from before it.
    MutexLock latest_lock(&latest_mutex_);
    latest_ = report;
  }
  const bool first = !published_once_;
  if (first || report.live != published_.live) publish_(kLivenessService, report.live, report);
  if (first || report.serving != published_.serving) publish_("", report.serving, report);
  for (const auto& [name, serving] : report.models) {
    auto before = published_.models.find(name);
    if (first || before == published_.models.end() || before->second != serving) {
      publish_(name, serving, report);
    }
  }
  // A model the registry forgot (unloaded) is no longer served under its name.
  for (const auto& [name, serving] : published_.models) {
    if (serving && report.models.find(name) == report.models.end()) publish_(name, false, report);
  }
  published_ = std::move(report);
  published_once_ = true;
}

}  // namespace neuronserve
