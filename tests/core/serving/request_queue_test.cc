#include "core/serving/request_queue.h"

#include <atomic>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/serving/infer_test_job.h"

namespace neuronserve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::CountingDoorbell;

// A job that only the queue sees: it is never executed or completed here.
class QueuedJob : public InferenceJob {
 public:
  explicit QueuedJob(int id) : id(id) {}
  absl::Span<const uint8_t> Input(size_t) const override { return {}; }
  absl::Span<uint8_t> Output(size_t) override { return {}; }
  bool Cancelled() const override { return false; }
  void Complete(absl::Status, const ExecutionTiming&) override { ++completions; }
  const int id;
  int completions = 0;
};

// Two distinct replica identities (the queue compares addresses only).
char replica_a;
char replica_b;
const void* const A = &replica_a;
const void* const B = &replica_b;

TEST(RequestQueueTest, MainLaneIsFifo) {
  RequestQueue queue("m", 8, 1, {});
  QueuedJob j1(1), j2(2), j3(3);
  const absl::Time before = absl::Now();
  ASSERT_TRUE(queue.Push(&j1).ok());
  ASSERT_TRUE(queue.Push(&j2).ok());
  ASSERT_TRUE(queue.Push(&j3).ok());
  EXPECT_EQ(queue.depth(), 3u);
  EXPECT_GE(j1.enqueued_at, before);  // the queue stamps admission time
  EXPECT_LE(j1.enqueued_at, j3.enqueued_at);
  EXPECT_EQ(queue.TryPop(A), &j1);
  EXPECT_EQ(queue.TryPop(B), &j2);
  EXPECT_EQ(queue.TryPop(A), &j3);
  EXPECT_EQ(queue.TryPop(A), nullptr);
  EXPECT_EQ(queue.depth(), 0u);
  EXPECT_FALSE(queue.closed());
}

TEST(RequestQueueTest, FullMainLaneRefusesWithModelAndBoundAndKeepsNothing) {
  RequestQueue queue("resnet", 2, 1, {});
  EXPECT_EQ(queue.capacity(), 2u);
  QueuedJob j1(1), j2(2), rejected(3);
  ASSERT_TRUE(queue.Push(&j1).ok());
  ASSERT_TRUE(queue.Push(&j2).ok());
  absl::Status full = queue.Push(&rejected);
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(full.message(), HasSubstr("model 'resnet'"));
  EXPECT_THAT(full.message(), HasSubstr("request queue is full (2 waiting"));
  EXPECT_EQ(queue.depth(), 2u);
  EXPECT_EQ(rejected.completions, 0);  // the caller answers a refused job, not the queue

  EXPECT_EQ(queue.TryPop(A), &j1);
  EXPECT_EQ(queue.TryPop(A), &j2);
  EXPECT_EQ(queue.TryPop(A), nullptr);  // the refused job never entered
  // Room again once jobs are taken.
  QueuedJob j4(4);
  EXPECT_TRUE(queue.Push(&j4).ok());
  EXPECT_EQ(queue.TryPop(A), &j4);
}

TEST(RequestQueueTest, RetriesDoNotCountAgainstTheBound) {
  RequestQueue queue("m", 1, 2, {});
  QueuedJob main(1), retry(2), refused(3);
  ASSERT_TRUE(queue.Push(&main).ok());
  retry.failed_replica = A;
  EXPECT_TRUE(queue.PushRetry(&retry));
  EXPECT_EQ(queue.depth(), 2u);
  EXPECT_EQ(queue.Push(&refused).code(), absl::StatusCode::kResourceExhausted);
}

TEST(RequestQueueTest, ZeroCapacityIsTreatedAsOne) {
  RequestQueue queue("m", 0, 1, {});
  EXPECT_EQ(queue.capacity(), 1u);
  QueuedJob j1(1), j2(2);
  EXPECT_TRUE(queue.Push(&j1).ok());
  EXPECT_EQ(queue.Push(&j2).code(), absl::StatusCode::kResourceExhausted);
}

TEST(RequestQueueTest, CloseReturnsRetriesThenMainLaneAndRefusesLaterPushes) {
  RequestQueue queue("m", 8, 2, {});
  QueuedJob m1(1), m2(2), r1(3), r2(4);
  ASSERT_TRUE(queue.Push(&m1).ok());
  ASSERT_TRUE(queue.Push(&m2).ok());
  r1.failed_replica = A;
  r2.failed_replica = B;
  ASSERT_TRUE(queue.PushRetry(&r1));
  ASSERT_TRUE(queue.PushRetry(&r2));

  std::vector<InferenceJob*> waiting =
      queue.Close(absl::StatusCode::kUnavailable, "model 'm' was unloaded");
  EXPECT_THAT(waiting, ElementsAre(&r1, &r2, &m1, &m2));
  EXPECT_TRUE(queue.closed());
  EXPECT_EQ(queue.depth(), 0u);
  EXPECT_EQ(queue.TryPop(A), nullptr);

  QueuedJob late(5);
  absl::Status refused = queue.Push(&late);
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(refused.message(), "model 'm' was unloaded");
  QueuedJob late_retry(6);
  late_retry.failed_replica = A;
  EXPECT_FALSE(queue.PushRetry(&late_retry));
  EXPECT_EQ(queue.depth(), 0u);

  // A second close returns nothing and keeps the first reason.
  EXPECT_THAT(queue.Close(absl::StatusCode::kCancelled, "other"), IsEmpty());
  refused = queue.Push(&late);
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(refused.message(), "model 'm' was unloaded");
}

TEST(RequestQueueTest, RetriesGoFirstAndNotToTheReplicaThatFailedThem) {
  RequestQueue queue("m", 8, 2, {});
  QueuedJob main(1), retry(2);
  ASSERT_TRUE(queue.Push(&main).ok());
  retry.failed_replica = A;
  ASSERT_TRUE(queue.PushRetry(&retry));
  // Replica A failed the retry: it gets the main lane's job instead, then nothing.
  EXPECT_EQ(queue.TryPop(A), &main);
  EXPECT_EQ(queue.TryPop(A), nullptr);
  EXPECT_EQ(queue.depth(), 1u);
  EXPECT_EQ(queue.TryPop(B), &retry);
  EXPECT_EQ(queue.depth(), 0u);
}

TEST(RequestQueueTest, RetryIsTakenBeforeOlderMainLaneJobs) {
  RequestQueue queue("m", 8, 2, {});
  QueuedJob m1(1), m2(2), retry(3);
  ASSERT_TRUE(queue.Push(&m1).ok());
  ASSERT_TRUE(queue.Push(&m2).ok());
  retry.failed_replica = A;
  ASSERT_TRUE(queue.PushRetry(&retry));
  EXPECT_EQ(queue.TryPop(B), &retry);
  EXPECT_EQ(queue.TryPop(B), &m1);
  EXPECT_EQ(queue.TryPop(B), &m2);
}

TEST(RequestQueueTest, RetryGoesBackToItsReplicaWhenItIsTheOnlyHealthyOne) {
  RequestQueue queue("m", 8, 2, {});
  QueuedJob retry(1);
  retry.failed_replica = A;
  ASSERT_TRUE(queue.PushRetry(&retry));
  EXPECT_EQ(queue.TryPop(A), nullptr);  // B is still healthy: A must not take it
  // B leaves rotation: A is the only healthy replica now, so it takes its own retry.
  EXPECT_THAT(queue.ReplicaLost("core 1 failed"), IsEmpty());
  EXPECT_EQ(queue.healthy_replicas(), 1u);
  EXPECT_EQ(queue.TryPop(A), &retry);
}

TEST(RequestQueueTest, ReplicaLostClosesOnlyWhenTheLastHealthyReplicaGoes) {
  RequestQueue queue("bert", 8, 3, {});
  QueuedJob m1(1), m2(2), retry(3);
  ASSERT_TRUE(queue.Push(&m1).ok());
  ASSERT_TRUE(queue.Push(&m2).ok());
  retry.failed_replica = A;
  ASSERT_TRUE(queue.PushRetry(&retry));

  EXPECT_THAT(queue.ReplicaLost("core 0: NRT_HW_ERROR"), IsEmpty());
  EXPECT_FALSE(queue.closed());
  EXPECT_THAT(queue.ReplicaLost("core 1: NRT_HW_ERROR"), IsEmpty());
  EXPECT_FALSE(queue.closed());
  EXPECT_EQ(queue.healthy_replicas(), 1u);
  EXPECT_EQ(queue.depth(), 3u);

  std::vector<InferenceJob*> stranded = queue.ReplicaLost("core 2: NRT_HW_ERROR");
  EXPECT_THAT(stranded, ElementsAre(&retry, &m1, &m2));
  EXPECT_TRUE(queue.closed());
  EXPECT_EQ(queue.healthy_replicas(), 0u);
  QueuedJob late(4);
  absl::Status refused = queue.Push(&late);
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(refused.message(), HasSubstr("model 'bert' has no healthy replica left"));
  EXPECT_THAT(refused.message(), HasSubstr("core 2: NRT_HW_ERROR"));
  // More losses after the close change nothing.
  EXPECT_THAT(queue.ReplicaLost("again"), IsEmpty());
  EXPECT_EQ(queue.healthy_replicas(), 0u);
}

TEST(RequestQueueTest, PushAndPushRetryRingEveryDoorbellOnlyWhenAJobIsAdmitted) {
  CountingDoorbell first, second;
  RequestQueue queue("m", 1, 2, {&first, &second});
  EXPECT_EQ(first.rings(), 0);
  QueuedJob j1(1), j2(2), retry(3);
  ASSERT_TRUE(queue.Push(&j1).ok());
  EXPECT_EQ(first.rings(), 1);
  EXPECT_EQ(second.rings(), 1);
  ASSERT_FALSE(queue.Push(&j2).ok());  // full: nothing to take, no ring
  EXPECT_EQ(first.rings(), 1);
  EXPECT_EQ(second.rings(), 1);
  retry.failed_replica = A;
  ASSERT_TRUE(queue.PushRetry(&retry));
  EXPECT_EQ(first.rings(), 2);
  EXPECT_EQ(second.rings(), 2);
  // TryPop and Close do not ring; a closed queue refuses without ringing.
  queue.TryPop(B);
  queue.Close(absl::StatusCode::kUnavailable, "closed");
  EXPECT_FALSE(queue.Push(&j2).ok());
  EXPECT_FALSE(queue.PushRetry(&retry));
  EXPECT_EQ(first.rings(), 2);
  EXPECT_EQ(second.rings(), 2);
}

// Pushers and poppers on several threads: every admitted job is taken exactly once, every
// refused one never, and nothing is left behind (run under TSAN, this also checks the locking).
TEST(RequestQueueTest, ConcurrentPushAndPopHandEachJobOutOnce) {
  constexpr int kPushers = 4;
  constexpr int kPerPusher = 500;
  CountingDoorbell bell;
  RequestQueue queue("m", 16, 2, {&bell});
  std::vector<std::unique_ptr<QueuedJob>> jobs;
  for (int i = 0; i < kPushers * kPerPusher; ++i) jobs.push_back(std::make_unique<QueuedJob>(i));
  std::vector<std::atomic<int>> taken(jobs.size());
  std::vector<std::atomic<bool>> admitted(jobs.size());
  std::atomic<int> pushers_left{kPushers};

  std::vector<std::thread> threads;
  for (int p = 0; p < kPushers; ++p) {
    threads.emplace_back([&, p] {
      for (int i = 0; i < kPerPusher; ++i) {
        QueuedJob* job = jobs[p * kPerPusher + i].get();
        absl::Status pushed = queue.Push(job);
        if (pushed.ok()) {
          admitted[job->id] = true;
        } else {
          EXPECT_EQ(pushed.code(), absl::StatusCode::kResourceExhausted);
          std::this_thread::yield();
        }
      }
      --pushers_left;
    });
  }
  for (const void* replica : {A, B}) {
    threads.emplace_back([&, replica] {
      for (;;) {
        const bool pushing = pushers_left.load() > 0;
        InferenceJob* job = queue.TryPop(replica);
        if (job != nullptr) {
          ++taken[static_cast<QueuedJob*>(job)->id];
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
