#include "core/serving/scheduling/fifo_scheduler.h"

#include <algorithm>

namespace neuronserve {

absl::Status FifoScheduler::Submit(InferenceJob* job) {
  MutexLock lock(&mutex_);
  if (absl::Status admitted = AdmitLocked(*job); !admitted.ok()) return admitted;
  job->enqueued_at = absl::Now();
  main_.push_back(job);
  RingAllLocked();
  return absl::OkStatus();
}

bool FifoScheduler::Next(const ModelReplica& replica, absl::Time /*now*/, ExecutionUnit& unit,
                         absl::Time* /*look_again_at*/) {
  unit.Clear();
  InferenceJob* job = nullptr;
  {
    MutexLock lock(&mutex_);
    job = TakeRetryLocked(replica);
    if (job == nullptr) {
      if (main_.empty()) return false;
      job = main_.front();
      main_.pop_front();
      LeftMainLocked(*job);
    }
  }
  unit.parts.push_back(WholeJob(job));
  return true;
}

void FifoScheduler::TakeMainLocked(std::vector<JobRows>* held) {
  for (InferenceJob* job : main_) {
    LeftMainLocked(*job);
    held->push_back(WholeJob(job));
  }
  main_.clear();
}

void FifoScheduler::TakeJobLocked(const InferenceJob* job, std::vector<JobRows>* held) {
  const auto it = std::find(main_.begin(), main_.end(), job);
  if (it == main_.end()) return;
  LeftMainLocked(**it);
  held->push_back(WholeJob(*it));
  main_.erase(it);
}

}  // namespace neuronserve
