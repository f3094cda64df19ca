// CoreWorker: the one thread that executes on a NeuronCore.
//
// Each replica is served by the worker of its first core. A worker takes jobs from the request
// queues of the replicas bound to it (round robin, so models sharing a core share it fairly),
// drops a job whose caller cancelled or whose deadline passed, and otherwise writes the inputs
// into the replica's pre-bound device tensors, executes, reads the wanted outputs straight into
// the job's buffers and completes it. A hardware error takes the replica's cores out of rotation
// (through the WorkerPool); a hardware or transient error is retried once on another healthy
// replica when the model has one.
//
// Locks, in the order they are taken: bindings_mutex_ (which replicas this worker serves) is held
// while popping, so it comes before a queue's mutex; a queue rings the doorbell with its own
// mutex held, so bell_mutex_ comes last and is never held while taking another lock. The
// compiler checks the order within the worker (ABSL_ACQUIRED_AFTER below, clang's
// -Wthread-safety-beta); the queue's mutex belongs to another object, which the annotations
// cannot name, so ThreadSanitizer's lock-order detector checks that step in the core tests.
#ifndef NEURON_SERVE_CORE_SERVING_CORE_WORKER_H_
#define NEURON_SERVE_CORE_SERVING_CORE_WORKER_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "core/metrics/serving_metrics.h"
#include "core/serving/doorbell.h"
#include "core/serving/inference_job.h"
#include "base/mutex.h"

namespace neuronserve {

class LoadedModel;
struct ModelReplica;
class WorkerPool;

class CoreWorker : public Doorbell {
 public:
  // Starts the thread. `pool` must outlive the worker.
  CoreWorker(uint32_t core, WorkerPool* pool);
  // Stops and joins. Every binding must have been detached (their queues emptied) before.
  ~CoreWorker() override;
  CoreWorker(const CoreWorker&) = delete;
  CoreWorker& operator=(const CoreWorker&) = delete;

  void Ring() override;

  // Serve `replica` of `model` (whose queue() must be set) from now on.
  void Attach(LoadedModel* model, ModelReplica* replica);
  // Stop serving every replica of `model`. Returns once this worker no longer looks at it;
  // the caller guarantees no job of the model is executing (it holds no lease).
  void Detach(const LoadedModel* model);

  uint32_t core() const { return core_; }
  // When the execution now running on this core started (inputs written, outputs read
  // included); nullopt while the worker is between jobs.
  std::optional<absl::Time> executing_since() const {
    const int64_t since = executing_since_ns_.load(std::memory_order_acquire);
    if (since == 0) return std::nullopt;
    return absl::FromUnixNanos(since);
  }

  // Calls `visit` for each bound replica, with bindings_mutex_ held (visit takes no worker lock).
  template <typename Visit>
  void ForEachBinding(Visit visit) {
    MutexLock lock(&bindings_mutex_);
    for (const Binding& binding : bindings_) visit(*binding.model, *binding.replica);
  }

 private:
  struct Binding {
    LoadedModel* model;
    ModelReplica* replica;
  };

  void Run();
  // The next job of a healthy bound replica, round robin; false when there is none.
  bool TakeNext(Binding* binding, InferenceJob** job);
  void Execute(const Binding& binding, InferenceJob* job);
  // After a failed execution: true when the job went back to the queue for another replica.
  bool TryRetry(const Binding& binding, InferenceJob* job);

  const uint32_t core_;
  WorkerPool* const pool_;
  const CoreExecutionMetrics metrics_;  // null handles when the pool has no metrics
  std::atomic<int64_t> executing_since_ns_{0};  // 0: not executing

  Mutex bindings_mutex_;
  std::vector<Binding> bindings_ ABSL_GUARDED_BY(bindings_mutex_);
  size_t next_binding_ ABSL_GUARDED_BY(bindings_mutex_) = 0;

  Mutex bell_mutex_ ABSL_ACQUIRED_AFTER(bindings_mutex_);
  uint64_t rings_ ABSL_GUARDED_BY(bell_mutex_) = 0;
  bool stopping_ ABSL_GUARDED_BY(bell_mutex_) = false;
  CondVar bell_;

  std::thread thread_;  // last: started once everything above exists
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_CORE_WORKER_H_
