#include "core/serving/scheduling/scheduler_base.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/serving/scheduling/queue_full.h"

namespace neuronserve {

SchedulerBase::SchedulerBase(std::string model_name, size_t capacity, size_t healthy_replicas,
                             std::vector<Doorbell*> doorbells, QueuedBytesBudget* budget)
    : model_name_(std::move(model_name)),
      capacity_(capacity == 0 ? 1 : capacity),
      budget_(budget),
      doorbells_(std::move(doorbells)),
      healthy_replicas_(healthy_replicas) {}

absl::Status SchedulerBase::AdmitLocked(const InferenceJob& job) {
  if (closed_) return absl::Status(closed_code_, closed_reason_);
  if (MainDepthLocked() >= capacity_) return QueueFullError(model_name_, capacity_);
  if (budget_ != nullptr && !budget_->TryAdd(job.input_bytes)) {
    return QueuedBytesFullError(model_name_, job.input_bytes, budget_->held(), budget_->limit());
  }
  return absl::OkStatus();
}

std::vector<JobRows> SchedulerBase::Cancel(const InferenceJob* job) {
  std::vector<JobRows> held;
  MutexLock lock(&mutex_);
  for (auto it = retries_.begin(); it != retries_.end(); ++it) {
    if (*it != job) continue;
    held.push_back(WholeJob(*it));
    retries_.erase(it);
    return held;
  }
  TakeJobLocked(job, &held);
  return held;
}

InferenceJob* SchedulerBase::TakeRetryLocked(const ModelReplica& replica) {
  for (auto it = retries_.begin(); it != retries_.end(); ++it) {
    InferenceJob* job = *it;
    if (job->failed_replica == &replica && healthy_replicas_ > 1) continue;
    retries_.erase(it);
    return job;
  }
  return nullptr;
}

bool SchedulerBase::Requeue(InferenceJob* job, const ModelReplica& failed_on) {
  MutexLock lock(&mutex_);
  if (closed_) return false;
  job->failed_replica = &failed_on;
  retries_.push_back(job);
  RingAllLocked();
  return true;
}

std::vector<JobRows> SchedulerBase::Close(absl::StatusCode code, std::string reason) {
  MutexLock lock(&mutex_);
  return CloseLocked(code, std::move(reason));
}

std::vector<JobRows> SchedulerBase::CloseLocked(absl::StatusCode code, std::string reason) {
  if (!closed_) {
    closed_ = true;
    closed_code_ = code;
    closed_reason_ = std::move(reason);
  }
  std::vector<JobRows> held;
  held.reserve(retries_.size() + MainDepthLocked());
  for (InferenceJob* job : retries_) held.push_back(WholeJob(job));
  retries_.clear();
  TakeMainLocked(&held);
  return held;
}

std::vector<JobRows> SchedulerBase::ReplicaLost(const std::string& why) {
  MutexLock lock(&mutex_);
  if (healthy_replicas_ > 0) --healthy_replicas_;
  if (healthy_replicas_ > 0) return {};
  return CloseLocked(absl::StatusCode::kUnavailable,
                     absl::StrCat("model '", model_name_, "' has no healthy replica left: ", why));
}

void SchedulerBase::RingAllLocked() {
  for (Doorbell* doorbell : doorbells_) doorbell->Ring();
}

size_t SchedulerBase::depth() const {
  MutexLock lock(&mutex_);
  return MainDepthLocked() + retries_.size();
}

size_t SchedulerBase::healthy_replicas() const {
  MutexLock lock(&mutex_);
  return healthy_replicas_;
}

bool SchedulerBase::closed() const {
  MutexLock lock(&mutex_);
  return closed_;
}

}  // namespace neuronserve
