// HealthMonitor: keeps the published health statuses equal to EvaluateHealth of the daemon's
// current state.
//
// A thread re-evaluates whenever something that matters changed (Poke: a model's state, a
// core's health, the drain) and at a fixed interval anyway (the watchdog needs time to pass to
// see a stuck execution). It publishes only the services whose status changed, in order, from
// that one thread, so a Watch on gRPC health sees every change exactly once. Gathering and
// publishing are callbacks: this file knows neither the registry's locks nor gRPC.
#ifndef NEURON_SERVE_CORE_HEALTH_HEALTH_MONITOR_H_
#define NEURON_SERVE_CORE_HEALTH_HEALTH_MONITOR_H_

#include <functional>
#include <map>
#include <string>
#include <thread>

#include "absl/time/time.h"
#include "core/health/health_evaluator.h"
#include "base/mutex.h"

namespace neuronserve {

class HealthMonitor {
 public:
  using Gather = std::function<HealthInputs()>;
  // (service, serving, the report it comes from): one call per change, kLivenessService and
  // "" included.
  using Publish =
      std::function<void(const std::string& service, bool serving, const HealthReport& report)>;

  // Evaluates and publishes once before returning (so the statuses exist from the start), then
  // starts the thread.
  HealthMonitor(Gather gather, Publish publish, absl::Duration interval = absl::Milliseconds(250));
  // Stops and joins the thread; publishes nothing after.
  ~HealthMonitor();
  HealthMonitor(const HealthMonitor&) = delete;
  HealthMonitor& operator=(const HealthMonitor&) = delete;

  // Something changed: re-evaluate soon. Cheap, any thread, never blocks on the evaluation.
  void Poke();
  // Re-evaluates and publishes on the calling thread, before returning (e.g. at the start of a
  // drain, so NOT_SERVING is out before the first request is refused).
  void EvaluateNow();

  // The last published report.
  HealthReport Latest() const;

 private:
  void Run();
  void Evaluate();

  const Gather gather_;
  const Publish publish_;
  const absl::Duration interval_;

  // Serializes evaluations (the thread's and EvaluateNow's), so changes publish in order.
  Mutex evaluate_mutex_;
  HealthReport published_ ABSL_GUARDED_BY(evaluate_mutex_);
  bool published_once_ ABSL_GUARDED_BY(evaluate_mutex_) = false;

  mutable Mutex latest_mutex_ ABSL_ACQUIRED_AFTER(evaluate_mutex_);
  HealthReport latest_ ABSL_GUARDED_BY(latest_mutex_);

  Mutex wake_mutex_;
  CondVar wake_;
  bool poked_ ABSL_GUARDED_BY(wake_mutex_) = false;
  bool stopping_ ABSL_GUARDED_BY(wake_mutex_) = false;

  std::thread thread_;  // last: started once everything above exists
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_HEALTH_HEALTH_MONITOR_H_
