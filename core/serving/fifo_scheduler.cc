#include "core/serving/fifo_scheduler.h"

namespace neuronserve {

absl::Status FifoScheduler::Submit(InferenceJob* job) {
  MutexLock lock(&mutex_);
  if (absl::Status admitted = AdmitLocked(); !admitted.ok()) return admitted;
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
    }
  }
  unit.parts.push_back(WholeJob(job));
  return true;
}

void FifoScheduler::TakeMainLocked(std::vector<JobRows>* held) {
  for (InferenceJob* job : main_) held->push_back(WholeJob(job));
  main_.clear();
}

}  // namespace neuronserve
