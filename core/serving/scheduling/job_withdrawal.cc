#include "core/serving/scheduling/job_withdrawal.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/serving/request/job_rows.h"

namespace neuronserve {

absl::Status CancelledWhileQueuedError(absl::string_view model) {
  return absl::CancelledError(
      absl::StrCat("model '", model, "': the request was cancelled while queued"));
}

absl::Status JobWithdrawal::Submit(Scheduler& scheduler, InferenceJob& job,
                                   absl::string_view model) {
  std::vector<JobRows> rows;
  {
    MutexLock lock(&mutex_);
    if (absl::Status submitted = scheduler.Submit(&job); !submitted.ok()) return submitted;
    scheduler_ = &scheduler;
    model_ = model;
    // A caller that gave up before this point found nothing to withdraw: its job is taken
    // back now. One that gives up later finds scheduler_ set.
    if (!job.Cancelled()) return absl::OkStatus();
    // Taken back under the lock: a worker that popped the job meanwhile cannot complete it
    // (Ended waits for the lock), so the job is alive here. Released first, it could be
    // answered and freed before a second locking (a heap-use-after-free the ASan soak found).
    rows = scheduler.Cancel(&job);
  }
  AnswerWithdrawn(rows, model);
  return absl::OkStatus();
}

bool JobWithdrawal::Withdraw(InferenceJob& job) {
  absl::string_view model;
  const std::vector<JobRows> rows = TakeBack(job, &model);
  if (rows.empty()) return false;
  AnswerWithdrawn(rows, model);
  return true;
}

std::vector<JobRows> JobWithdrawal::TakeBack(const InferenceJob& job, absl::string_view* model) {
  MutexLock lock(&mutex_);
  if (scheduler_ == nullptr) return {};
  *model = model_;
  return scheduler_->Cancel(&job);
}

void JobWithdrawal::AnswerWithdrawn(const std::vector<JobRows>& rows, absl::string_view model) {
  if (rows.empty()) return;
  // Answered without the lock: the last rows complete the job, whose Complete calls Ended.
  // Nothing of the job's owner is touched from here on (the answer may destroy it).
  const absl::Status cancelled = CancelledWhileQueuedError(model);
  // Cancel hands back one part per job (its retry, or what the main queue held of it).
  for (const JobRows& part : rows) AnswerRows(part, cancelled, ExecutionTiming{});
}

void JobWithdrawal::Ended() {
  MutexLock lock(&mutex_);
  scheduler_ = nullptr;
}

}  // namespace neuronserve
