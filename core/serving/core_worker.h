// CoreWorker: the one thread that executes on a NeuronCore.
//
// Each replica is served by the worker of its first core. A worker asks the schedulers of the
// models whose replicas are bound to it for the next ExecutionUnit, the one that has had the
// least device time on this core first (so models sharing a core share its time whatever
// their execution lengths: one of 4 ms batches cannot starve one of 1 ms requests, as a turn
// per execution would let it), completes at once the jobs whose caller cancelled or whose
// deadline passed, and otherwise writes each job's rows of every input into the unit's
// variant's pre-bound device tensors (zeros in the rows no job fills), executes, reads each
// job's rows of the wanted outputs straight into its buffers and completes the jobs: itself when
// nothing else waits for the core, else through the pool's Responder (what completing costs, a
// server call's serialization and send, then overlaps the next execution). A hardware
// error takes the replica's cores out of rotation (through the WorkerPool); after a hardware or
// transient error each job is given back once to its scheduler, to run again on another healthy
// replica when the model has one.
//
// Locks, in the order they are taken: bindings_mutex_ (which replicas this worker serves) is held
// while asking a scheduler, so it comes before a scheduler's mutex; a scheduler rings the
// doorbell with its own mutex held, so bell_mutex_ comes last and is never held while taking
// another lock. The compiler checks the order within the worker (ABSL_ACQUIRED_AFTER below,
// clang's -Wthread-safety-beta); a scheduler's mutex belongs to another object, which the
// annotations cannot name, so ThreadSanitizer's lock-order detector checks that step in the core
// tests. The worker blocks only on its bell (and on the device, in the runtime's calls).
#ifndef NEURON_SERVE_CORE_SERVING_CORE_WORKER_H_
#define NEURON_SERVE_CORE_SERVING_CORE_WORKER_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "base/mutex.h"
#include "core/metrics/serving_metrics.h"
#include "core/serving/doorbell.h"
#include "core/serving/execution_failure.h"
#include "core/serving/inference_job.h"
#include "core/serving/responder.h"
#include "core/serving/scheduler.h"

namespace neuronserve {

class LoadedModel;
struct ModelReplica;
struct ReplicaVariant;
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

  // Serve `replica` of `model` (whose scheduler() must be set) from now on.
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
    // Device time this core spent on the replica's executions, the measure of fairness. An
    // idle binding is not owed the time it did not ask for: when it has nothing while another
    // is served, it is lifted to the one served (as a fair-share scheduler's virtual time).
    absl::Duration used = absl::ZeroDuration();
  };

  void Run();
  // Fills unit_ with the next unit of a healthy bound replica, asking the one with the least
  // `used` first (ties in turn); false when there is none. Lowers `*look_again_at` when a
  // scheduler will have one without being rung.
  bool TakeNext(Binding* binding, absl::Time* look_again_at);
  // Adds the last execution's device time (uncharged_) to its binding's `used`, unless a
  // Detach came in between. Called at the start of TakeNext, whose lock it shares: an execution
  // takes the worker's lock once, not once more to be charged.
  void ApplyChargeLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(bindings_mutex_);
  // Executes unit_ on `binding`'s replica and answers for each of its jobs: ExecuteUnit, then
  // FlushCompletions.
  void Execute(const Binding& binding);
  void ExecuteUnit(const Binding& binding);
  // Completes the jobs whose outcomes ExecuteUnit gathered in completions_: on this thread when
  // no work waits for the core (WorkWaiting), else on the pool's Responder, all in one post.
  void FlushCompletions();
  // True when the scheduler of a healthy bound replica holds jobs (takes each scheduler's lock
  // under bindings_mutex_).
  bool WorkWaiting();
  // Writes each part's rows of every input, then zeros in the batch's remaining rows.
  absl::Status WriteInputs(const LoadedModel& model, ReplicaVariant& variant,
                           const ModelReplica& replica);
  // Reads each part's rows of every output a job asked for.
  absl::Status ReadOutputs(const LoadedModel& model, const ReplicaVariant& variant,
                           const ModelReplica& replica);
  // After a failed execution of the kind `kind`: true when `part`'s job went back to its
  // scheduler for another try (a transient or hardware error, on another healthy replica; or,
  // when it ran `batched` with other jobs, any error but a hardware one, to run alone).
  bool TryRetry(const Binding& binding, const JobRows& part, ExecutionFailure kind,
                bool batched);

  const uint32_t core_;
  WorkerPool* const pool_;
  const CoreExecutionMetrics metrics_;  // null handles when the pool has no metrics
  std::atomic<int64_t> executing_since_ns_{0};  // 0: not executing
  // This worker's thread only, reused for every execution (no allocation once grown): the unit
  // being executed, and zeros for the rows of a batch that no job fills.
  ExecutionUnit unit_;
  std::vector<uint8_t> zeros_;
  // This worker's thread only: the replica of the last execution and its device time, not yet
  // charged (ApplyChargeLocked), and the bindings' generation when it was taken.
  // The outcomes of the unit being executed (FlushCompletions).
  std::vector<Completion> completions_;
  const ModelReplica* uncharged_replica_ = nullptr;
  absl::Duration uncharged_ = absl::ZeroDuration();
  uint64_t uncharged_generation_ = 0;

  Mutex bindings_mutex_;
  std::vector<Binding> bindings_ ABSL_GUARDED_BY(bindings_mutex_);
  size_t next_binding_ ABSL_GUARDED_BY(bindings_mutex_) = 0;
  // Counts Detach calls: a charge taken before one is dropped, as its replica may be gone (and
  // another allocated at its address).
  uint64_t bindings_generation_ ABSL_GUARDED_BY(bindings_mutex_) = 0;

  Mutex bell_mutex_ ABSL_ACQUIRED_AFTER(bindings_mutex_);
  uint64_t rings_ ABSL_GUARDED_BY(bell_mutex_) = 0;
  bool stopping_ ABSL_GUARDED_BY(bell_mutex_) = false;
  CondVar bell_;

  std::thread thread_;  // last: started once everything above exists
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_CORE_WORKER_H_
