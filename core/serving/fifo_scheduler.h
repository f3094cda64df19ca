// FifoScheduler: the default Scheduler (scheduler.h). One job per execution, oldest first, on
// the replica's one variant; requests spread across the model's replicas, so a free replica
// never idles while another has a backlog.
//
// Two lanes: the main lane, bounded by the model's max queue (a full queue refuses at once
// rather than building an unbounded backlog), and a retry lane for jobs whose execution failed
// transiently on one replica and should run once more on another. Retries go first and do not
// count against the bound: they were admitted already.
//
// It also counts the model's healthy replicas. When the last one fails, waiting jobs can never
// run: the scheduler closes with UNAVAILABLE and hands them back to be answered.
//
// Thread safety: as Scheduler; one mutex guards both lanes, taken briefly by every method.
#ifndef NEURON_SERVE_CORE_SERVING_FIFO_SCHEDULER_H_
#define NEURON_SERVE_CORE_SERVING_FIFO_SCHEDULER_H_

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "base/mutex.h"
#include "core/serving/doorbell.h"
#include "core/serving/inference_job.h"
#include "core/serving/scheduler.h"

namespace neuronserve {

class FifoScheduler final : public Scheduler {
 public:
  // `doorbells` (the workers of the replicas' cores) must outlive the scheduler; `capacity` >= 1
  // (0 is taken as 1).
  FifoScheduler(std::string model_name, size_t capacity, size_t healthy_replicas,
                std::vector<Doorbell*> doorbells);
  FifoScheduler(const FifoScheduler&) = delete;
  FifoScheduler& operator=(const FifoScheduler&) = delete;

  absl::Status Submit(InferenceJob* job) override;
  // A retry that did not fail on `replica` first (or any retry when it is the only healthy
  // replica left), else the oldest job of the main lane; always variant 0, the whole job.
  bool Next(const ModelReplica& replica, absl::Time now, ExecutionUnit& unit,
            absl::Time* look_again_at) override;
  // Learns nothing: every execution is one job on the one variant.
  void Executed(size_t /*variant*/, uint32_t /*rows*/, absl::Duration /*device*/) override {}
  bool Requeue(InferenceJob* job, const ModelReplica& failed_on) override;
  // Whole jobs only: this scheduler never splits one.
  std::vector<JobRows> Close(absl::StatusCode code, std::string reason) override;
  std::vector<JobRows> ReplicaLost(const std::string& why) override;

  size_t depth() const override;
  size_t capacity() const override { return capacity_; }
  size_t healthy_replicas() const override;
  bool closed() const override;

 private:
  std::vector<JobRows> CloseLocked(absl::StatusCode code, std::string reason)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void RingAll() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const std::string model_name_;
  const size_t capacity_;
  // Fixed at construction. Rung with mutex_ held (lock order: scheduler, then doorbell).
  const std::vector<Doorbell*> doorbells_;

  mutable Mutex mutex_;
  std::deque<InferenceJob*> main_ ABSL_GUARDED_BY(mutex_);
  std::deque<InferenceJob*> retries_ ABSL_GUARDED_BY(mutex_);
  size_t healthy_replicas_ ABSL_GUARDED_BY(mutex_);
  bool closed_ ABSL_GUARDED_BY(mutex_) = false;
  // Kept as code and text, not as an absl::Status: a Status shared across threads counts its
  // references inside Debian's uninstrumented libabsl, where TSAN cannot follow them.
  absl::StatusCode closed_code_ ABSL_GUARDED_BY(mutex_) = absl::StatusCode::kOk;
  std::string closed_reason_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_FIFO_SCHEDULER_H_
