// FifoScheduler: the default Scheduler (scheduler.h). One job per execution, oldest first, on
// the replica's one variant; requests spread across the model's replicas, so a free replica
// never idles while another has a backlog.
//
// Two lanes: the main lane, bounded by the model's max queue (a full queue refuses at once
// rather than building an unbounded backlog), and the retry lane (SchedulerBase) for jobs whose
// execution failed transiently on one replica and should run once more on another. Retries go
// first and do not count against the bound: they were admitted already.
//
// When the last healthy replica fails, waiting jobs can never run: the scheduler closes with
// UNAVAILABLE and hands them back to be answered (SchedulerBase::ReplicaLost).
//
// Thread safety: as Scheduler; one mutex guards both lanes, taken briefly by every method.
#ifndef NEURON_SERVE_CORE_SERVING_SCHEDULING_FIFO_SCHEDULER_H_
#define NEURON_SERVE_CORE_SERVING_SCHEDULING_FIFO_SCHEDULER_H_

#include <cstddef>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/serving/request/inference_job.h"
#include "core/serving/scheduling/doorbell.h"
#include "core/serving/scheduling/scheduler_base.h"

namespace neuronserve {

class FifoScheduler final : public SchedulerBase {
 public:
  // As SchedulerBase's.
  FifoScheduler(std::string model_name, size_t capacity, size_t healthy_replicas,
                std::vector<Doorbell*> doorbells, QueuedBytesBudget* budget = nullptr)
      : SchedulerBase(std::move(model_name), capacity, healthy_replicas, std::move(doorbells),
                      budget) {}

  absl::Status Submit(InferenceJob* job) override;
  // A retry that may run on `replica` first, else the oldest job of the main lane; always
  // variant 0, the whole job.
  bool Next(const ModelReplica& replica, absl::Time now, ExecutionUnit& unit,
            absl::Time* look_again_at) override;
  // Learns nothing: every execution is one job on the one variant.
  void Executed(size_t /*variant*/, uint32_t /*rows*/, absl::Duration /*device*/) override {}

 private:
  size_t MainDepthLocked() const override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return main_.size();
  }
  // Whole jobs only: this scheduler never splits one.
  void TakeMainLocked(std::vector<JobRows>* held) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void TakeJobLocked(const InferenceJob* job, std::vector<JobRows>* held) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  std::deque<InferenceJob*> main_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_SCHEDULING_FIFO_SCHEDULER_H_
