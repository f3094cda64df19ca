// Cancellation frees the slot at once, and the queued bytes are bounded: Scheduler::Cancel on
// both schedulers (a queued job, a retry, a split request with a range already running),
// JobWithdrawal (the front ends' way to cancel: before, during and after a worker takes the
// job), and QueuedBytesBudget (the overload answer when the queues hold their most bytes, and
// the bytes given back on every way out of a queue). The concurrent cases run under
// ThreadSanitizer: every job is answered exactly once and the budget returns to zero.
#include <atomic>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "core/serving/model/loaded_model.h"
#include "core/serving/request/job_rows.h"
#include "core/serving/scheduling/dynamic_batcher.h"
#include "core/serving/scheduling/fifo_scheduler.h"
#include "core/serving/scheduling/job_withdrawal.h"
#include "core/serving/scheduling/queued_bytes_budget.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/serving/infer_test_job.h"

namespace neuronserve {
namespace queue_withdrawal_test {
namespace {

using ::neuronserve::testing::BatchSizes;
using ::neuronserve::testing::SchedulerJob;
using ::neuronserve::testing::WithdrawableJob;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

ModelReplica replica_a;
ModelReplica replica_b;

bool TakeUnit(Scheduler& scheduler, ExecutionUnit& unit, const ModelReplica& replica = replica_a) {
  absl::Time look_again_at = absl::InfiniteFuture();
  return scheduler.Next(replica, absl::Now(), unit, &look_again_at);
}

TEST(SchedulerCancelTest, AQueuedJobLeavesAtOnceAndItsSlotIsFree) {
  FifoScheduler queue("m", 2, 1, {});
  SchedulerJob first(1), second(2), third(3);
  ASSERT_TRUE(queue.Submit(&first).ok());
  ASSERT_TRUE(queue.Submit(&second).ok());
  EXPECT_EQ(queue.Submit(&third).code(), absl::StatusCode::kUnavailable);  // full

  const std::vector<JobRows> taken = queue.Cancel(&first);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].job, &first);
  EXPECT_EQ(taken[0].rows, 1u);
  EXPECT_EQ(queue.depth(), 1u);
  EXPECT_TRUE(queue.Submit(&third).ok());        // the slot is free
  EXPECT_THAT(queue.Cancel(&first), IsEmpty());  // no longer held
  ExecutionUnit unit;
  ASSERT_TRUE(TakeUnit(queue, unit));
  EXPECT_EQ(unit.parts[0].job, &second);          // the others keep their order
  EXPECT_THAT(queue.Cancel(&second), IsEmpty());  // a worker has it
}

TEST(SchedulerCancelTest, ARetryIsTakenBackToo) {
  FifoScheduler queue("m", 2, 2, {});
  SchedulerJob job(1);
  ASSERT_TRUE(queue.Submit(&job).ok());
  ExecutionUnit unit;
  ASSERT_TRUE(TakeUnit(queue, unit));
  ASSERT_TRUE(queue.Requeue(&job, replica_a));
  EXPECT_EQ(queue.depth(), 1u);
  ASSERT_EQ(queue.Cancel(&job).size(), 1u);
  EXPECT_EQ(queue.depth(), 0u);
  EXPECT_FALSE(TakeUnit(queue, unit, replica_b));
}

TEST(SchedulerCancelTest, TheBatcherGivesBackWhatItHoldsAndKeepsItsRowCountRight) {
  DynamicBatcher batcher("m", BatchSizes({1, 4}), 16, 1, {});
  SchedulerJob big(1, 10), small(2, 3), last(3, 1);
  ASSERT_TRUE(batcher.Submit(&big).ok());
  ASSERT_TRUE(batcher.Submit(&small).ok());
  ASSERT_TRUE(batcher.Submit(&last).ok());
  ExecutionUnit unit;
  ASSERT_TRUE(TakeUnit(batcher, unit));  // rows 0-3 of the split request
  ASSERT_EQ(unit.parts.size(), 1u);
  const JobRows running = unit.parts[0];

  // The split request keeps its running range; rows 4-9 come back as one range.
  const std::vector<JobRows> rest = batcher.Cancel(&big);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].first_row, 4u);
  EXPECT_EQ(rest[0].rows, 6u);
  AnswerRows(rest[0], absl::CancelledError("gone"), {});
  EXPECT_EQ(big.completions.load(), 0);  // its running range has not ended
  AnswerRows(running, absl::OkStatus(), {});
  EXPECT_EQ(big.completions.load(), 1);
  EXPECT_EQ(big.code.load(), absl::StatusCode::kCancelled);

  ASSERT_EQ(batcher.Cancel(&small).size(), 1u);
  // What is left is one row: the next unit is the smallest variant with the last request.
  ASSERT_TRUE(TakeUnit(batcher, unit));
  EXPECT_EQ(unit.variant, 0u);
  ASSERT_EQ(unit.parts.size(), 1u);
  EXPECT_EQ(unit.parts[0].job, &last);
  EXPECT_EQ(batcher.depth(), 0u);
}

TEST(QueuedBytesBudgetTest, RefusesPastTheLimitAndAdmitsAnyRequestWhenNothingIsHeld) {
  QueuedBytesBudget budget(100);
  EXPECT_TRUE(budget.TryAdd(60));
  EXPECT_FALSE(budget.TryAdd(41));
  EXPECT_TRUE(budget.TryAdd(40));
  EXPECT_EQ(budget.held(), 100u);
  budget.Remove(100);
  EXPECT_TRUE(budget.TryAdd(500));  // larger than the limit, but alone
  EXPECT_FALSE(budget.TryAdd(1));
  budget.Remove(500);
  QueuedBytesBudget unlimited(0);
  EXPECT_TRUE(unlimited.TryAdd(uint64_t{1} << 40));
  EXPECT_TRUE(unlimited.TryAdd(uint64_t{1} << 40));
}

TEST(QueuedBytesBudgetTest, SchedulersAnswerTheOverloadAndGiveBytesBackOnEveryWayOut) {
  QueuedBytesBudget budget(1000);
  FifoScheduler fifo("resnet", 64, 1, {}, &budget);
  DynamicBatcher batcher("bert", BatchSizes({1, 4}), 64, 1, {}, &budget);
  WithdrawableJob a(400), b(400), c(400), d(100);
  ASSERT_TRUE(fifo.Submit(&a).ok());
  ASSERT_TRUE(batcher.Submit(&b).ok());
  const absl::Status refused = fifo.Submit(&c);
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(refused.message(), HasSubstr("model 'resnet'"));
  EXPECT_THAT(refused.message(), HasSubstr("400 input bytes"));
  EXPECT_THAT(refused.message(), HasSubstr("800 of 1000 bytes"));
  EXPECT_THAT(refused.message(), HasSubstr("--max-queued-bytes"));
  EXPECT_EQ(budget.held(), 800u);

  ExecutionUnit unit;
  ASSERT_TRUE(TakeUnit(fifo, unit));  // taken by a worker: no longer queued
  EXPECT_EQ(budget.held(), 400u);
  ASSERT_TRUE(fifo.Submit(&c).ok());
  EXPECT_EQ(budget.held(), 800u);
  ASSERT_EQ(fifo.Cancel(&c).size(), 1u);  // cancelled
  EXPECT_EQ(budget.held(), 400u);
  ASSERT_TRUE(batcher.Submit(&d).ok());
  EXPECT_EQ(batcher.Close(absl::StatusCode::kUnavailable, "unloading").size(), 2u);  // closed
  EXPECT_EQ(budget.held(), 0u);
}

TEST(QueuedBytesBudgetTest, ASplitRequestHoldsItsBytesUntilItsLastRowsAreTaken) {
  QueuedBytesBudget budget(0);
  DynamicBatcher batcher("m", BatchSizes({2}), 8, 1, {}, &budget);
  WithdrawableJob big(600, 5);
  ASSERT_TRUE(batcher.Submit(&big).ok());
  ExecutionUnit unit;
  ASSERT_TRUE(TakeUnit(batcher, unit));
  ASSERT_TRUE(TakeUnit(batcher, unit));
  EXPECT_EQ(budget.held(), 600u);  // its request is still whole in memory
  ASSERT_TRUE(TakeUnit(batcher, unit));
  EXPECT_EQ(budget.held(), 0u);
}

TEST(JobWithdrawalTest, AQueuedJobIsAnsweredCancelledAtOnceNamingTheModel) {
  FifoScheduler queue("resnet", 4, 1, {});
  WithdrawableJob job;
  ASSERT_TRUE(job.withdrawal.Submit(queue, job, "resnet").ok());
  job.cancelled.store(true);
  EXPECT_TRUE(job.withdrawal.Withdraw(job));
  EXPECT_EQ(job.completions.load(), 1);
  EXPECT_EQ(job.code.load(), absl::StatusCode::kCancelled);
  EXPECT_EQ(job.message(), "model 'resnet': the request was cancelled while queued");
  EXPECT_EQ(queue.depth(), 0u);
  EXPECT_FALSE(job.withdrawal.Withdraw(job));  // ended: nothing more
  EXPECT_EQ(job.completions.load(), 1);
}

TEST(JobWithdrawalTest, AJobCancelledBeforeItWasSubmittedIsWithdrawnBySubmit) {
  FifoScheduler queue("m", 4, 1, {});
  WithdrawableJob job;
  job.cancelled.store(true);
  EXPECT_TRUE(job.withdrawal.Submit(queue, job, "m").ok());
  EXPECT_EQ(job.completions.load(), 1);
  EXPECT_EQ(job.code.load(), absl::StatusCode::kCancelled);
  EXPECT_EQ(queue.depth(), 0u);
}

TEST(JobWithdrawalTest, AJobAWorkerHoldsIsLeftToTheWorker) {
  FifoScheduler queue("m", 4, 1, {});
  WithdrawableJob job;
  ASSERT_TRUE(job.withdrawal.Submit(queue, job, "m").ok());
  ExecutionUnit unit;
  ASSERT_TRUE(TakeUnit(queue, unit));
  job.cancelled.store(true);
  EXPECT_FALSE(job.withdrawal.Withdraw(job));
  EXPECT_EQ(job.completions.load(), 0);
  AnswerRows(unit.parts[0], absl::OkStatus(), {});  // the worker answers
  EXPECT_EQ(job.completions.load(), 1);
}

TEST(JobWithdrawalTest, ARefusedSubmitKeepsNothingToWithdraw) {
  FifoScheduler queue("m", 4, 1, {});
  queue.Close(absl::StatusCode::kUnavailable, "unloading");
  WithdrawableJob job;
  EXPECT_EQ(job.withdrawal.Submit(queue, job, "m").code(), absl::StatusCode::kUnavailable);
  job.cancelled.store(true);
  EXPECT_FALSE(job.withdrawal.Withdraw(job));
  EXPECT_EQ(job.completions.load(), 0);
}

// Submitters, workers and cancellers on both schedulers at once: every job is answered exactly
// once (by a worker or by its withdrawal), and the bytes budget ends at zero.
void RunConcurrentCancellation(Scheduler& scheduler, QueuedBytesBudget& budget, uint32_t rows) {
  constexpr int kJobs = 600;
  std::vector<std::unique_ptr<WithdrawableJob>> jobs;
  for (int i = 0; i < kJobs; ++i) jobs.push_back(std::make_unique<WithdrawableJob>(64, rows));
  std::atomic<int> submitted{0};
  std::atomic<bool> submitting{true};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < kJobs; i += 2) {
        WithdrawableJob& job = *jobs[i];
        if (job.withdrawal.Submit(scheduler, job, "m").ok()) {
          submitted.fetch_add(1);
        } else {
          job.Complete(absl::UnavailableError("refused"), {});  // as a front end answers
        }
      }
    });
  }
  std::thread canceller([&] {
    std::mt19937 random(7);
    while (submitting.load()) {
      WithdrawableJob& job = *jobs[random() % kJobs];
      job.cancelled.store(true);
      job.withdrawal.Withdraw(job);
    }
  });
  std::vector<std::thread> workers;
  std::atomic<bool> working{true};
  for (const ModelReplica* replica : {&replica_a, &replica_b}) {
    workers.emplace_back([&, replica] {
      ExecutionUnit unit;
      while (working.load()) {
        if (!TakeUnit(scheduler, unit, *replica)) {
          std::this_thread::yield();
          continue;
        }
        for (const JobRows& part : unit.parts) {
          AnswerRows(part, part.job->Cancelled() ? absl::CancelledError("late") : absl::OkStatus(),
                     {});
        }
      }
    });
  }
  threads[0].join();
  threads[1].join();
  submitting.store(false);
  canceller.join();
  // Whatever is still queued is taken by the workers; wait (with a deadline) for every answer.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  auto all_answered = [&] {
    for (const auto& job : jobs) {
      if (job->completions.load() == 0) return false;
    }
    return true;
  };
  while (!all_answered() && absl::Now() < deadline) std::this_thread::yield();
  working.store(false);
  for (std::thread& worker : workers) worker.join();
  for (const auto& job : jobs) EXPECT_EQ(job->completions.load(), 1);
  EXPECT_EQ(scheduler.depth(), 0u);
  EXPECT_EQ(budget.held(), 0u);
  EXPECT_GT(submitted.load(), 0);
}

TEST(JobWithdrawalConcurrencyTest, EveryJobIsAnsweredOnceOnTheFifoScheduler) {
  QueuedBytesBudget budget(64 * 100);
  FifoScheduler queue("m", 1000, 2, {}, &budget);
  RunConcurrentCancellation(queue, budget, 1);
}

TEST(JobWithdrawalConcurrencyTest, EveryJobIsAnsweredOnceOnTheBatcherWithSplitRequests) {
  QueuedBytesBudget budget(64 * 100);
  DynamicBatcher batcher("m", BatchSizes({1, 2}), 1000, 2, {}, &budget);
  RunConcurrentCancellation(batcher, budget, 3);  // 3 rows: every request is split
}

}  // namespace
}  // namespace queue_withdrawal_test
}  // namespace neuronserve
