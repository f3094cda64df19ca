// JobWithdrawal: lets the owner of an InferenceJob take it back out of its scheduler the moment
// its caller gives up (a cancelled gRPC call, an HTTP client that closed its connection), so
// that the request frees its queue slot and its bytes at once instead of waiting for a worker
// to find it cancelled.
//
// The owner submits through it, calls Withdraw from whichever thread learns that the caller
// left, and calls Ended when the job's outcome is being completed, before it lets go of its
// lease on the model (after that the scheduler may be gone). Withdraw answers the rows it took
// back with AnswerRows, so the job may be completed (and its owner destroyed) on the calling
// thread: the caller must not touch the job afterwards unless it keeps it alive otherwise.
//
// Thread safety: any thread. The mutex is taken before the scheduler's (Submit and Withdraw
// call into the scheduler with it held) and never while completing the job, so Ended, which
// Complete calls, cannot deadlock with a Withdraw on another thread. Ownership: borrows the
// scheduler between Submit and Ended; the owner's lease on the model keeps it alive.
#ifndef NEURON_SERVE_CORE_SERVING_SCHEDULING_JOB_WITHDRAWAL_H_
#define NEURON_SERVE_CORE_SERVING_SCHEDULING_JOB_WITHDRAWAL_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "base/mutex.h"
#include "core/serving/request/inference_job.h"
#include "core/serving/request/job_rows.h"
#include "core/serving/scheduling/scheduler.h"

namespace neuronserve {

// CANCELLED: "model 'm': the request was cancelled while queued", the answer of a job whose
// caller gave up before it ran (withdrawn here, or found cancelled by the worker).
absl::Status CancelledWhileQueuedError(absl::string_view model);

class JobWithdrawal {
 public:
  JobWithdrawal() = default;
  JobWithdrawal(const JobWithdrawal&) = delete;
  JobWithdrawal& operator=(const JobWithdrawal&) = delete;

  // Submits `job` to `scheduler` and remembers where it waits. When the job was cancelled
  // before or while it was submitted (job.Cancelled()), it is withdrawn at once: an OK return
  // then means it was answered already. On an error nothing was queued.
  // `model` names the model in a withdrawn job's answer; it must stay valid until Ended.
  absl::Status Submit(Scheduler& scheduler, InferenceJob& job, absl::string_view model);

  // The caller gave up: takes every row of the job still queued out of the scheduler and
  // answers them CANCELLED (CancelledWhileQueuedError). No effect
  // before Submit, after Ended, or when a worker has all of the job already (it sees
  // Cancelled() before touching the device). Returns true when it took rows back.
  bool Withdraw(InferenceJob& job);

  // Withdraw in two steps, for an owner that finds its jobs under a lock of its own (a stream's
  // list of queued calls) but must answer them without it: TakeBack takes the rows out of the
  // scheduler (empty: nothing to answer) and names the model; AnswerWithdrawn answers them,
  // after which the job must not be touched.
  std::vector<JobRows> TakeBack(const InferenceJob& job, absl::string_view* model);
  static void AnswerWithdrawn(const std::vector<JobRows>& rows, absl::string_view model);

  // The job's outcome is being completed: forgets the scheduler. Called by the job's Complete
  // (or its owner's equivalent) before the lease on the model is let go.
  void Ended();

 private:
  Mutex mutex_;
  Scheduler* scheduler_ ABSL_GUARDED_BY(mutex_) = nullptr;
  absl::string_view model_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_SCHEDULING_JOB_WITHDRAWAL_H_
