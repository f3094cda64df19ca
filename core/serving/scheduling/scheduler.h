// Scheduler: decides what a free core executes next for one loaded model version.
//
// The seam between the front ends, which submit one InferenceJob per request, and the core
// workers, which execute. Each model version has one scheduler, shared by the workers of every
// core that holds one of its replicas. A free worker asks it for the next ExecutionUnit: one or
// more jobs (or row ranges of one), the compiled variant of the replica to run them on, and so
// the bound tensors to use. FifoScheduler (fifo_scheduler.h) is the default: one job per
// execution, oldest first, with a retry lane. A batching scheduler gathers the jobs of a model
// compiled for several batch sizes into one execution of the variant that suits them.
//
// Ownership of a job. The front end owns the InferenceJob object and keeps it alive until its
// Complete() has been called. From a successful Submit until then, exactly one party is
// responsible for answering it (Cancel hands the rows still queued back to the front end):
//   - while it is queued (waiting in the scheduler, including a job a batcher holds back for
//     company, and a job waiting in the retry lane): the scheduler. Close and ReplicaLost hand
//     back every row they hold, and their caller answers them (AnswerRows, job_rows.h);
//   - while it is executing (in an ExecutionUnit that Next returned): the worker that took the
//     unit. It completes the job, or gives it back once with Requeue after a failure that another
//     replica (or an execution without company) may not repeat;
//   - a job split into row ranges (more rows than the largest variant) executes while any of
//     its ranges does: each range is answered once through AnswerRows, by the worker that ran
//     it or by the caller of Close, and the job is completed by whichever ends its last rows
//     (the first error wins).
// When Submit returns an error the scheduler kept nothing and the caller answers the job.
// Nothing but the worker completes a job taken by Next, and the scheduler completes no job:
// no front-end code ever runs under a scheduler's lock.
//
// Threads. Submit: any thread (the front ends); it never blocks beyond the scheduler's own
// mutex. Next, Executed, Requeue: the worker threads of the replica's first core (Executed
// also the loader, warming a batched version up before it is attached). Close: the loader
// thread, when it unloads the version. ReplicaLost: whoever takes a replica out of rotation (a
// worker after a hardware error, or the loader attaching a replica to a failed core). Any two
// may overlap.
//
// Waking. The scheduler rings the doorbells of the workers that serve it whenever work may
// have become ready (a submit, a requeue), with its lock held (lock order: scheduler, then the
// worker's bell). Next never blocks; when it holds jobs that are not ready yet (a batcher
// waiting, within a request's delay, for a preferred batch size), it says by when the worker
// should ask again. A worker blocks only on its own doorbell.
//
// A pipelining worker (core_worker.h) takes the next unit while the one before executes, from
// its execution or its copy thread (one at a time), and only for a replica with a free tensor
// set, which it names in the unit (ExecutionUnit::tensor_set). Shared-memory inputs and outputs
// are jobs whose Input/Output spans point into a client's mapping, which the unit does not see.
//
// Model kinds. One scheduler per model kind, all behind this contract; the worker runs whatever
// unit Next names and never asks what kind made it. A bucketed model's scheduler groups jobs by
// the variant of the bucket that holds them; a sequence model's keeps a slot per live
// correlation id and names, with the unit, the state rows its jobs continue; a generation
// family's step loop forms each round (a prefill of waiting requests, or one decode step of
// every active slot) as a unit of the variant (NEFF) that round runs. What a kind binds on the
// device beyond a unit's rows (weights, state) belongs to the replica (ModelReplica), which
// Next receives. The replica is otherwise only compared by address here.
#ifndef NEURON_SERVE_CORE_SERVING_SCHEDULING_SCHEDULER_H_
#define NEURON_SERVE_CORE_SERVING_SCHEDULING_SCHEDULER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "core/serving/request/inference_job.h"
#include "core/serving/request/job_rows.h"

namespace neuronserve {

struct ModelReplica;  // core/serving/execution/model_replica.h (only its address is used here)

// What one execution on a replica runs.
struct ExecutionUnit {
  // Index into the replica's variants of the compiled variant to execute.
  size_t variant = 0;
  // The jobs, or row ranges of them, in the order their rows fill the variant's batch (each
  // part after the rows of the parts before it). The variant's rows past the last part are
  // padding: zeros in, and nothing read out.
  std::vector<JobRows> parts;
  // Which of the variant's tensor sets the unit's rows go through (ReplicaVariant::tensor_sets):
  // the worker claims a free one when it takes the unit, and no other unit of the replica uses
  // it until this one ends.
  uint32_t tensor_set = 0;

  void Clear() {
    variant = 0;
    tensor_set = 0;
    parts.clear();  // keeps the capacity: a worker reuses one unit for every execution
  }
  uint32_t rows() const {
    uint32_t total = 0;
    for (const JobRows& part : parts) total += part.rows;
    return total;
  }
};

struct BatchingPolicy;  // core/serving/scheduling/dynamic_batcher.h

class Scheduler {
 public:
  virtual ~Scheduler() = default;

  // Admits `job` (its deadline and inputs set; enqueued_at is set here) and rings the workers.
  // RESOURCE_EXHAUSTED when the queue is full (the model's max_queue), the closing status once
  // closed; on an error the job is not kept and the caller answers it.
  virtual absl::Status Submit(InferenceJob* job) = 0;

  // The next execution for `replica` (healthy, served by the calling worker): fills `unit`
  // (cleared first) and returns true, the worker now answering for its jobs; or returns false
  // when nothing is ready for this replica. When the scheduler holds jobs that will be ready
  // without another submit (a batcher waiting for company), it lowers `*look_again_at` to
  // when; otherwise it leaves it.
  virtual bool Next(const ModelReplica& replica, absl::Time now, ExecutionUnit& unit,
                    absl::Time* look_again_at) = 0;

  // The calling worker executed `rows` useful rows on variant `variant` in `device` (inputs
  // written to outputs read), whatever the outcome. Called before the unit's jobs are answered
  // (after that the model, and this scheduler, may be gone). A batcher learns each variant's
  // cost from it.
  virtual void Executed(size_t variant, uint32_t rows, absl::Duration device) = 0;

  // A job whose execution on `failed_on` failed in a way another replica may not repeat (a
  // hardware or transient error), to run once more, before the queued jobs, alone, and on
  // another replica when there is one. False (the job not kept, the caller answers it) once
  // closed.
  virtual bool Requeue(InferenceJob* job, const ModelReplica& failed_on) = 0;

  // The owner of `job` gave up on it (the client cancelled or left): takes out every row of it
  // still held, at once, and returns them for the caller to answer with AnswerRows, as Close
  // does (a split job keeps the ranges a worker already has; it completes when they end).
  // Empty when the scheduler holds none of it (a worker has it and sees Cancelled() before it
  // touches the device, or it was answered): `job` is only compared then, never touched.
  virtual std::vector<JobRows> Cancel(const InferenceJob* job) = 0;

  // Closes for good: later submits get `code` and `reason`. Returns every row still held (whole
  // jobs, and the rows of a split job not yet handed to a worker), retries first then oldest
  // first, for the caller to answer with AnswerRows.
  virtual std::vector<JobRows> Close(absl::StatusCode code, std::string reason) = 0;
  // One replica left rotation. When it was the last healthy one, closes as Close does
  // (UNAVAILABLE naming the model and `why`) and returns every row held; else returns none.
  virtual std::vector<JobRows> ReplicaLost(const std::string& why) = 0;

  // Jobs held (queued, retrying, or held for company).
  virtual size_t depth() const = 0;
  // The most jobs the main queue holds before Submit refuses.
  virtual size_t capacity() const = 0;
  virtual size_t healthy_replicas() const = 0;
  virtual bool closed() const = 0;
  // The dynamic batcher's settings, for the model's configuration as Triton reports it; null
  // for a scheduler that forms no batches. Immutable: valid as long as the scheduler.
  virtual const BatchingPolicy* batching_policy() const { return nullptr; }
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_SCHEDULING_SCHEDULER_H_
