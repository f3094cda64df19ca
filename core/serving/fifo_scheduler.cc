#include "core/serving/fifo_scheduler.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/serving/queue_full.h"

namespace neuronserve {

FifoScheduler::FifoScheduler(std::string model_name, size_t capacity, size_t healthy_replicas,
                           std::vector<Doorbell*> doorbells)
    : model_name_(std::move(model_name)),
      capacity_(capacity == 0 ? 1 : capacity),
      doorbells_(std::move(doorbells)),
      healthy_replicas_(healthy_replicas) {}

absl::Status FifoScheduler::Submit(InferenceJob* job) {
  {
    MutexLock lock(&mutex_);
    if (closed_) return absl::Status(closed_code_, closed_reason_);
    if (main_.size() >= capacity_) {
      return QueueFullError(model_name_, capacity_);
    }
    job->enqueued_at = absl::Now();
    main_.push_back(job);
    // Rung under the lock: once it is released the job may run, finish and release the last
    // lease on the model, and this queue may be gone.
    RingAll();
  }
  return absl::OkStatus();
}

bool FifoScheduler::Requeue(InferenceJob* job, const ModelReplica& failed_on) {
  {
    MutexLock lock(&mutex_);
    if (closed_) return false;
    job->failed_replica = &failed_on;
    retries_.push_back(job);
    RingAll();
  }
  return true;
}

bool FifoScheduler::Next(const ModelReplica& replica, absl::Time /*now*/, ExecutionUnit& unit,
                         absl::Time* /*look_again_at*/) {
  unit.Clear();
  InferenceJob* job = nullptr;
  {
    MutexLock lock(&mutex_);
    for (auto it = retries_.begin(); it != retries_.end(); ++it) {
      if ((*it)->failed_replica != &replica || healthy_replicas_ <= 1) {
        job = *it;
        retries_.erase(it);
        break;
      }
    }
    if (job == nullptr) {
      if (main_.empty()) return false;
      job = main_.front();
      main_.pop_front();
    }
  }
  unit.parts.push_back(WholeJob(job));
  return true;
}

std::vector<JobRows> FifoScheduler::Close(absl::StatusCode code, std::string reason) {
  MutexLock lock(&mutex_);
  return CloseLocked(code, std::move(reason));
}

std::vector<JobRows> FifoScheduler::CloseLocked(absl::StatusCode code, std::string reason) {
  std::vector<JobRows> waiting;
  if (!closed_) {
    closed_ = true;
    closed_code_ = code;
    closed_reason_ = std::move(reason);
  }
  waiting.reserve(retries_.size() + main_.size());
  for (InferenceJob* job : retries_) waiting.push_back(WholeJob(job));
  for (InferenceJob* job : main_) waiting.push_back(WholeJob(job));
  retries_.clear();
  main_.clear();
  return waiting;
}

std::vector<JobRows> FifoScheduler::ReplicaLost(const std::string& why) {
  MutexLock lock(&mutex_);
  if (healthy_replicas_ > 0) --healthy_replicas_;
  if (healthy_replicas_ > 0) return {};
  return CloseLocked(absl::StatusCode::kUnavailable,
                     absl::StrCat("model '", model_name_, "' has no healthy replica left: ", why));
}

void FifoScheduler::RingAll() {
  for (Doorbell* doorbell : doorbells_) doorbell->Ring();
}

size_t FifoScheduler::depth() const {
  MutexLock lock(&mutex_);
  return main_.size() + retries_.size();
}

size_t FifoScheduler::healthy_replicas() const {
  MutexLock lock(&mutex_);
  return healthy_replicas_;
}

bool FifoScheduler::closed() const {
  MutexLock lock(&mutex_);
  return closed_;
}

}  // namespace neuronserve
