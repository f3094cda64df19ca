// WorkerPool: one CoreWorker per NeuronCore in use, and which cores are healthy.
//
// Workers start when the first replica on their core is attached and live until the pool is
// destroyed (after every model is unloaded). A hardware error on a replica marks its cores
// unhealthy for the life of the process: every replica on them, of any model, leaves rotation,
// and a model whose last healthy replica is gone answers UNAVAILABLE.
#ifndef NEURON_SERVE_CORE_SERVING_WORKER_POOL_H_
#define NEURON_SERVE_CORE_SERVING_WORKER_POOL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "base/mutex.h"
#include "core/metrics/serving_metrics.h"
#include "core/serving/core_range.h"
#include "core/serving/core_worker.h"
#include "core/serving/responder.h"
#include "core/serving/running_execution.h"
#include "util/callback_relay.h"

namespace neuronserve {

class WorkerPool {
 public:
  // `on_unhealthy` (nullable, must outlive the pool) is told after cores leave rotation;
  // `metrics` (nullable, must outlive the pool) counts executions per core.
  // `responder_threads`: the threads that complete jobs for busy cores (Responder); 0 picks
  // one per 4 cores, at least 1.
  explicit WorkerPool(uint32_t core_count, CallbackRelay* on_unhealthy = nullptr,
                      ServingMetrics* metrics = nullptr, size_t responder_threads = 0);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // The worker of `core` (< core_count), started on first use.
  CoreWorker* WorkerFor(uint32_t core);
  // Binds every replica of `model` to the worker of its first core.
  void Attach(LoadedModel& model);
  // Unbinds them; no job of `model` may be executing (see CoreWorker::Detach).
  void Detach(const LoadedModel& model);

  // Takes `cores` out of rotation after a hardware error (`why` names it) and every replica on
  // them with it. Called by a worker; takes each worker's bindings lock in turn.
  void MarkCoresUnhealthy(const CoreRange& cores, const std::string& why);
  bool CoreHealthy(uint32_t core) const;
  std::vector<uint32_t> UnhealthyCores() const;
  uint32_t core_count() const { return core_count_; }
  ServingMetrics* metrics() const { return metrics_; }
  // A stage's copies (a unit's input writes, or its output reads) are handed to a core's copy
  // thread, to overlap the core's executions, only while they take at least this long on average
  // (CoreWorker); below it the hand-off (a wake-up and two context switches) costs more than the
  // copy. Zero overlaps every copy (tests of the pipeline's machinery).
  static constexpr absl::Duration kDefaultCopyOverlapThreshold = absl::Microseconds(20);
  void set_copy_overlap_threshold(absl::Duration threshold) {
    copy_overlap_threshold_ns_.store(absl::ToInt64Nanoseconds(threshold),
                                     std::memory_order_relaxed);
  }
  int64_t copy_overlap_threshold_ns() const {
    return copy_overlap_threshold_ns_.load(std::memory_order_relaxed);
  }
  // Where the workers hand the completions of a core that other work waits for.
  Responder& responder() { return responder_; }
  // The execution that has been running longest right now, if any (for the watchdog), and
  // per core whether it is executing now.
  std::optional<RunningExecution> LongestExecution() const;
  std::vector<bool> ExecutingByCore() const;

 private:
  const uint32_t core_count_;
  CallbackRelay* const on_unhealthy_;
  ServingMetrics* const metrics_;
  std::unique_ptr<std::atomic<bool>[]> healthy_;
  std::atomic<int64_t> copy_overlap_threshold_ns_{
      absl::ToInt64Nanoseconds(kDefaultCopyOverlapThreshold)};
  // Before the workers: destroyed after them, completing whatever they posted last.
  Responder responder_;

  mutable Mutex mutex_;
  std::vector<std::unique_ptr<CoreWorker>> workers_ ABSL_GUARDED_BY(mutex_);  // by core
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_WORKER_POOL_H_
