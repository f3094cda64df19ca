// CoreWorker: the threads that run a NeuronCore's executions.
//
// Each replica is served by the worker of its first core. A worker asks the schedulers of the
// models whose replicas are bound to it for the next ExecutionUnit, the one that has had the
// least device time on this core first (so models sharing a core share its time whatever
// their execution lengths: one of 4 ms batches cannot starve one of 1 ms requests, as a turn
// per execution would let it), completes at once the jobs whose caller cancelled or whose
// deadline passed, and otherwise writes each job's rows of every input into a free tensor set
// of the unit's variant (zeros in the rows no job fills), executes, reads each job's rows of the
// wanted outputs straight into its buffers and completes the jobs.
//
// A unit goes through three stages: write, execute, read. The execution thread ("core-N") is
// the only one that executes (the runtime's rule: one execution per core at a time); the copy
// thread ("copy-N") writes the next unit's inputs and reads the last one's outputs while it
// does, each unit in its own tensor set, so copies overlap executions. A replica binds
// pipeline_depth sets (ModelReplica), and so has at most that many units in flight; the copy
// thread writes at most one unit ahead of the executing one. It takes a unit only while the core
// executes: when the core is free its own thread takes, writes, executes and reads the next unit
// itself, so a lone request pays no hand-off between threads. One thread at a time takes (and
// writes) a unit, so units execute in the order they were taken; they may end (be read and
// answered) in another order, and each job is still answered once.
//
// The copy thread is used only for copies worth a hand-off: a wake-up and two context switches
// cost tens of microseconds, more than writing or reading a few KiB in host memory, so the core's
// own thread does a stage's copies itself unless the stage's last RecentCopyTimes::kSamples
// units on the core all took at least the pool's threshold (WorkerHost::hand_off_threshold_ns;
// the fastest of them decides, so one copy slowed by preemption does not turn the copy thread
// on). Tensor sets
// are bound either way: a model whose copies grow is pipelined from then on. On a core shared by
// models of cheap and of slow copies, the copies overlap while the slow ones have the core.
// Completing a job (a server call's serialization and send) happens on the thread that ends the
// unit when nothing else waits for the core, else on the pool's Responder; but a unit whose
// device time (write, execution, read) was under the same threshold is answered inline even
// then: the device is not what limits a model of such short executions, and the hand-off would
// cost the host more than it saves the device (measured: tests/bench/README.md, "Answers of
// short units inline").
//
// A hardware error takes the replica's cores out of rotation (through its WorkerHost, the pool); after a
// hardware or transient error each job is given back once to its scheduler, to run again on
// another healthy replica when the model has one. A unit whose replica left rotation while its
// inputs waited is not executed: it fails as a hardware error would.
//
// Locks, in the order they are taken: bindings_mutex_ (which replicas this worker serves) is held
// while asking a scheduler, so it comes before a scheduler's mutex; a scheduler rings the
// doorbell with its own mutex held, so stages_mutex_ (the doorbell, and the units between
// stages) comes last and is never held while taking another lock. The compiler checks the order
// within the worker (ABSL_ACQUIRED_AFTER below, clang's -Wthread-safety-beta); a scheduler's
// mutex belongs to another object, which the annotations cannot name, so ThreadSanitizer's
// lock-order detector checks that step in the core tests. The threads block only on their
// bells (and on the device, in the runtime's calls).
#ifndef NEURON_SERVE_CORE_SERVING_EXECUTION_CORE_WORKER_H_
#define NEURON_SERVE_CORE_SERVING_EXECUTION_CORE_WORKER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "base/mutex.h"
#include "core/metrics/serving_metrics.h"
#include "core/serving/execution/execution_failure.h"
#include "core/serving/execution/fair_share.h"
#include "core/serving/execution/model_replica.h"
#include "core/serving/execution/responder.h"
#include "core/serving/execution/served_model.h"
#include "core/serving/execution/unit_copies.h"
#include "core/serving/execution/worker_host.h"
#include "core/serving/request/inference_job.h"
#include "core/serving/scheduling/doorbell.h"
#include "core/serving/scheduling/scheduler.h"

namespace neuronserve {

class CoreWorker : public Doorbell {
 public:
  // Starts the threads. `host` (the pool) must outlive the worker.
  CoreWorker(uint32_t core, WorkerHost* host);
  // Stops and joins. Every binding must have been detached (their queues emptied) before.
  ~CoreWorker() override;
  CoreWorker(const CoreWorker&) = delete;
  CoreWorker& operator=(const CoreWorker&) = delete;

  void Ring() override;

  // Serve `replica` of `model` (whose scheduler() must be set) from now on.
  void Attach(ServedModel* model, ModelReplica* replica);
  // Stop serving every replica of `model`. Returns once this worker no longer looks at it;
  // the caller guarantees no job of the model is executing (it holds no lease).
  void Detach(const ServedModel* model);

  uint32_t core() const { return core_; }
  // When the oldest runtime call now in progress on this core's threads started (an
  // execution, or a copy of inputs or outputs: the watchdog's measure of a stuck core);
  // nullopt while neither thread is in one.
  std::optional<absl::Time> executing_since() const;

  // True while both threads wait for work with no unit in flight on the core.
  bool Idle();

  // Calls `visit` for each bound replica, with bindings_mutex_ held (visit takes no worker lock).
  template <typename Visit>
  void ForEachBinding(Visit visit) {
    MutexLock lock(&bindings_mutex_);
    for (const Binding& binding : fair_share_.bindings()) visit(*binding.model, *binding.replica);
  }

 private:
  using Binding = FairShare::Binding;

  // One unit in flight on this core, from being taken to its last answer. Owned by the worker
  // (flights_) and reused; between stages it waits in written_ or executed_.
  struct Flight {
    Binding binding;
    uint64_t generation = 0;  // fair_share_.generation() when taken: a Detach since voids the charge
    ExecutionUnit unit;
    absl::Time taken;                                     // when it left the queue
    absl::Duration device = absl::ZeroDuration();         // write, execution and read so far
    absl::Duration wrote = absl::ZeroDuration();          // of which writing the inputs
    absl::Duration read = absl::ZeroDuration();           // and reading the outputs
    absl::Status executed;                                // the execution's outcome
    ExecutionFailure failure = ExecutionFailure::kFinal;  // its kind, when it failed
  };

  // What one of the worker's threads reuses for every unit it handles (no allocation once
  // grown): the outcomes gathered before they are given, and zeros for a batch's padding rows.
  struct Scratch {
    std::vector<Completion> completions;
    std::vector<uint8_t> zeros;
    std::vector<InferenceJob*> retries;  // jobs of a failed unit to give back (Read)
  };

  // The two threads' loops.
  void RunExecution();
  void RunCopies();
  // A spare flight holding the next unit of a healthy bound replica that has a free tensor set
  // (claimed for it), asking the binding with the least `used` first (ties in turn); nullptr
  // when there is none. Lowers `*look_again_at` when a scheduler will have one without being
  // rung.
  Flight* Take(absl::Time* look_again_at);
  bool TakeNext(Flight& flight, absl::Time* look_again_at);
  // The write stage: answers the jobs that gave up or expired while queued, then writes the
  // others' inputs. True when the unit goes on to execute; false when it ended here (nothing
  // left to run, or the write failed: every job answered into `scratch`, the flight released).
  bool Write(Flight& flight, Scratch& scratch, std::atomic<int64_t>& since_ns);
  // The execution stage (the execution thread only). A unit that `waited` (written ahead by the
  // copy thread) whose every job gave up meanwhile is answered instead: false, the flight ended.
  bool Execute(Flight& flight, bool waited);
  // Execute, then AfterExecution; clears executing_ either way.
  void ExecuteAndHandOn(Flight* flight, bool waited);
  // After the execution thread executed `flight`: reads it itself when nothing else waits for
  // the core, else hands it to the copy thread.
  void AfterExecution(Flight* flight);
  // The read stage: reads the outputs of a successful execution (or retries or fails the jobs
  // of a failed one), answers every job into `scratch`, releases the flight, and completes.
  void Read(Flight& flight, Scratch& scratch, std::atomic<int64_t>& since_ns);
  // Gives back the flight's tensor set and the flight itself; rings, since a set came free.
  void Release(Flight& flight);
  // Completes the jobs whose outcomes are gathered in `scratch`: on this thread when no work
  // waits for the core (WorkWaiting) or when `device`, the unit's device time, was under the
  // pool's hand-off threshold; else on the pool's Responder, all in one post.
  void FlushCompletions(Scratch& scratch, absl::Duration device);
  // True when the scheduler of a healthy bound replica holds jobs; with `takeable`, only of one
  // that has a free tensor set (takes each scheduler's lock under bindings_mutex_).
  bool WorkWaiting(bool takeable);
  // Adds an execution's device time to its binding's `used`, unless a Detach came in between.
  void Charge(const Flight& flight, absl::Duration ran);
  // Records `part`'s outcome into `scratch` (EndRows: once its job's last rows end).
  void Answer(const Flight& flight, const JobRows& part, absl::Status status, absl::Duration device,
              Scratch& scratch);
  // A runtime call on the replica's cores failed with `status` (an execution, or a copy in or
  // out): counts it in neuronserve_nrt_errors_total and, for a hardware fault, takes the
  // replica's cores out of rotation at once (`what` says where). Returns its classification.
  ExecutionFailure NoteDeviceFailure(const ModelReplica& replica, const absl::Status& status,
                                     const std::string& what);
  // After a failed execution of the kind `kind`: true when `part`'s job goes back to its
  // scheduler for another try (a transient or hardware error, on another healthy replica; or,
  // when it ran `batched` with other jobs, any error but a hardware one, to run alone). Decides
  // only; Read gives the job back (Scheduler::Requeue) once the flight is released.
  bool RetryWanted(const Binding& binding, const JobRows& part, ExecutionFailure kind,
                   bool batched);
  // Whether the copy thread writes units ahead, or reads executed ones, for the execution thread:
  // only while that stage's recent copies took at least the pool's threshold (see the header).
  bool WritesWorthOverlapping() const;
  bool ReadsWorthOverlapping() const;
  const uint32_t core_;
  WorkerHost* const host_;
  const CoreExecutionMetrics metrics_;  // null handles when the pool has no metrics
  // When each thread's runtime call in progress started (0: none), for executing_since().
  std::atomic<int64_t> executing_since_ns_{0};
  std::atomic<int64_t> copying_since_ns_{0};
  // A unit's input writes and output reads on this core, recently.
  RecentCopyTimes writes_;
  RecentCopyTimes reads_;
  Scratch execution_scratch_;  // the execution thread's
  Scratch copy_scratch_;       // the copy thread's
  // Free tensor sets of the bound replicas, together: Ring wakes the copy thread only when it
  // could take something. A hint (read without the locks that change it).
  std::atomic<int64_t> free_tensor_sets_{0};

  Mutex bindings_mutex_;
  // The bound replicas and their device time. Its generation counts Detach calls: a charge
  // taken before one is dropped, as its replica may be gone (and another allocated at its
  // address).
  FairShare fair_share_ ABSL_GUARDED_BY(bindings_mutex_);

  Mutex stages_mutex_ ABSL_ACQUIRED_AFTER(bindings_mutex_);
  uint64_t rings_ ABSL_GUARDED_BY(stages_mutex_) = 0;
  bool stopping_ ABSL_GUARDED_BY(stages_mutex_) = false;
  // Every flight ever needed (at most the bound replicas' pipeline depths together), and the
  // ones not in flight.
  std::vector<std::unique_ptr<Flight>> flights_ ABSL_GUARDED_BY(stages_mutex_);
  std::vector<Flight*> spare_ ABSL_GUARDED_BY(stages_mutex_);
  // Units whose inputs are written, waiting to execute; executed ones waiting to be read. Both
  // in order (short: at most the flights in use).
  std::vector<Flight*> written_ ABSL_GUARDED_BY(stages_mutex_);
  std::vector<Flight*> executed_ ABSL_GUARDED_BY(stages_mutex_);
  // One thread at a time takes a unit (and writes it): so units run in the order they were
  // taken. While the copy thread takes, the execution thread waits for that unit rather than
  // take one of its own.
  bool taking_ ABSL_GUARDED_BY(stages_mutex_) = false;
  // The execution thread holds a unit it is about to execute or executes: only then does the
  // copy thread take one (taking while the core's own thread is free would only race it).
  bool executing_ ABSL_GUARDED_BY(stages_mutex_) = false;
  // Which thread waits on its bell for new work (Ring wakes only that one).
  bool execution_idle_ ABSL_GUARDED_BY(stages_mutex_) = false;
  bool copy_idle_ ABSL_GUARDED_BY(stages_mutex_) = false;
  CondVar execution_bell_;
  CondVar copy_bell_;

  // Last: started once everything above exists.
  std::thread execution_thread_;
  std::thread copy_thread_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_EXECUTION_CORE_WORKER_H_
