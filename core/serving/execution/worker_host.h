// WorkerHost: what a CoreWorker needs of the pool that runs it: the process-wide settings and
// services its threads share with the other cores' (metrics, the hand-off threshold, the
// Responder) and where it reports a hardware fault. WorkerPool implements it; the interface
// keeps the worker from including the pool that owns it.
//
// Thread safety: every member is called from the worker's threads concurrently; the
// implementation outlives its workers.
#ifndef NEURON_SERVE_CORE_SERVING_EXECUTION_WORKER_HOST_H_
#define NEURON_SERVE_CORE_SERVING_EXECUTION_WORKER_HOST_H_

#include <cstdint>
#include <string>

#include "core/metrics/serving_metrics.h"
#include "core/serving/execution/core_range.h"
#include "core/serving/execution/responder.h"

namespace neuronserve {

class WorkerHost {
 public:
  // Null when the daemon keeps no metrics.
  virtual ServingMetrics* metrics() const = 0;
  // Work leaves a core's execution thread only when it takes at least this long (see
  // WorkerPool::hand_off_threshold_ns).
  virtual int64_t hand_off_threshold_ns() const = 0;
  // Completes jobs for busy cores.
  virtual Responder& responder() = 0;
  // Takes `cores` out of rotation after a hardware error (`why` names it), and every replica on
  // them with it. Takes each worker's bindings lock in turn: the caller holds none of its own.
  virtual void MarkCoresUnhealthy(const CoreRange& cores, const std::string& why) = 0;

 protected:
  ~WorkerHost() = default;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_EXECUTION_WORKER_HOST_H_
