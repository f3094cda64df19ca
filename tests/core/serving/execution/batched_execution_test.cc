// Core workers executing batched units on the simulator (loaded with dlopen through the
// binding): a model of two compiled variants of one MLP (batch 1 and batch 4) scheduled by the
// DynamicBatcher. Each answer equals, bit for bit, the answer of the same rows run one at a time
// on the batch-1 variant; rows gather into one execution; padding rows are zeros; a request
// larger than the largest variant runs in ranges; a failed batch runs its requests again alone,
// so that a failure fails only its own request.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/simmodel/fault_spec.h"
#include "core/serving/execution/worker_pool.h"
#include "core/serving/model/loaded_model.h"
#include "core/serving/request/job_rows.h"
#include "core/serving/scheduling/dynamic_batcher.h"
#include "core/serving/scheduling/fifo_scheduler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/serving/execution/execution_fixture.h"
#include "tests/core/serving/infer_test_job.h"
#include "tests/core/sim_fixture.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve {
namespace {

using testing::DrawStressKind;
using testing::kIn;
using testing::kOut;
using testing::MlpVariant;
using testing::OutcomesOf;
using testing::PrepareForSubmit;
using testing::RandomRows;
using testing::StressKind;
using testing::TestJob;

enum class StressEnding;

class BatchedExecutionTest : public testing::ExecutionTest {
 protected:
  // The batched model: variants of batch 1 and 4, the batch-4 one with `batch4_faults`.
  std::shared_ptr<LoadedModel> BuildBatched(const std::string& name, uint64_t latency_us,
                                            const std::vector<std::string>& batch1_faults = {},
                                            const std::vector<std::string>& batch4_faults = {}) {
    return Build(
        name, {MlpVariant(1, latency_us, batch1_faults), MlpVariant(4, latency_us, batch4_faults)},
        {1, 4}, [&](std::vector<Doorbell*> doorbells) {
          BatchingPolicy policy;
          policy.variant_batch_sizes = {1, 4};
          return std::make_unique<DynamicBatcher>(name, policy, 256, 1, std::move(doorbells));
        });
  }

  // The body of the two stress cases at the end of this file.
  void RunStress(StressEnding ending);
};

// Rows that wait while the core is busy run together: with the worker held inside a first
// request, eight one-row requests run as two executions of the batch-4 variant.
TEST_F(BatchedExecutionTest, RowsThatWaitForTheCoreRunTogetherAndAnswerAsIfAlone) {
  // Depth 1: the whole burst queues behind the held job (at depth 2 the copy thread could take
  // its first rows before the rest arrive).
  pipeline_depth_ = 1;
  // 1 ms per execution, whatever the batch: the batcher's measured cost per row then favours
  // batch 4 by four times, which no scheduling noise of a loaded machine outweighs (at 0 us the
  // costs are tens of microseconds of noise, and one slow batch of 4 could make it pick batch 1).
  std::shared_ptr<LoadedModel> model = BuildBatched("mlp", /*latency_us=*/1000);
  ASSERT_NE(model, nullptr);
  std::mt19937 random(11);
  Notification gate;
  HeldBurst burst = SubmitBehindHeldJob(model, random, gate, 8);
  ASSERT_FALSE(HasFailure());
  std::unique_ptr<TestJob>& held = burst.held;
  std::vector<std::unique_ptr<TestJob>>& jobs = burst.queued;
  gate.Notify();
  ExpectBitExact(*held);
  for (const auto& job : jobs) ExpectBitExact(*job);
  EXPECT_EQ(model->replicas()[0]->executions.load(), 3u);  // the held one, then 4 + 4
  EXPECT_EQ(model->scheduler()->depth(), 0u);
}

// A core completes a job itself only when nothing else waits for it: a lone request is answered
// on the worker's thread (no hand-off), and while requests queue behind the one executing, the
// worker hands their answers to the pool's responder threads and goes on executing; the last
// one, with nothing behind it, it answers itself again.
TEST_F(BatchedExecutionTest, ACoreAnswersItselfOnlyWhenNothingWaitsForIt) {
  // Depth 1: one thread writes, executes and reads (executed_on is the core's), and the whole
  // burst queues behind the held job.
  pipeline_depth_ = 1;
  std::shared_ptr<LoadedModel> model =
      Build("fifo", {MlpVariant(1, 0)}, {0}, [](std::vector<Doorbell*> bells) {
        return std::make_unique<FifoScheduler>("fifo", 64, 1, std::move(bells));
      });
  ASSERT_NE(model, nullptr);
  std::mt19937 random(3);
  // Each request arrives at an idle core (one that arrives while the core's thread finishes the
  // last is the copy thread's to take).
  ASSERT_TRUE(WaitUntilIdle(0));
  std::unique_ptr<TestJob> lone = NewJob(model, RandomRows(random, 1), 1);
  ASSERT_TRUE(lone->scheduler()->Submit(lone.get()).ok());
  ASSERT_TRUE(lone->WaitDone());
  EXPECT_EQ(lone->code(), absl::StatusCode::kOk) << lone->message();
  EXPECT_EQ(lone->completed_on(), lone->executed_on());

  ASSERT_TRUE(WaitUntilIdle(0));
  Notification gate;
  HeldBurst burst = SubmitBehindHeldJob(model, random, gate, 4);
  ASSERT_FALSE(HasFailure());
  gate.Notify();
  std::vector<TestJob*> in_order = {burst.held.get()};
  for (const auto& job : burst.queued) in_order.push_back(job.get());
  for (size_t i = 0; i < in_order.size(); ++i) {
    ASSERT_TRUE(in_order[i]->WaitDone());
    EXPECT_EQ(in_order[i]->code(), absl::StatusCode::kOk) << in_order[i]->message();
    EXPECT_EQ(in_order[i]->completions(), 1);
    EXPECT_EQ(in_order[i]->executed_on(), lone->executed_on());  // one core, one worker
    if (i + 1 < in_order.size()) {
      EXPECT_NE(in_order[i]->completed_on(), in_order[i]->executed_on()) << "job " << i;
    } else {
      EXPECT_EQ(in_order[i]->completed_on(), in_order[i]->executed_on());
    }
  }
}

// ... unless the unit was shorter than a hand-off is worth (WorkerPool::hand_off_threshold): a
// model whose executions take microseconds is limited by the host, not by its device, so its
// answers are sent by the core's thread even while others wait. A threshold of 1 s here, far
// above a 0-latency execution however slow the machine, makes every unit of the burst short.
TEST_F(BatchedExecutionTest, UnitsShorterThanAHandOffAreAnsweredByTheCoreEvenWhenWorkWaits) {
  pipeline_depth_ = 1;
  workers_.set_hand_off_threshold(absl::Seconds(1));
  std::shared_ptr<LoadedModel> model =
      Build("short", {MlpVariant(1, 0)}, {0}, [](std::vector<Doorbell*> bells) {
        return std::make_unique<FifoScheduler>("short", 64, 1, std::move(bells));
      });
  ASSERT_NE(model, nullptr);
  std::mt19937 random(4);
  ASSERT_TRUE(WaitUntilIdle(0));
  Notification gate;
  HeldBurst burst = SubmitBehindHeldJob(model, random, gate, 4);
  ASSERT_FALSE(HasFailure());
  gate.Notify();
  for (const auto& job : burst.queued) {
    ASSERT_TRUE(job->WaitDone());
    EXPECT_EQ(job->code(), absl::StatusCode::kOk) << job->message();
    EXPECT_EQ(job->completions(), 1);
    EXPECT_EQ(job->completed_on(), job->executed_on());
  }
}

// Requests of random row counts from several threads, some larger than the batch-4 variant:
// every answer equals the rows run alone, and each request completes once.
TEST_F(BatchedExecutionTest, RandomRowCountsFromSeveralThreadsAnswerBitForBit) {
  std::shared_ptr<LoadedModel> model = BuildBatched("mlp", /*latency_us=*/300);
  ASSERT_NE(model, nullptr);
  constexpr int kThreads = 3;
  constexpr int kPerThread = 20;
  std::vector<std::unique_ptr<TestJob>> jobs(kThreads * kPerThread);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(100 + t);
      for (int i = 0; i < kPerThread; ++i) {
        const uint32_t rows = 1 + random() % 10;
        std::unique_ptr<TestJob>& job = jobs[t * kPerThread + i];
        job = NewJob(model, RandomRows(random, rows), rows);
        absl::Status submitted = job->scheduler()->Submit(job.get());
        EXPECT_TRUE(submitted.ok()) << submitted;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  uint64_t rows = 0;
  for (const auto& job : jobs) {
    ExpectBitExact(*job);
    rows += job->rows;
  }
  // Fewer executions than rows: rows ran together.
  EXPECT_LT(model->replicas()[0]->executions.load(), rows);
}

// The rows of a batch that no request fills are zeros on the device, not an earlier request's.
TEST_F(BatchedExecutionTest, PaddingRowsAreZerosAndNeverReachAnAnswer) {
  std::shared_ptr<LoadedModel> model = BuildBatched("mlp", 0);
  ASSERT_NE(model, nullptr);
  std::mt19937 random(5);
  std::unique_ptr<TestJob> four = NewJob(model, RandomRows(random, 4), 4);
  ASSERT_TRUE(four->scheduler()->Submit(four.get()).ok());
  ExpectBitExact(*four);
  std::unique_ptr<TestJob> three = NewJob(model, RandomRows(random, 3), 3);
  ASSERT_TRUE(three->scheduler()->Submit(three.get()).ok());
  ExpectBitExact(*three);
  EXPECT_EQ(three->output(0).size(), 3u * kOut);  // its own rows only
  // The batch-4 variant's input row 3: the 4-row request filled it, the 3-row one zeroed it.
  const ReplicaVariant& batch4 = model->replicas()[0]->variants[1];
  std::vector<uint8_t> row(kIn * sizeof(float), 0xff);
  ASSERT_TRUE(
      batch4.tensor_sets[0].inputs[0].Read(absl::MakeSpan(row), 3 * kIn * sizeof(float)).ok());
  EXPECT_EQ(row, std::vector<uint8_t>(kIn * sizeof(float), 0));
}

// A failed batched execution runs each of its requests again alone; a request that fails alone
// too fails by itself, and the others are answered.
TEST_F(BatchedExecutionTest, AFailedBatchRunsItsRequestsAgainAloneSoOnlyTheBadOneFails) {
  // Depth 1: the whole burst queues behind the held job (at depth 2 the copy thread could take
  // its first rows before the rest arrive).
  pipeline_depth_ = 1;
  // The batch-4 variant refuses every execution; the batch-1 variant its 3rd.
  std::shared_ptr<LoadedModel> model =
      BuildBatched("mlp", 0, {"on_execution=3:NRT_INVALID"}, {"every=1:NRT_INVALID"});
  ASSERT_NE(model, nullptr);
  std::mt19937 random(9);
  Notification gate;
  HeldBurst burst = SubmitBehindHeldJob(model, random, gate, 4);
  ASSERT_FALSE(HasFailure());
  std::unique_ptr<TestJob>& held = burst.held;
  std::vector<std::unique_ptr<TestJob>>& jobs = burst.queued;
  gate.Notify();
  ExpectBitExact(*held);  // the batch-1 variant's 1st execution
  // The four ran as one batch, which failed; alone they are the batch-1 variant's executions
  // 2 to 5, and the 3rd of those fails: the second request of the four.
  for (size_t i = 0; i < jobs.size(); ++i) {
    ASSERT_TRUE(jobs[i]->WaitDone());
    EXPECT_EQ(jobs[i]->completions(), 1);
    EXPECT_EQ(jobs[i]->attempts, 2);
    if (i == 1) {
      EXPECT_EQ(jobs[i]->code(), absl::StatusCode::kInvalidArgument) << jobs[i]->message();
    } else {
      ExpectBitExact(*jobs[i]);
    }
  }
  EXPECT_EQ(model->replicas()[0]->executions.load(), 6u);
}

// Two models on one core, one of 1 ms executions and one of 4 ms, each with more work than the
// core can do: each gets about half the core's device time. (A turn per execution, as the
// worker took before, gives the 1 ms model a fifth.)
TEST_F(BatchedExecutionTest, ModelsSharingACoreShareItsDeviceTimeNotItsTurns) {
  auto fifo = [](const std::string& name) {
    return [name](std::vector<Doorbell*> bells) -> std::unique_ptr<Scheduler> {
      return std::make_unique<FifoScheduler>(name, 64, 1, std::move(bells));
    };
  };
  const std::shared_ptr<LoadedModel> short_model =
      Build("short", {MlpVariant(1, 1000)}, {0}, fifo("short"));
  const std::shared_ptr<LoadedModel> long_model =
      Build("long", {MlpVariant(1, 4000)}, {0}, fifo("long"));
  ASSERT_NE(short_model, nullptr);
  ASSERT_NE(long_model, nullptr);
  // Each producer keeps 8 requests in flight until the deadline.
  const absl::Time until = absl::Now() + absl::Milliseconds(1500);
  auto produce = [&](const std::shared_ptr<LoadedModel>& model) {
    std::mt19937 random(7);
    std::deque<std::unique_ptr<TestJob>> in_flight;
    while (absl::Now() < until) {
      if (in_flight.size() == 8) {
        EXPECT_TRUE(in_flight.front()->WaitDone());
        EXPECT_EQ(in_flight.front()->code(), absl::StatusCode::kOk);
        in_flight.pop_front();
      }
      std::unique_ptr<TestJob> job = NewJob(model, RandomRows(random, 1), 1);
      ASSERT_TRUE(job->scheduler()->Submit(job.get()).ok());
      in_flight.push_back(std::move(job));
    }
    for (const std::unique_ptr<TestJob>& job : in_flight) EXPECT_TRUE(job->WaitDone());
  };
  std::thread short_producer(produce, short_model);
  std::thread long_producer(produce, long_model);
  short_producer.join();
  long_producer.join();

  // The share of the device time the workers measured (what the scheduler charges), not of the
  // nominal latencies: on a loaded machine a 1 ms sleep of the simulator overshoots by more, in
  // proportion, than a 4 ms one, so nominal shares drift below the truth.
  auto device_ms = [](const LoadedModel& model) {
    uint64_t ns = 0;
    for (const BatchStatistics& batch : model.batch_statistics()) ns += batch.ns;
    return ns / 1e6;
  };
  const double short_ms = device_ms(*short_model);
  const double long_ms = device_ms(*long_model);
  const double short_share = short_ms / (short_ms + long_ms);
  const std::string detail = absl::StrCat(
      short_ms, " ms in ", short_model->replicas()[0]->executions.load(), " executions vs ",
      long_ms, " ms in ", long_model->replicas()[0]->executions.load());
  EXPECT_GE(short_share, 0.4) << detail;
  EXPECT_LE(short_share, 0.6) << detail;
}

// Many producers of random row counts (some split into ranges), with requests cancelled before
// and after they are submitted, expired ones and short deadlines, on two replicas of which a
// hardware error takes one out of rotation early; then the model ends while the batcher holds
// rows, by `ending`: each request is answered exactly once, an OK answer equals its rows run
// alone bit for bit, and a request cancelled or expired before it was taken never reaches the
// device. Runs under ThreadSanitizer in CI.
enum class StressEnding {
  kClose,            // closed as an unload does, from another thread
  kLastReplicaLost,  // the other replica fails too: the pool hands the held rows back
};
void BatchedExecutionTest::RunStress(StressEnding ending) {
  auto batcher = [](std::vector<Doorbell*> doorbells) -> std::unique_ptr<Scheduler> {
    BatchingPolicy policy;
    policy.variant_batch_sizes = {1, 4};
    policy.preferred_batch_sizes = {4};
    policy.max_queue_delay = absl::Microseconds(500);
    return std::make_unique<DynamicBatcher>("stress", policy, 16, 2, std::move(doorbells));
  };
  // Replica 1 (core 1) fails its 3rd batch-4 execution; replica 0 its 30th when it is to fail.
  std::vector<std::string> replica0_faults;
  if (ending == StressEnding::kLastReplicaLost) replica0_faults = {"on_execution=30:NRT_HW_ERROR"};
  const std::shared_ptr<LoadedModel> model =
      BuildReplicas("stress",
                    {{MlpVariant(1, 200), MlpVariant(4, 300, replica0_faults)},
                     {MlpVariant(1, 200), MlpVariant(4, 300, {"on_execution=3:NRT_HW_ERROR"})}},
                    {1, 4}, batcher);
  ASSERT_NE(model, nullptr);
  Scheduler& scheduler = *model->scheduler();

  constexpr int kThreads = 4;
  constexpr int kPerThread = 80;
  std::vector<std::unique_ptr<TestJob>> jobs(kThreads * kPerThread);
  std::vector<StressKind> kinds(jobs.size());
  std::atomic<int> submitted{0};
  std::atomic<int> producers_left{kThreads};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(500 + t);
      std::deque<TestJob*> in_flight;
      for (int i = 0; i < kPerThread; ++i) {
        const int index = t * kPerThread + i;
        const StressKind kind = kinds[index] = DrawStressKind(random);
        const uint32_t rows = 1 + random() % 10;
        jobs[index] = NewJob(model, RandomRows(random, rows), rows);
        TestJob& job = *jobs[index];
        PrepareForSubmit(job, kind, random);
        const absl::Status pushed = scheduler.Submit(&job);
        if (!pushed.ok()) {
          // Full, or no longer serving (closed, or no healthy replica): the caller answers.
          EXPECT_EQ(pushed.code(), absl::StatusCode::kUnavailable) << pushed;
          job.Refuse(pushed);
          if (!in_flight.empty()) {
            EXPECT_TRUE(in_flight.front()->WaitDone());
            in_flight.pop_front();
          }
          continue;
        }
        ++submitted;
        if (kind == StressKind::kCancelledAfter) job.Cancel();
        in_flight.push_back(&job);
        if (in_flight.size() > 3) {
          EXPECT_TRUE(in_flight.front()->WaitDone());
          in_flight.pop_front();
        }
      }
      --producers_left;
    });
  }
  // The unload: closes once three quarters of the requests were admitted while the batcher
  // holds some (or once the producers are done), and answers what it hands back. With both
  // replicas failing, only once the producers are done (the test's end).
  size_t closed_with = 0;
  threads.emplace_back([&] {
    const int close_after =
        ending == StressEnding::kClose ? kThreads * kPerThread * 3 / 4 : kThreads * kPerThread;
    while (producers_left.load() > 0 &&
           (submitted.load() < close_after || scheduler.depth() == 0)) {
      std::this_thread::yield();
    }
    const std::vector<JobRows> held =
        scheduler.Close(absl::StatusCode::kUnavailable, "model 'stress' is unloading");
    for (const JobRows& rows : held) {
      AnswerRows(rows, absl::UnavailableError("model 'stress' is unloading"), {});
    }
    closed_with = held.size();
  });
  for (std::thread& thread : threads) thread.join();

  using C = absl::StatusCode;
  int ok = 0;
  int stranded = 0;  // held when the last replica was lost, and answered by the pool
  for (size_t i = 0; i < jobs.size(); ++i) {
    TestJob& job = *jobs[i];
    if (absl::StrContains(job.message(), "no healthy replica left to run the request")) ++stranded;
    ASSERT_TRUE(job.WaitDone()) << "job " << i << " was never answered";
    EXPECT_EQ(job.completions(), 1) << "job " << i;
    const C code = job.code();
    EXPECT_THAT(code, OutcomesOf(kinds[i])) << i << ": " << job.message();
    // Cancelled or expired before it was taken: it never reached the device.
    if (kinds[i] == StressKind::kCancelledBefore || kinds[i] == StressKind::kExpired) {
      EXPECT_FALSE(job.started()) << i;
    }
    EXPECT_FALSE(job.holds_lease()) << i;
    if (code == C::kOk) {
      ++ok;
      EXPECT_TRUE(job.started()) << i;
      ExpectBitExact(job);
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_TRUE(scheduler.closed());
  EXPECT_EQ(scheduler.depth(), 0u);
  EXPECT_FALSE(model->replicas()[1]->healthy.load());  // its 3rd batch-4 execution failed
  if (ending == StressEnding::kLastReplicaLost) {
    EXPECT_FALSE(model->replicas()[0]->healthy.load());
    EXPECT_EQ(scheduler.healthy_replicas(), 0u);
  } else {
    EXPECT_EQ(scheduler.healthy_replicas(), 1u);
  }
  RecordProperty("ok", ok);
  RecordProperty("handed_back_by_close", static_cast<int>(closed_with));
  RecordProperty("stranded_by_replica_loss", stranded);
}

TEST_F(BatchedExecutionTest, ProducersCancellationsDeadlinesAndAReplicaLostThenClose) {
  RunStress(StressEnding::kClose);
}

TEST_F(BatchedExecutionTest, ProducersCancellationsDeadlinesAndBothReplicasLost) {
  RunStress(StressEnding::kLastReplicaLost);
}

// The same at pipeline depths 1 and 3 (the cases above run at the default, 2): units written
// ahead and read behind while the batcher holds rows and replicas fail.
TEST_F(BatchedExecutionTest, ProducersCancellationsDeadlinesAndBothReplicasLostUnpipelined) {
  pipeline_depth_ = 1;
  RunStress(StressEnding::kLastReplicaLost);
}

TEST_F(BatchedExecutionTest, ProducersCancellationsDeadlinesAndAReplicaLostThenCloseAtDepth3) {
  pipeline_depth_ = 3;
  RunStress(StressEnding::kClose);
}

}  // namespace
}  // namespace neuronserve
