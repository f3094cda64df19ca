// DynamicBatcher without a device: which variant it picks, what it gathers, when it waits, how
// it splits a large request and hands everything back on Close, and (under ThreadSanitizer)
// that many submitters and workers see every row of every request exactly once.
#include "core/serving/scheduling/dynamic_batcher.h"

#include <atomic>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "base/mutex.h"
#include "core/serving/model/loaded_model.h"
#include "core/serving/request/job_rows.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/serving/infer_test_job.h"

namespace neuronserve {
namespace {

using testing::BatchSizes;
using testing::CountingDoorbell;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::SchedulerJob;

ModelReplica first_replica;
ModelReplica second_replica;

// The next unit for `replica` at `now`; `*wait` gets what the batcher asked for.
bool TakeUnit(DynamicBatcher& batcher, ExecutionUnit& unit, absl::Time now = absl::Now(),
              absl::Time* wait = nullptr, const ModelReplica& replica = first_replica) {
  absl::Time look_again_at = absl::InfiniteFuture();
  const bool taken = batcher.Next(replica, now, unit, &look_again_at);
  if (wait != nullptr) *wait = look_again_at;
  return taken;
}

std::vector<int> JobIds(const ExecutionUnit& unit) {
  std::vector<int> ids;
  for (const JobRows& part : unit.parts) ids.push_back(static_cast<SchedulerJob*>(part.job)->id);
  return ids;
}

TEST(DynamicBatcherTest, ALoneRowRunsAtOnceOnTheSmallestVariant) {
  DynamicBatcher batcher("m", BatchSizes({8, 1, 4}), 16, 1, {});
  SchedulerJob job(1, 1);
  ASSERT_TRUE(batcher.Submit(&job).ok());
  ExecutionUnit unit;
  absl::Time wait;
  ASSERT_TRUE(TakeUnit(batcher, unit, absl::Now(), &wait));
  EXPECT_EQ(unit.variant, 1u);  // the batch-1 variant
  EXPECT_THAT(JobIds(unit), ElementsAre(1));
  EXPECT_EQ(wait, absl::InfiniteFuture());
  EXPECT_FALSE(TakeUnit(batcher, unit));
  EXPECT_TRUE(unit.parts.empty());
}

TEST(DynamicBatcherTest, AQueueOfRowsFillsTheLargestVariantOldestFirst) {
  DynamicBatcher batcher("m", BatchSizes({1, 4, 8}), 16, 1, {});
  std::vector<std::unique_ptr<SchedulerJob>> jobs;
  for (int i = 0; i < 10; ++i) {
    jobs.push_back(std::make_unique<SchedulerJob>(i, 1));
    ASSERT_TRUE(batcher.Submit(jobs.back().get()).ok());
  }
  ExecutionUnit unit;
  ASSERT_TRUE(TakeUnit(batcher, unit));
  EXPECT_EQ(unit.variant, 2u);
  EXPECT_THAT(JobIds(unit), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
  EXPECT_EQ(unit.rows(), 8u);
  // Two rows left: with nothing measured every variant costs the same per execution, so the
  // batch-4 variant (2 useful rows) beats the batch-1 one (1), and ties with the batch-8 one,
  // which loses as the larger.
  ASSERT_TRUE(TakeUnit(batcher, unit));
  EXPECT_EQ(unit.variant, 1u);
  EXPECT_THAT(JobIds(unit), ElementsAre(8, 9));
  EXPECT_EQ(batcher.depth(), 0u);
}

TEST(DynamicBatcherTest, TheVariantWithTheLeastMeasuredTimePerUsefulRowWins) {
  DynamicBatcher batcher("m", BatchSizes({1, 8}), 16, 1, {});
  batcher.Executed(0, 1, absl::Milliseconds(1));
  batcher.Executed(1, 8, absl::Milliseconds(2));
  EXPECT_EQ(batcher.ChooseVariant(1, 1), 0u);  // 1 ms per row against 2 ms
  EXPECT_EQ(batcher.ChooseVariant(2, 1), 0u);  // 1 ms against 1 ms: the smaller batch
  EXPECT_EQ(batcher.ChooseVariant(3, 1), 1u);  // 1 ms against 0.67 ms
  EXPECT_EQ(batcher.ChooseVariant(64, 1), 1u);
  // The batch-8 variant becomes slow (a moving average: it takes a few executions).
  for (int i = 0; i < 30; ++i) batcher.Executed(1, 8, absl::Milliseconds(20));
  EXPECT_EQ(batcher.ChooseVariant(3, 1), 0u);
  EXPECT_EQ(batcher.ChooseVariant(64, 1), 0u);  // 2.5 ms per row against 1 ms
}

TEST(DynamicBatcherTest, AnUnmeasuredVariantIsAssumedAsFastAsTheFastestMeasuredOne) {
  DynamicBatcher batcher("m", BatchSizes({1, 8}), 16, 1, {});
  batcher.Executed(0, 1, absl::Milliseconds(3));
  EXPECT_EQ(batcher.ChooseVariant(2, 1), 1u);  // tried once it would be useful
  EXPECT_EQ(batcher.ChooseVariant(1, 1), 0u);
}

TEST(DynamicBatcherTest, OnlyVariantsThatHoldTheOldestRequestAreCandidates) {
  DynamicBatcher batcher("m", BatchSizes({1, 4}), 16, 1, {});
  batcher.Executed(0, 1, absl::Microseconds(10));
  batcher.Executed(1, 4, absl::Milliseconds(10));
  SchedulerJob three(1, 3);
  ASSERT_TRUE(batcher.Submit(&three).ok());
  ExecutionUnit unit;
  ASSERT_TRUE(TakeUnit(batcher, unit));
  EXPECT_EQ(unit.variant, 1u);  // batch 1 is cheaper per row but cannot hold 3 rows
  EXPECT_THAT(JobIds(unit), ElementsAre(1));
}

TEST(DynamicBatcherTest, ARequestThatDoesNotFitWaitsAndIsNotOvertaken) {
  DynamicBatcher batcher("m", BatchSizes({4}), 16, 1, {});
  SchedulerJob three(1, 3), two(2, 2), one(3, 1);
  ASSERT_TRUE(batcher.Submit(&three).ok());
  ASSERT_TRUE(batcher.Submit(&two).ok());
  ASSERT_TRUE(batcher.Submit(&one).ok());
  ExecutionUnit unit;
  ASSERT_TRUE(TakeUnit(batcher, unit));
  EXPECT_THAT(JobIds(unit), ElementsAre(1));  // `one` would fit beside it, but `two` is older
  ASSERT_TRUE(TakeUnit(batcher, unit));
  EXPECT_THAT(JobIds(unit), ElementsAre(2, 3));
  EXPECT_EQ(unit.parts[0].first_row, 0u);
  EXPECT_EQ(unit.parts[0].rows, 2u);
  EXPECT_EQ(unit.parts[1].rows, 1u);
}

TEST(DynamicBatcherTest, ARequestLargerThanTheLargestVariantRunsInRangesAndCompletesOnce) {
  DynamicBatcher batcher("m", BatchSizes({1, 4}), 16, 1, {});
  SchedulerJob big(1, 10), after(2, 1);
  ASSERT_TRUE(batcher.Submit(&big).ok());
  ASSERT_TRUE(batcher.Submit(&after).ok());
  ASSERT_NE(big.row_ranges, nullptr);
  EXPECT_EQ(after.row_ranges, nullptr);

  std::vector<JobRows> ranges;
  ExecutionUnit unit;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(TakeUnit(batcher, unit));
    EXPECT_EQ(unit.variant, 1u);
    ASSERT_FALSE(unit.parts.empty());
    ranges.push_back(unit.parts[0]);
    if (i < 2) {
      EXPECT_EQ(unit.parts.size(), 1u);
    }
  }
  // Rows 0-3, 4-7, then 8-9 with the next request beside them.
  EXPECT_EQ(ranges[0].first_row, 0u);
  EXPECT_EQ(ranges[0].rows, 4u);
  EXPECT_EQ(ranges[1].first_row, 4u);
  EXPECT_EQ(ranges[1].rows, 4u);
  EXPECT_EQ(ranges[2].first_row, 8u);
  EXPECT_EQ(ranges[2].rows, 2u);
  EXPECT_THAT(JobIds(unit), ElementsAre(1, 2));

  // Answered out of order: only the last range completes the request, with the first error.
  AnswerRows(ranges[1], absl::OkStatus(), {});
  AnswerRows(ranges[0], absl::InternalError("range 0 failed"), {});
  EXPECT_EQ(big.completions.load(), 0);
  EXPECT_TRUE(big.row_ranges->failed());
  AnswerRows(ranges[2], absl::DataLossError("later"), {});
  EXPECT_EQ(big.completions.load(), 1);
  EXPECT_EQ(big.code.load(), absl::StatusCode::kInternal);
}

TEST(DynamicBatcherTest, AFreeCoreWaitsForAPreferredBatchWithinTheDelayOnly) {
  BatchingPolicy policy = BatchSizes({1, 4});
  policy.preferred_batch_sizes = {4};
  policy.max_queue_delay = absl::Milliseconds(50);
  CountingDoorbell bell;
  DynamicBatcher batcher("m", policy, 16, 1, {&bell});
  SchedulerJob first(1, 1), second(2, 1), third(3, 1), fourth(4, 1);
  ASSERT_TRUE(batcher.Submit(&first).ok());
  const absl::Time arrived = first.enqueued_at;

  ExecutionUnit unit;
  absl::Time wait;
  EXPECT_FALSE(TakeUnit(batcher, unit, arrived + absl::Milliseconds(10), &wait));
  EXPECT_EQ(wait, arrived + absl::Milliseconds(50));  // measured from the oldest arrival
  ASSERT_TRUE(batcher.Submit(&second).ok());
  EXPECT_FALSE(TakeUnit(batcher, unit, arrived + absl::Milliseconds(20), &wait));
  EXPECT_EQ(wait, arrived + absl::Milliseconds(50));
  // The delay is over: what is there runs.
  ASSERT_TRUE(TakeUnit(batcher, unit, arrived + absl::Milliseconds(50), &wait));
  EXPECT_THAT(JobIds(unit), ElementsAre(1, 2));
  EXPECT_EQ(wait, absl::InfiniteFuture());

  // A preferred batch runs at once, before any delay.
  ASSERT_TRUE(batcher.Submit(&third).ok());
  SchedulerJob fifth(5, 1), sixth(6, 1);
  ASSERT_TRUE(batcher.Submit(&fourth).ok());
  ASSERT_TRUE(batcher.Submit(&fifth).ok());
  ASSERT_TRUE(batcher.Submit(&sixth).ok());
  ASSERT_TRUE(TakeUnit(batcher, unit, third.enqueued_at));
  EXPECT_THAT(JobIds(unit), ElementsAre(3, 4, 5, 6));
  EXPECT_EQ(bell.rings(), 6);  // every submit rang
}

TEST(DynamicBatcherTest, ARequestWhoseDeadlineIsShorterThanTheDelayIsNotHeld) {
  BatchingPolicy policy = BatchSizes({1, 8});
  policy.max_queue_delay = absl::Milliseconds(100);
  DynamicBatcher batcher("m", policy, 16, 1, {});
  SchedulerJob patient(1, 1), hurried(2, 1);
  ASSERT_TRUE(batcher.Submit(&patient).ok());
  ExecutionUnit unit;
  EXPECT_FALSE(TakeUnit(batcher, unit, patient.enqueued_at));
  hurried.deadline = absl::Now() + absl::Milliseconds(20);
  ASSERT_TRUE(batcher.Submit(&hurried).ok());
  ASSERT_TRUE(TakeUnit(batcher, unit, hurried.enqueued_at));
  EXPECT_THAT(JobIds(unit), ElementsAre(1, 2));
  // With the hurried one gone, a patient request is held again.
  SchedulerJob later(3, 1);
  ASSERT_TRUE(batcher.Submit(&later).ok());
  EXPECT_FALSE(TakeUnit(batcher, unit, later.enqueued_at));
}

TEST(DynamicBatcherTest, TheDefaultTimeoutBoundsTheDeadlineUnlessTheRequestMayOverrideIt) {
  BatchingPolicy policy = BatchSizes({1});
  policy.default_timeout = absl::Milliseconds(30);
  DynamicBatcher strict("m", policy, 16, 1, {});
  SchedulerJob none(1, 1), longer(2, 1);
  longer.deadline = absl::Now() + absl::Seconds(10);
  ASSERT_TRUE(strict.Submit(&none).ok());
  ASSERT_TRUE(strict.Submit(&longer).ok());
  EXPECT_EQ(none.deadline, none.enqueued_at + absl::Milliseconds(30));
  EXPECT_EQ(longer.deadline, longer.enqueued_at + absl::Milliseconds(30));

  policy.allow_timeout_override = true;
  DynamicBatcher lenient("m", policy, 16, 1, {});
  SchedulerJob default_one(3, 1), own(4, 1);
  const absl::Time own_deadline = absl::Now() + absl::Seconds(10);
  own.deadline = own_deadline;
  ASSERT_TRUE(lenient.Submit(&default_one).ok());
  ASSERT_TRUE(lenient.Submit(&own).ok());
  EXPECT_EQ(default_one.deadline, default_one.enqueued_at + absl::Milliseconds(30));
  EXPECT_EQ(own.deadline, own_deadline);
}

TEST(DynamicBatcherTest, AFullQueueRefusesAndARequestWithoutRowsIsInvalid) {
  DynamicBatcher batcher("resnet", BatchSizes({1}), 2, 1, {});
  SchedulerJob a(1, 1), b(2, 1), c(3, 1), empty(4, 0);
  ASSERT_TRUE(batcher.Submit(&a).ok());
  ASSERT_TRUE(batcher.Submit(&b).ok());
  absl::Status full = batcher.Submit(&c);
  EXPECT_EQ(full.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(full.message(), HasSubstr("model 'resnet'"));
  EXPECT_EQ(batcher.Submit(&empty).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(batcher.depth(), 2u);
}

TEST(DynamicBatcherTest, RetriesRunFirstAloneAndNotOnTheReplicaThatFailedThem) {
  DynamicBatcher batcher("m", BatchSizes({1, 4}), 16, 2, {});
  SchedulerJob queued(1, 1), retried(2, 2);
  ASSERT_TRUE(batcher.Submit(&queued).ok());
  ASSERT_TRUE(batcher.Requeue(&retried, first_replica));
  ExecutionUnit unit;
  ASSERT_TRUE(TakeUnit(batcher, unit, absl::Now(), nullptr, first_replica));
  EXPECT_THAT(JobIds(unit), ElementsAre(1));  // replica a failed the retry: it gets the queue
  ASSERT_TRUE(TakeUnit(batcher, unit, absl::Now(), nullptr, second_replica));
  EXPECT_THAT(JobIds(unit), ElementsAre(2));
  EXPECT_EQ(unit.variant, 1u);  // the smallest variant that holds its 2 rows
}

TEST(DynamicBatcherTest, CloseHandsBackEveryHeldRowAndASplitRequestCompletesOnce) {
  DynamicBatcher batcher("m", BatchSizes({4}), 16, 1, {});
  SchedulerJob big(1, 9), small(2, 1), retried(3, 1);
  ASSERT_TRUE(batcher.Submit(&big).ok());
  ASSERT_TRUE(batcher.Submit(&small).ok());
  ASSERT_TRUE(batcher.Requeue(&retried, second_replica));
  ExecutionUnit unit;
  ASSERT_TRUE(TakeUnit(batcher, unit));  // the retry
  EXPECT_THAT(JobIds(unit), ElementsAre(3));
  ASSERT_TRUE(TakeUnit(batcher, unit));  // rows 0-3 of the big one, now "executing"
  const JobRows executing = unit.parts[0];
  EXPECT_EQ(executing.rows, 4u);

  std::vector<JobRows> held = batcher.Close(absl::StatusCode::kUnavailable, "unloaded");
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[0].job, &big);
  EXPECT_EQ(held[0].first_row, 4u);
  EXPECT_EQ(held[0].rows, 5u);
  EXPECT_EQ(held[1].job, &small);
  EXPECT_TRUE(batcher.closed());
  EXPECT_EQ(batcher.depth(), 0u);
  for (const JobRows& rows : held) AnswerRows(rows, absl::UnavailableError("unloaded"), {});
  EXPECT_EQ(small.completions.load(), 1);
  EXPECT_EQ(big.completions.load(), 0);  // its first range is still on the device
  AnswerRows(executing, absl::OkStatus(), {});
  EXPECT_EQ(big.completions.load(), 1);
  EXPECT_EQ(big.code.load(), absl::StatusCode::kUnavailable);

  SchedulerJob late(4, 1);
  EXPECT_EQ(batcher.Submit(&late).code(), absl::StatusCode::kUnavailable);
  EXPECT_FALSE(batcher.Requeue(&late, first_replica));
  EXPECT_THAT(batcher.Close(absl::StatusCode::kCancelled, "again"), IsEmpty());
}

TEST(DynamicBatcherTest, LosingTheLastReplicaClosesWithUnavailable) {
  DynamicBatcher batcher("bert", BatchSizes({2}), 16, 2, {});
  SchedulerJob job(1, 1);
  ASSERT_TRUE(batcher.Submit(&job).ok());
  EXPECT_THAT(batcher.ReplicaLost("core 0: NRT_HW_ERROR"), IsEmpty());
  std::vector<JobRows> stranded = batcher.ReplicaLost("core 1: NRT_HW_ERROR");
  ASSERT_EQ(stranded.size(), 1u);
  EXPECT_EQ(stranded[0].job, &job);
  SchedulerJob late(2, 1);
  absl::Status refused = batcher.Submit(&late);
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(refused.message(), HasSubstr("model 'bert' has no healthy replica left"));
}

// How the concurrent case below ends the batcher while submitters and workers run.
enum class Ending {
  kClose,         // a third thread closes it, as an unload does
  kReplicasLost,  // each worker loses its replica in turn (a hardware error), the last one
                  // while the batcher holds rows: the rows come back to that worker
};

// Submitters on several threads with random row counts (some larger than every variant),
// workers on two replicas answering ranges as they come (a few with errors), and the batcher
// ended while both run: every row of every admitted request is handed out or handed back
// exactly once, and every admitted request completes exactly once. Run under ThreadSanitizer
// in CI.
void RunConcurrentSubmittersAndWorkers(Ending ending) {
  constexpr int kSubmitters = 4;
  constexpr int kPerSubmitter = 300;
  BatchingPolicy policy = BatchSizes({1, 4, 8});
  policy.max_queue_delay = absl::Microseconds(200);
  policy.preferred_batch_sizes = {8};
  CountingDoorbell bell;
  DynamicBatcher batcher("m", policy, 64, 2, {&bell});

  std::vector<std::unique_ptr<SchedulerJob>> jobs;
  std::mt19937 random(7);
  for (int i = 0; i < kSubmitters * kPerSubmitter; ++i) {
    jobs.push_back(std::make_unique<SchedulerJob>(i, 1 + random() % 20));
  }
  // Rows seen per job: handed to a worker, or handed back by Close or ReplicaLost.
  std::vector<std::atomic<uint32_t>> rows_seen(jobs.size());
  std::vector<std::atomic<bool>> admitted(jobs.size());
  std::vector<std::atomic<bool>> executed(jobs.size());  // some of its rows reached a worker
  std::atomic<int> submitters_left{kSubmitters};
  std::atomic<bool> closed{false};
  std::atomic<int> handed_back{0};
  const auto hand_back = [&](const std::vector<JobRows>& held, absl::string_view why) {
    for (const JobRows& rows : held) {
      rows_seen[static_cast<SchedulerJob*>(rows.job)->id] += rows.rows;
      AnswerRows(rows, absl::UnavailableError(why), {});
    }
    handed_back += static_cast<int>(held.size());
  };

  std::vector<std::thread> threads;
  for (int s = 0; s < kSubmitters; ++s) {
    threads.emplace_back([&, s] {
      for (int i = 0; i < kPerSubmitter; ++i) {
        SchedulerJob* job = jobs[s * kPerSubmitter + i].get();
        for (;;) {
          absl::Status submitted = batcher.Submit(job);
          if (submitted.ok()) {
            admitted[job->id] = true;
            break;
          }
          // Full: try again. Closed (also UNAVAILABLE, with the close's reason): give up.
          if (batcher.closed()) break;
          EXPECT_EQ(submitted.code(), absl::StatusCode::kUnavailable) << submitted;
          std::this_thread::yield();
        }
      }
      --submitters_left;
    });
  }
  for (const ModelReplica* replica : {&first_replica, &second_replica}) {
    threads.emplace_back([&, replica] {
      ExecutionUnit unit;
      int executions = 0;
      for (;;) {
        if (ending == Ending::kReplicasLost) {
          // The second replica fails early (after 40 executions, or once half the submitters
          // are done); the first after it, with half the submitters done, while the batcher
          // holds rows (unless nothing is left to submit).
          const bool half_done = submitters_left.load() <= kSubmitters / 2;
          if (replica == &second_replica && (executions == 40 || half_done)) {
            EXPECT_THAT(batcher.ReplicaLost("core 1: NRT_HW_ERROR"), IsEmpty());
            return;
          }
          if (replica == &first_replica && !closed.load() && half_done &&
              batcher.healthy_replicas() == 1 &&
              (batcher.depth() > 0 || submitters_left.load() == 0)) {
            hand_back(batcher.ReplicaLost("core 0: NRT_HW_ERROR"), "no healthy replica left");
            closed = true;
          }
        }
        // With replicas lost, the first worker runs until it has lost its own.
        const bool done = ending == Ending::kReplicasLost
                              ? closed.load()
                              : submitters_left.load() == 0 || closed.load();
        absl::Time look_again_at = absl::InfiniteFuture();
        if (batcher.Next(*replica, absl::Now(), unit, &look_again_at)) {
          uint32_t rows = 0;
          for (const JobRows& part : unit.parts) {
            const int id = static_cast<SchedulerJob*>(part.job)->id;
            rows_seen[id] += part.rows;
            rows += part.rows;
            // Where the rows would be read to: the job is asked once, however many ranges of
            // it run at once on the two workers.
            EXPECT_EQ(OutputOf(part, 0).data(), jobs[id]->output);
            executed[id] = true;
          }
          EXPECT_LE(rows, 8u);
          batcher.Executed(unit.variant, rows, absl::Microseconds(10 + unit.variant));
          const bool fail = ++executions % 17 == 0;
          for (const JobRows& part : unit.parts) {
            AnswerRows(part, fail ? absl::InternalError("injected") : absl::OkStatus(), {});
          }
        } else if (done && look_again_at == absl::InfiniteFuture()) {
          return;
        } else {
          std::this_thread::yield();
        }
      }
    });
  }
  if (ending == Ending::kClose) {
    // Close part-way through, from a third thread, as an unload would.
    threads.emplace_back([&] {
      while (submitters_left.load() > kSubmitters / 2) std::this_thread::yield();
      hand_back(batcher.Close(absl::StatusCode::kUnavailable, "unloaded"), "unloaded");
      closed = true;
    });
  }
  for (std::thread& thread : threads) thread.join();

  int admitted_count = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (admitted[i].load()) {
      ++admitted_count;
      EXPECT_EQ(rows_seen[i].load(), jobs[i]->rows) << "job " << i;
      EXPECT_EQ(jobs[i]->completions.load(), 1) << "job " << i;
      EXPECT_EQ(jobs[i]->output_calls, executed[i].load() ? 1 : 0) << "job " << i;
    } else {
      EXPECT_EQ(rows_seen[i].load(), 0u) << "job " << i;
      EXPECT_EQ(jobs[i]->completions.load(), 0) << "job " << i;
    }
  }
  EXPECT_GT(admitted_count, 0);
  EXPECT_TRUE(batcher.closed());
  EXPECT_EQ(batcher.depth(), 0u);
  if (ending == Ending::kReplicasLost) {
    EXPECT_EQ(batcher.healthy_replicas(), 0u);
  }
  ::testing::Test::RecordProperty("handed_back", handed_back.load());
}

TEST(DynamicBatcherTest, ConcurrentSubmittersAndWorkersSeeEveryRowOnceAndCompleteEachOnce) {
  RunConcurrentSubmittersAndWorkers(Ending::kClose);
}

TEST(DynamicBatcherTest, ConcurrentlyLosingBothReplicasHandsBackEveryHeldRowOnce) {
  RunConcurrentSubmittersAndWorkers(Ending::kReplicasLost);
}

}  // namespace
}  // namespace neuronserve
