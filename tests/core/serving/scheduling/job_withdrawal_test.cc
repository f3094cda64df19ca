// JobWithdrawal::Submit and a job cancelled while it is being submitted, which a worker takes
// and completes at once: Submit must not touch the job, or its own object (which the job's owner
// holds), once the worker may have completed it. The owner is freed on completion in the server;
// here its storage is reused at once for the next request, as an allocator would reuse it, so
// that a touch after completion shows as a call on the next request's scheduler rather than as
// a use after free only AddressSanitizer would see. (The ASan soak of c1cc4aa found the touch
// that a350243 removed: Submit released its lock, then locked again to take the job back.)
//
// The other JobWithdrawal cases (before, during and after a worker takes a job; under
// ThreadSanitizer) are in queue_withdrawal_test.cc.
#include "core/serving/scheduling/job_withdrawal.h"

#include <pthread.h>
#include <sched.h>

#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "core/serving/request/job_rows.h"
#include "core/serving/scheduling/scheduler.h"
#include "gtest/gtest.h"
#include "tests/core/serving/infer_test_job.h"

namespace neuronserve {
namespace job_withdrawal_test {
namespace {

using ::neuronserve::testing::WithdrawableJob;

// A scheduler holding at most one job: Submit keeps it, then calls `on_submit` with it (the
// test's hook, with no lock of the scheduler held); Take hands it to a worker as Next would;
// Cancel gives it back while it is held. Counts the Cancel calls. Thread-safe.
class OneJobScheduler : public Scheduler {
 public:
  explicit OneJobScheduler(std::function<void(InferenceJob*)> on_submit = nullptr)
      : on_submit_(std::move(on_submit)) {}

  absl::Status Submit(InferenceJob* job) override {
    {
      MutexLock lock(&mutex_);
      held_ = job;
    }
    if (on_submit_) on_submit_(job);
    return absl::OkStatus();
  }
  // The held job, now a worker's (null when none is held).
  InferenceJob* Take() {
    MutexLock lock(&mutex_);
    return std::exchange(held_, nullptr);
  }
  std::vector<JobRows> Cancel(const InferenceJob* job) override {
    MutexLock lock(&mutex_);
    ++cancels_;
    if (held_ == nullptr || held_ != job) return {};
    InferenceJob* taken = std::exchange(held_, nullptr);
    return {JobRows{taken, 0, taken->rows}};
  }
  int cancels() const {
    MutexLock lock(&mutex_);
    return cancels_;
  }

  bool Next(const ModelReplica&, absl::Time, ExecutionUnit&, absl::Time*) override {
    return false;
  }
  void Executed(size_t, uint32_t, absl::Duration) override {}
  bool Requeue(InferenceJob*, const ModelReplica&) override { return false; }
  std::vector<JobRows> Close(absl::StatusCode, std::string) override { return {}; }
  std::vector<JobRows> ReplicaLost(const std::string&) override { return {}; }
  size_t depth() const override {
    MutexLock lock(&mutex_);
    return held_ != nullptr ? 1 : 0;
  }
  size_t capacity() const override { return 1; }
  size_t healthy_replicas() const override { return 1; }
  bool closed() const override { return false; }

 private:
  const std::function<void(InferenceJob*)> on_submit_;
  mutable Mutex mutex_;
  InferenceJob* held_ ABSL_GUARDED_BY(mutex_) = nullptr;
  int cancels_ ABSL_GUARDED_BY(mutex_) = 0;
};

// A job handed from the thread in Submit to a worker: Give waits until the worker has taken
// it out of the scheduler, so the job is the worker's when Submit goes on. Thread-safe.
class HandOff {
 public:
  void Give(InferenceJob* job) {
    MutexLock lock(&mutex_);
    given_ = job;
    changed_.NotifyAll();
    changed_.Wait(&mutex_, [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return taken_; });
  }
  // Waits for the job, then takes it from `scheduler` as a worker's Next would.
  InferenceJob* Take(OneJobScheduler& scheduler) {
    MutexLock lock(&mutex_);
    changed_.Wait(&mutex_,
                  [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return given_ != nullptr; });
    InferenceJob* job = scheduler.Take();
    taken_ = true;
    changed_.NotifyAll();
    return job;
  }

 private:
  Mutex mutex_;
  CondVar changed_;
  InferenceJob* given_ ABSL_GUARDED_BY(mutex_) = nullptr;
  bool taken_ ABSL_GUARDED_BY(mutex_) = false;
};

// Pins the calling thread to `cpu` (best effort: the test holds without it, it may only catch
// less of a wrong order).
void PinTo(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  (void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

// The first CPU this process may run on.
int FirstAllowedCpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) return cpu;
  }
  return 0;
}

// One round: a request whose job is cancelled during its Submit and completed at once by a
// worker, which then reuses the owner's storage for the next request.
void CancelledDuringSubmitRound() {
  // The owner of the request, whose storage is reused once its job completes.
  std::optional<WithdrawableJob> slot;
  slot.emplace();
  // The next request, on a scheduler of its own: any call from the first Submit that reaches
  // it is a touch of the first request's storage after the job was completed.
  OneJobScheduler next_scheduler;

  HandOff hand_off;
  absl::StatusCode first_code = absl::StatusCode::kUnknown;
  int first_completions = 0;
  // Submit cancels the job (its caller gives up right then) and hands it to the worker, and
  // returns once the worker has taken it: the job is the worker's while Submit goes on.
  OneJobScheduler first_scheduler([&](InferenceJob* job) {
    slot->cancelled.store(true);
    hand_off.Give(job);
  });

  const int cpu = FirstAllowedCpu();
  std::thread worker([&] {
    PinTo(cpu);
    InferenceJob* job = hand_off.Take(first_scheduler);
    ASSERT_EQ(job, &*slot);
    // Completes it at once; its Complete calls Ended, which waits for Submit's lock.
    AnswerRows(JobRows{job, 0, job->rows}, absl::OkStatus(), ExecutionTiming{});
    first_code = slot->code.load();
    first_completions = slot->completions.load();
    // The owner lets go of the request; its storage goes to the next one, queued at once.
    slot.reset();
    slot.emplace();
    EXPECT_TRUE(slot->withdrawal.Submit(next_scheduler, *slot, "next").ok());
  });

  absl::Status submitted = absl::UnknownError("not submitted");
  std::thread submitter([&] {
    // On the worker's CPU at the idle policy: the moment Submit lets its lock go, the worker
    // (waiting for it in Ended) runs to the end of its completion before Submit goes on. The
    // order a loaded machine may choose, made the one this test almost always sees (the idle
    // policy is a tiny share of the CPU, not none: the test runs several rounds).
    PinTo(cpu);
    sched_param idle{};
    (void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
    submitted = slot->withdrawal.Submit(first_scheduler, *slot, "first");
  });
  submitter.join();
  worker.join();

  EXPECT_TRUE(submitted.ok()) << submitted;
  // The worker answered the job, once: Submit found nothing to take back.
  EXPECT_EQ(first_code, absl::StatusCode::kOk);
  EXPECT_EQ(first_completions, 1);
  EXPECT_EQ(first_scheduler.depth(), 0u);
  // Nothing of the first Submit reached the next request: it is queued, unanswered.
  EXPECT_EQ(next_scheduler.cancels(), 0);
  EXPECT_EQ(next_scheduler.depth(), 1u);
  EXPECT_EQ(slot->completions.load(), 0);
  // The next request ends as any would.
  slot->cancelled.store(true);
  EXPECT_TRUE(slot->withdrawal.Withdraw(*slot));
  EXPECT_EQ(slot->code.load(), absl::StatusCode::kCancelled);
}

TEST(JobWithdrawalSubmitTest, AJobCancelledDuringItsSubmitAndCompletedAtOnceIsNotTouchedAfter) {
  // At a350243^ (Submit took the job back after a second locking) a round sees the touch about
  // 29 times in 30 on a loaded 2-core machine; 20 rounds make a miss of every one negligible.
  constexpr int kRounds = 20;
  for (int round = 0; round < kRounds && !HasFailure(); ++round) {
    SCOPED_TRACE(::testing::Message() << "round " << round);
    CancelledDuringSubmitRound();
  }
}

}  // namespace
}  // namespace job_withdrawal_test
}  // namespace neuronserve
