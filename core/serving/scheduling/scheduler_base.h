// SchedulerBase: what every Scheduler (scheduler.h) here shares, so that FifoScheduler and
// DynamicBatcher differ only in their main queue and in how Next fills a unit: the model's name
// and queue bound, the doorbells of the workers that serve it, the retry lane, the count of
// healthy replicas, and closing (Close, and ReplicaLost of the last healthy replica).
//
// A derived scheduler keeps its main queue under the same mutex_ (annotated ABSL_GUARDED_BY
// it) and tells the base how many jobs that queue holds (MainDepthLocked) and how to hand them
// back when closing (TakeMainLocked) or when one is cancelled (TakeJobLocked). Its Submit admits
// with AdmitLocked and rings with RingAllLocked, its Next takes retries first with
// TakeRetryLocked, and it calls LeftMainLocked for every job that leaves its main queue (the
// bytes budget counts the main queue only: a retry was admitted once already).
//
// Thread safety: as Scheduler; mutex_ guards the base's state and the derived main queue alike.
#ifndef NEURON_SERVE_CORE_SERVING_SCHEDULING_SCHEDULER_BASE_H_
#define NEURON_SERVE_CORE_SERVING_SCHEDULING_SCHEDULER_BASE_H_

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "base/mutex.h"
#include "core/serving/request/inference_job.h"
#include "core/serving/request/job_rows.h"
#include "core/serving/scheduling/doorbell.h"
#include "core/serving/scheduling/queued_bytes_budget.h"
#include "core/serving/scheduling/scheduler.h"

namespace neuronserve {

class SchedulerBase : public Scheduler {
 public:
  SchedulerBase(const SchedulerBase&) = delete;
  SchedulerBase& operator=(const SchedulerBase&) = delete;

  bool Requeue(InferenceJob* job, const ModelReplica& failed_on) final;
  // A retry, else what the main queue holds of it (TakeJobLocked).
  std::vector<JobRows> Cancel(const InferenceJob* job) final;
  // Retries first, then the main queue (oldest first).
  std::vector<JobRows> Close(absl::StatusCode code, std::string reason) final;
  std::vector<JobRows> ReplicaLost(const std::string& why) final;

  size_t depth() const final;
  size_t capacity() const final { return capacity_; }
  size_t healthy_replicas() const final;
  bool closed() const final;

 protected:
  // `doorbells` (the workers of the replicas' cores) must outlive the scheduler; `capacity` >= 1
  // (0 is taken as 1). `budget`, when not null, bounds the input bytes of the jobs in the main
  // queues of every scheduler that shares it; it must outlive the scheduler.
  SchedulerBase(std::string model_name, size_t capacity, size_t healthy_replicas,
                std::vector<Doorbell*> doorbells, QueuedBytesBudget* budget);

  // OK when `job` may join the main queue, its input bytes then counted in the budget until
  // LeftMainLocked; else the closing status, QueueFullError when the main queue holds
  // `capacity` jobs, or QueuedBytesFullError when its bytes do not fit the budget.
  absl::Status AdmitLocked(const InferenceJob& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // `job` left the main queue for good (its last rows were taken, or it was handed back).
  void LeftMainLocked(const InferenceJob& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    if (budget_ != nullptr) budget_->Remove(job.input_bytes);
  }
  // Removes and returns the oldest retry that may run on `replica` (any retry when `replica` is
  // the only healthy one left, else one that did not fail on it); null when there is none.
  InferenceJob* TakeRetryLocked(const ModelReplica& replica) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Rings every worker. Called with the lock held: once it is released, a job just admitted
  // may run, finish and release the last lease on the model, and this scheduler may be gone.
  void RingAllLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // The derived scheduler's main queue: how many jobs it holds (what `capacity` bounds)...
  virtual size_t MainDepthLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) = 0;
  // ... and handing back every row it still holds, appended to `*held` oldest first, leaving
  // it empty.
  virtual void TakeMainLocked(std::vector<JobRows>* held) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) = 0;
  // ... and handing back the rows of `job` it still holds (appended to `*held`), if any.
  virtual void TakeJobLocked(const InferenceJob* job, std::vector<JobRows>* held)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) = 0;

  const std::string& model_name() const { return model_name_; }

  mutable Mutex mutex_;

 private:
  std::vector<JobRows> CloseLocked(absl::StatusCode code, std::string reason)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const std::string model_name_;
  const size_t capacity_;
  QueuedBytesBudget* const budget_;
  // Fixed at construction. Rung with mutex_ held (lock order: scheduler, then doorbell).
  const std::vector<Doorbell*> doorbells_;

  std::deque<InferenceJob*> retries_ ABSL_GUARDED_BY(mutex_);
  size_t healthy_replicas_ ABSL_GUARDED_BY(mutex_);
  bool closed_ ABSL_GUARDED_BY(mutex_) = false;
  // Kept as code and text, not as an absl::Status: a Status shared across threads counts its
  // references inside Debian's uninstrumented libabsl, where TSAN cannot follow them.
  absl::StatusCode closed_code_ ABSL_GUARDED_BY(mutex_) = absl::StatusCode::kOk;
  std::string closed_reason_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_SCHEDULING_SCHEDULER_BASE_H_
