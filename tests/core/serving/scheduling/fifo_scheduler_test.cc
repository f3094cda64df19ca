#include "core/serving/scheduling/fifo_scheduler.h"

#include <atomic>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "core/serving/model/loaded_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/serving/infer_test_job.h"

namespace neuronserve {
namespace {

using testing::CountingDoorbell;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::SchedulerJob;

// Two distinct replicas (the scheduler compares their addresses only).
ModelReplica replica_a;
ModelReplica replica_b;
const ModelReplica& A = replica_a;
const ModelReplica& B = replica_b;

// The jobs of what Close or ReplicaLost handed back, each of which must be whole: a FIFO
// scheduler never splits a job.
std::vector<InferenceJob*> WholeJobs(const std::vector<JobRows>& held) {
  std::vector<InferenceJob*> jobs;
  for (const JobRows& rows : held) {
    EXPECT_EQ(rows.first_row, 0u);
    EXPECT_EQ(rows.rows, rows.job->rows);
    jobs.push_back(rows.job);
  }
  return jobs;
}

// The job of the next unit for `replica`, or nullptr. A FIFO unit is one whole job on the
// replica's one variant, and the scheduler never asks to be looked at again unrung.
InferenceJob* TryPop(FifoScheduler& scheduler, const ModelReplica& replica) {
  ExecutionUnit unit;
  unit.parts.push_back(JobRows{});  // Next clears what a worker's reused unit held before
  absl::Time look_again_at = absl::InfiniteFuture();
  if (!scheduler.Next(replica, absl::Now(), unit, &look_again_at)) {
    EXPECT_TRUE(unit.parts.empty());
    return nullptr;
  }
  EXPECT_EQ(look_again_at, absl::InfiniteFuture());
  EXPECT_EQ(unit.variant, 0u);
  EXPECT_EQ(unit.parts.size(), 1u);
  if (unit.parts.size() != 1) return nullptr;
  EXPECT_EQ(unit.parts[0].first_row, 0u);
  EXPECT_EQ(unit.parts[0].rows, unit.parts[0].job->rows);
  return unit.parts[0].job;
}

TEST(FifoSchedulerTest, MainLaneIsFifo) {
  FifoScheduler queue("m", 8, 1, {});
  SchedulerJob j1(1), j2(2), j3(3);
  const absl::Time before = absl::Now();
  ASSERT_TRUE(queue.Submit(&j1).ok());
  ASSERT_TRUE(queue.Submit(&j2).ok());
  ASSERT_TRUE(queue.Submit(&j3).ok());
  EXPECT_EQ(queue.depth(), 3u);
  EXPECT_GE(j1.enqueued_at, before);  // the queue stamps admission time
  EXPECT_LE(j1.enqueued_at, j3.enqueued_at);
  EXPECT_EQ(TryPop(queue, A), &j1);
  EXPECT_EQ(TryPop(queue, B), &j2);
  EXPECT_EQ(TryPop(queue, A), &j3);
  EXPECT_EQ(TryPop(queue, A), nullptr);
  EXPECT_EQ(queue.depth(), 0u);
  EXPECT_FALSE(queue.closed());
}

TEST(FifoSchedulerTest, FullMainLaneRefusesWithModelAndBoundAndKeepsNothing) {
  FifoScheduler queue("resnet", 2, 1, {});
  EXPECT_EQ(queue.capacity(), 2u);
  SchedulerJob j1(1), j2(2), rejected(3);
  ASSERT_TRUE(queue.Submit(&j1).ok());
  ASSERT_TRUE(queue.Submit(&j2).ok());
  absl::Status full = queue.Submit(&rejected);
  EXPECT_EQ(full.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(full.message(), HasSubstr("model 'resnet'"));
  EXPECT_THAT(full.message(), HasSubstr("request queue is full (2 waiting"));
  EXPECT_EQ(queue.depth(), 2u);
  EXPECT_EQ(rejected.completions, 0);  // the caller answers a refused job, not the queue

  EXPECT_EQ(TryPop(queue, A), &j1);
  EXPECT_EQ(TryPop(queue, A), &j2);
  EXPECT_EQ(TryPop(queue, A), nullptr);  // the refused job never entered
  // Room again once jobs are taken.
  SchedulerJob j4(4);
  EXPECT_TRUE(queue.Submit(&j4).ok());
  EXPECT_EQ(TryPop(queue, A), &j4);
}

TEST(FifoSchedulerTest, RetriesDoNotCountAgainstTheBound) {
  FifoScheduler queue("m", 1, 2, {});
  SchedulerJob main(1), retry(2), refused(3);
  ASSERT_TRUE(queue.Submit(&main).ok());
  EXPECT_TRUE(queue.Requeue(&retry, A));
  EXPECT_EQ(queue.depth(), 2u);
  EXPECT_EQ(queue.Submit(&refused).code(), absl::StatusCode::kUnavailable);
}

TEST(FifoSchedulerTest, ZeroCapacityIsTreatedAsOne) {
  FifoScheduler queue("m", 0, 1, {});
  EXPECT_EQ(queue.capacity(), 1u);
  SchedulerJob j1(1), j2(2);
  EXPECT_TRUE(queue.Submit(&j1).ok());
  EXPECT_EQ(queue.Submit(&j2).code(), absl::StatusCode::kUnavailable);
}

TEST(FifoSchedulerTest, CloseReturnsRetriesThenMainLaneAndRefusesLaterPushes) {
  FifoScheduler queue("m", 8, 2, {});
  SchedulerJob m1(1), m2(2), r1(3), r2(4);
  ASSERT_TRUE(queue.Submit(&m1).ok());
  ASSERT_TRUE(queue.Submit(&m2).ok());
  ASSERT_TRUE(queue.Requeue(&r1, A));
  ASSERT_TRUE(queue.Requeue(&r2, B));

  std::vector<InferenceJob*> waiting =
      WholeJobs(queue.Close(absl::StatusCode::kUnavailable, "model 'm' was unloaded"));
  EXPECT_THAT(waiting, ElementsAre(&r1, &r2, &m1, &m2));
  EXPECT_TRUE(queue.closed());
  EXPECT_EQ(queue.depth(), 0u);
  EXPECT_EQ(TryPop(queue, A), nullptr);

  SchedulerJob late(5);
  absl::Status refused = queue.Submit(&late);
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(refused.message(), "model 'm' was unloaded");
  SchedulerJob late_retry(6);
  EXPECT_FALSE(queue.Requeue(&late_retry, A));
  EXPECT_EQ(queue.depth(), 0u);

  // A second close returns nothing and keeps the first reason.
  EXPECT_THAT(queue.Close(absl::StatusCode::kCancelled, "other"), IsEmpty());
  refused = queue.Submit(&late);
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(refused.message(), "model 'm' was unloaded");
}

TEST(FifoSchedulerTest, RetriesGoFirstAndNotToTheReplicaThatFailedThem) {
  FifoScheduler queue("m", 8, 2, {});
  SchedulerJob main(1), retry(2);
  ASSERT_TRUE(queue.Submit(&main).ok());
  ASSERT_TRUE(queue.Requeue(&retry, A));
  // Replica A failed the retry: it gets the main lane's job instead, then nothing.
  EXPECT_EQ(TryPop(queue, A), &main);
  EXPECT_EQ(TryPop(queue, A), nullptr);
  EXPECT_EQ(queue.depth(), 1u);
  EXPECT_EQ(TryPop(queue, B), &retry);
  EXPECT_EQ(queue.depth(), 0u);
}

TEST(FifoSchedulerTest, RetryIsTakenBeforeOlderMainLaneJobs) {
  FifoScheduler queue("m", 8, 2, {});
  SchedulerJob m1(1), m2(2), retry(3);
  ASSERT_TRUE(queue.Submit(&m1).ok());
  ASSERT_TRUE(queue.Submit(&m2).ok());
  ASSERT_TRUE(queue.Requeue(&retry, A));
  EXPECT_EQ(TryPop(queue, B), &retry);
  EXPECT_EQ(TryPop(queue, B), &m1);
  EXPECT_EQ(TryPop(queue, B), &m2);
}

TEST(FifoSchedulerTest, RetryGoesBackToItsReplicaWhenItIsTheOnlyHealthyOne) {
  FifoScheduler queue("m", 8, 2, {});
  SchedulerJob retry(1);
  ASSERT_TRUE(queue.Requeue(&retry, A));
  EXPECT_EQ(TryPop(queue, A), nullptr);  // B is still healthy: A must not take it
  // B leaves rotation: A is the only healthy replica now, so it takes its own retry.
  EXPECT_THAT(queue.ReplicaLost("core 1 failed"), IsEmpty());
  EXPECT_EQ(queue.healthy_replicas(), 1u);
  EXPECT_EQ(TryPop(queue, A), &retry);
}

TEST(FifoSchedulerTest, ReplicaLostClosesOnlyWhenTheLastHealthyReplicaGoes) {
  FifoScheduler queue("bert", 8, 3, {});
  SchedulerJob m1(1), m2(2), retry(3);
  ASSERT_TRUE(queue.Submit(&m1).ok());
  ASSERT_TRUE(queue.Submit(&m2).ok());
  ASSERT_TRUE(queue.Requeue(&retry, A));

  EXPECT_THAT(queue.ReplicaLost("core 0: NRT_HW_ERROR"), IsEmpty());
  EXPECT_FALSE(queue.closed());
  EXPECT_THAT(queue.ReplicaLost("core 1: NRT_HW_ERROR"), IsEmpty());
  EXPECT_FALSE(queue.closed());
  EXPECT_EQ(queue.healthy_replicas(), 1u);
  EXPECT_EQ(queue.depth(), 3u);

  std::vector<InferenceJob*> stranded = WholeJobs(queue.ReplicaLost("core 2: NRT_HW_ERROR"));
  EXPECT_THAT(stranded, ElementsAre(&retry, &m1, &m2));
  EXPECT_TRUE(queue.closed());
  EXPECT_EQ(queue.healthy_replicas(), 0u);
  SchedulerJob late(4);
  absl::Status refused = queue.Submit(&late);
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(refused.message(), HasSubstr("model 'bert' has no healthy replica left"));
  EXPECT_THAT(refused.message(), HasSubstr("core 2: NRT_HW_ERROR"));
  // More losses after the close change nothing.
  EXPECT_THAT(queue.ReplicaLost("again"), IsEmpty());
  EXPECT_EQ(queue.healthy_replicas(), 0u);
}

TEST(FifoSchedulerTest, SubmitAndRequeueRingEveryDoorbellOnlyWhenAJobIsAdmitted) {
  CountingDoorbell first, second;
  FifoScheduler queue("m", 1, 2, {&first, &second});
  EXPECT_EQ(first.rings(), 0);
  SchedulerJob j1(1), j2(2), retry(3);
  ASSERT_TRUE(queue.Submit(&j1).ok());
  EXPECT_EQ(first.rings(), 1);
  EXPECT_EQ(second.rings(), 1);
  ASSERT_FALSE(queue.Submit(&j2).ok());  // full: nothing to take, no ring
  EXPECT_EQ(first.rings(), 1);
  EXPECT_EQ(second.rings(), 1);
  ASSERT_TRUE(queue.Requeue(&retry, A));
  EXPECT_EQ(first.rings(), 2);
  EXPECT_EQ(second.rings(), 2);
  // Next and Close do not ring; a closed queue refuses without ringing.
  TryPop(queue, B);
  queue.Close(absl::StatusCode::kUnavailable, "closed");
  EXPECT_FALSE(queue.Submit(&j2).ok());
  EXPECT_FALSE(queue.Requeue(&retry, A));
  EXPECT_EQ(first.rings(), 2);
  EXPECT_EQ(second.rings(), 2);
}

// Pushers and poppers on several threads: every admitted job is taken exactly once, every
// refused one never, and nothing is left behind (run under TSAN, this also checks the locking).
TEST(FifoSchedulerTest, ConcurrentSubmitAndNextHandEachJobOutOnce) {
  constexpr int kPushers = 4;
  constexpr int kPerPusher = 500;
  CountingDoorbell bell;
  FifoScheduler queue("m", 16, 2, {&bell});
  std::vector<std::unique_ptr<SchedulerJob>> jobs;
  for (int i = 0; i < kPushers * kPerPusher; ++i) jobs.push_back(std::make_unique<SchedulerJob>(i));
  std::vector<std::atomic<int>> taken(jobs.size());
  std::vector<std::atomic<bool>> admitted(jobs.size());
  std::atomic<int> pushers_left{kPushers};

  std::vector<std::thread> threads;
  for (int p = 0; p < kPushers; ++p) {
    threads.emplace_back([&, p] {
      for (int i = 0; i < kPerPusher; ++i) {
        SchedulerJob* job = jobs[p * kPerPusher + i].get();
        absl::Status pushed = queue.Submit(job);
        if (pushed.ok()) {
          admitted[job->id] = true;
        } else {
          EXPECT_EQ(pushed.code(), absl::StatusCode::kUnavailable);
          std::this_thread::yield();
        }
      }
      --pushers_left;
    });
  }
  for (const ModelReplica* replica : {&A, &B}) {
    threads.emplace_back([&, replica] {
      for (;;) {
        const bool pushing = pushers_left.load() > 0;
        InferenceJob* job = TryPop(queue, *replica);
        if (job != nullptr) {
          ++taken[static_cast<SchedulerJob*>(job)->id];
        } else if (!pushing) {
          return;  // the pushers had finished before this empty pop: nothing more can come
        } else {
          std::this_thread::yield();
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  int admitted_count = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(taken[i].load(), admitted[i].load() ? 1 : 0) << "job " << i;
    admitted_count += admitted[i].load() ? 1 : 0;
  }
  EXPECT_GT(admitted_count, 0);
  EXPECT_EQ(bell.rings(), admitted_count);
  EXPECT_EQ(queue.depth(), 0u);
}

}  // namespace
}  // namespace neuronserve
