// WorkerPool: one CoreWorker per NeuronCore in use, and which cores are healthy.
//
// Workers start when the first replica on their core is attached and live until the pool is
// destroyed (after every model is unloaded). A hardware error on a replica marks its cores
// unhealthy for the life of the process: every replica on them, of any model, leaves rotation,
// and a model whose last healthy replica is gone answers UNAVAILABLE.
#ifndef NEURON_SERVE_CORE_SERVING_EXECUTION_WORKER_POOL_H_
#define NEURON_SERVE_CORE_SERVING_EXECUTION_WORKER_POOL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "base/mutex.h"
#include "core/metrics/serving_metrics.h"
#include "core/serving/execution/core_range.h"
#include "core/serving/execution/core_worker.h"
#include "core/serving/execution/responder.h"
#include "core/serving/execution/running_execution.h"
#include "core/serving/execution/served_model.h"
#include "core/serving/execution/worker_host.h"
#include "util/callback_relay.h"

namespace neuronserve {

class WorkerPool final : public WorkerHost {
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
  void Attach(ServedModel& model);
  // Unbinds them; no job of `model` may be executing (see CoreWorker::Detach).
  void Detach(const ServedModel& model);

  // Takes `cores` out of rotation after a hardware error (`why` names it) and every replica on
  // them with it. Called by a worker; takes each worker's bindings lock in turn.
  void MarkCoresUnhealthy(const CoreRange& cores, const std::string& why) override;
  bool CoreHealthy(uint32_t core) const;
  std::vector<uint32_t> UnhealthyCores() const;
  uint32_t core_count() const { return core_count_; }
  ServingMetrics* metrics() const override { return metrics_; }
  // Work moves from a core's execution thread to another thread only when it is worth the
  // hand-off (a wake-up and two context switches; tests/bench/README.md, "Hand-off threshold"): a
  // stage's copies (a unit's input writes, or its output reads) go to the core's copy thread
  // only while they take at least this long (CoreWorker), and the answers of a unit go to the
  // Responder only when its device time was at least this long (shorter executions cannot keep
  // the device busier than the host keeps it fed). Zero hands off everything it can (tests of
  // the machinery).
  static constexpr absl::Duration kDefaultHandOffThreshold = absl::Microseconds(20);
  void set_hand_off_threshold(absl::Duration threshold) {
    hand_off_threshold_ns_.store(absl::ToInt64Nanoseconds(threshold), std::memory_order_relaxed);
  }
  int64_t hand_off_threshold_ns() const override {
    return hand_off_threshold_ns_.load(std::memory_order_relaxed);
  }
  // Where the workers hand the completions of a core that other work waits for (see
  // hand_off_threshold).
  Responder& responder() override { return responder_; }
  // The execution that has been running longest right now, if any (for the watchdog), and
  // per core whether it is executing now.
  std::optional<RunningExecution> LongestExecution() const;
  std::vector<bool> ExecutingByCore() const;

 private:
  const uint32_t core_count_;
  CallbackRelay* const on_unhealthy_;
  ServingMetrics* const metrics_;
  std::unique_ptr<std::atomic<bool>[]> healthy_;
  std::atomic<int64_t> hand_off_threshold_ns_{absl::ToInt64Nanoseconds(kDefaultHandOffThreshold)};
  // Before the workers: destroyed after them, completing whatever they posted last.
  Responder responder_;

  mutable Mutex mutex_;
  std::vector<std::unique_ptr<CoreWorker>> workers_ ABSL_GUARDED_BY(mutex_);  // by core
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_EXECUTION_WORKER_POOL_H_
