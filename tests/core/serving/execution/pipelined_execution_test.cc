// Pipelined execution on the simulator with copies charged (NRTSIM_DMA_BYTES_PER_SECOND): a
// replica binds pipeline_depth tensor sets, and while its core executes one unit the core's copy
// thread writes the next one's inputs and reads the last one's outputs. An idle core still does
// all three itself; units run in the order they were taken; a unit written ahead whose requests
// gave up, or whose replica left rotation, does not run; and every request is answered once,
// bit for bit as if alone. Runs under ThreadSanitizer in CI.
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/serving/model/loaded_model.h"
#include "core/serving/scheduling/fifo_scheduler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/serving/execution/execution_fixture.h"
#include "tests/core/serving/infer_test_job.h"
#include "tests/core/sim_fixture.h"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;
using testing::MlpVariant;
using testing::RandomRows;
using testing::SimCoreBusy;
using testing::SimStats;
using testing::TestJob;

// 32 KB/s: the MLP's 32-byte input row takes 1 ms to write and its 16-byte output 0.5 ms to
// read, so copies are of the order of an execution, as on a copy-bound model.
constexpr char kDmaBytesPerSecond[] = "32000";

class PipelinedExecutionTest : public testing::ExecutionTest {
 protected:
  void SetUp() override {
    const char* dma = getenv("NRTSIM_DMA_BYTES_PER_SECOND");
    saved_dma_ = dma == nullptr ? std::nullopt : std::optional<std::string>(dma);
    setenv("NRTSIM_DMA_BYTES_PER_SECOND", kDmaBytesPerSecond, 1);
    ExecutionTest::SetUp();
  }
  void TearDown() override {
    ExecutionTest::TearDown();
    if (saved_dma_.has_value()) {
      setenv("NRTSIM_DMA_BYTES_PER_SECOND", saved_dma_->c_str(), 1);
    } else {
      unsetenv("NRTSIM_DMA_BYTES_PER_SECOND");
    }
  }

  // One replica on core 0, one request per execution, with `faults` (fault_spec.h).
  std::shared_ptr<LoadedModel> BuildFifo(const std::string& name, uint64_t latency_us,
                                         const std::vector<std::string>& faults = {}) {
    return Build(name, {MlpVariant(1, latency_us, faults)}, {0},
                 [name](std::vector<Doorbell*> bells) {
                   return std::make_unique<FifoScheduler>(name, 64, 1, std::move(bells));
                 });
  }

  // Submits a request of `model` and returns once it is inside nrt_execute: with `latency_us`
  // far above the time the other thread needs to take and write a next request, it is still
  // executing while the caller submits that one and sees it written.
  std::unique_ptr<TestJob> SubmitAndWaitUntilExecuting(const std::shared_ptr<LoadedModel>& model,
                                                       std::mt19937& random) {
    EXPECT_TRUE(WaitUntilIdle(0));  // no execution inside the device now
    testing::SimResetPeak();
    std::unique_ptr<TestJob> job = NewJob(model, RandomRows(random, 1), 1);
    EXPECT_TRUE(job->scheduler()->Submit(job.get()).ok());
    const absl::Time deadline = absl::Now() + absl::Seconds(20);
    while (SimStats().peak_concurrent_executions == 0 && absl::Now() < deadline) {
      absl::SleepFor(absl::Microseconds(100));
    }
    EXPECT_GE(SimStats().peak_concurrent_executions, 1u);
    return job;
  }

  std::optional<std::string> saved_dma_;
};

// Long enough that a request is still executing when the test has submitted and seen written
// the one behind it, even under a sanitizer on a busy machine.
constexpr uint64_t kLongExecutionUs = 400000;

// A lone request on an idle core is written, executed, read and answered by the core's own
// thread: pipelining adds no hand-off where there is nothing to overlap.
TEST_F(PipelinedExecutionTest, AnIdleCoreRunsALoneRequestOnItsOwnThread) {
  std::shared_ptr<LoadedModel> model = BuildFifo("lone", 500);
  ASSERT_NE(model, nullptr);
  std::mt19937 random(1);
  for (int i = 0; i < 3; ++i) {
    // Truly alone: the last answer's bookkeeping is over (a request that arrives during it
    // finds the core's thread busy, and the copy thread takes it).
    ASSERT_TRUE(WaitUntilIdle(0));
    std::unique_ptr<TestJob> job = NewJob(model, RandomRows(random, 1), 1);
    ASSERT_TRUE(job->scheduler()->Submit(job.get()).ok());
    ExpectBitExact(*job);
    EXPECT_EQ(job->completed_on(), job->executed_on()) << i;
  }
  EXPECT_EQ(SimCoreBusy(0).copies_during_execution, 0u);
}

// While the core executes one request, the next one's inputs are written by another thread, the
// core's copy thread; both are then answered bit for bit, the first executed first.
TEST_F(PipelinedExecutionTest, WhileTheCoreExecutesTheNextRequestIsWrittenBesideIt) {
  std::shared_ptr<LoadedModel> model = BuildFifo("overlap", kLongExecutionUs);
  ASSERT_NE(model, nullptr);
  std::mt19937 random(2);
  std::unique_ptr<TestJob> first = SubmitAndWaitUntilExecuting(model, random);
  std::unique_ptr<TestJob> next = NewJob(model, RandomRows(random, 1), 1);
  ASSERT_TRUE(next->scheduler()->Submit(next.get()).ok());
  ASSERT_TRUE(next->WaitStarted());  // written while the first executes
  EXPECT_FALSE(first->done());
  EXPECT_NE(next->executed_on(), first->executed_on());
  ExpectBitExact(*first);
  ExpectBitExact(*next);
  EXPECT_EQ(model->replicas()[0]->executions.load(), 2u);
  EXPECT_GE(SimCoreBusy(0).copies_during_execution, 1u);
}

// Units execute in the order they were taken, whichever thread wrote them: with 48 requests
// queued at once on a model whose 5th, 17th and 33rd executions fail, exactly the 5th, 17th and
// 33rd requests fail, at every depth. Copies overlap executions only when pipelined (and, as
// in the daemon, only once they have measured slow enough to be worth the copy thread).
TEST_F(PipelinedExecutionTest, RequestsRunInTheOrderTheyCameAtEveryDepth) {
  // The daemon's threshold: copies this slow (1 ms writes) go to the copy thread once the first
  // few have been measured on the core's own thread.
  workers_.set_hand_off_threshold(WorkerPool::kDefaultHandOffThreshold);
  for (uint32_t depth : {1u, 2u, 3u}) {
    SCOPED_TRACE(::testing::Message() << "pipeline depth " << depth);
    pipeline_depth_ = depth;
    const std::string name = "ordered" + std::to_string(depth);
    const nrtsim_core_busy_t before = SimCoreBusy(0);
    std::shared_ptr<LoadedModel> model =
        BuildFifo(name, 1000,
                  {"on_execution=5:NRT_INVALID", "on_execution=17:NRT_INVALID",
                   "on_execution=33:NRT_INVALID"});
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(model->replicas()[0]->variants[0].tensor_sets.size(), depth);
    std::mt19937 random(depth);
    std::vector<std::unique_ptr<TestJob>> jobs;
    for (int i = 0; i < 48; ++i) {
      jobs.push_back(NewJob(model, RandomRows(random, 1), 1));
      ASSERT_TRUE(jobs.back()->scheduler()->Submit(jobs.back().get()).ok());
    }
    const std::set<size_t> failing = {4, 16, 32};
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (failing.count(i) == 0) {
        ExpectBitExact(*jobs[i]);
        continue;
      }
      ASSERT_TRUE(jobs[i]->WaitDone());
      EXPECT_EQ(jobs[i]->completions(), 1);
      EXPECT_EQ(jobs[i]->code(), absl::StatusCode::kInvalidArgument) << i;
      EXPECT_EQ(jobs[i]->output_calls(0), 0) << i;
    }
    EXPECT_EQ(model->replicas()[0]->executions.load(), jobs.size());
    const nrtsim_core_busy_t after = SimCoreBusy(0);
    // The simulator counts the executions that held the core: not the three refused.
    EXPECT_EQ(after.executions - before.executions, jobs.size() - failing.size());
    const uint64_t overlapped = after.copies_during_execution - before.copies_during_execution;
    if (depth == 1) {
      EXPECT_EQ(overlapped, 0u);
    } else {
      EXPECT_GT(overlapped, 0u);
    }
    // Every set free again once every request is answered.
    EXPECT_EQ(model->replicas()[0]->free_tensor_sets.load(), (1u << depth) - 1);
  }
}

// A request written ahead that gives up while it waits for the core (its deadline passes, or its
// caller cancels) is answered without running, and its outputs are never read.
TEST_F(PipelinedExecutionTest, ARequestWrittenAheadThatGivesUpDoesNotRun) {
  std::shared_ptr<LoadedModel> model = BuildFifo("gives-up", kLongExecutionUs);
  ASSERT_NE(model, nullptr);
  std::mt19937 random(4);
  for (bool cancel : {false, true}) {
    SCOPED_TRACE(cancel ? "cancelled" : "deadline");
    const uint64_t executions_before = model->replicas()[0]->executions.load();
    std::unique_ptr<TestJob> first = SubmitAndWaitUntilExecuting(model, random);
    std::unique_ptr<TestJob> ahead = NewJob(model, RandomRows(random, 1), 1);
    // Long enough for the copy thread to take it before it passes, short of the execution.
    ahead->deadline = absl::Now() + absl::Milliseconds(100);
    ASSERT_TRUE(ahead->scheduler()->Submit(ahead.get()).ok());
    ASSERT_TRUE(ahead->WaitStarted());  // written ahead
    if (cancel) {
      ahead->Cancel();
    } else {
      // The deadline has to pass while it waits; nothing else is awaited.
      while (absl::Now() <= ahead->deadline) absl::SleepFor(absl::Milliseconds(5));
    }
    EXPECT_FALSE(first->done());
    ExpectBitExact(*first);
    ASSERT_TRUE(ahead->WaitDone());
    EXPECT_EQ(ahead->completions(), 1);
    EXPECT_EQ(ahead->code(),
              cancel ? absl::StatusCode::kCancelled : absl::StatusCode::kDeadlineExceeded);
    EXPECT_THAT(ahead->message(), HasSubstr("model 'gives-up'"));
    EXPECT_THAT(ahead->message(),
                HasSubstr(cancel ? "the request was cancelled" : "the request did not run"));
    EXPECT_EQ(ahead->output_calls(0), 0);
    EXPECT_EQ(ahead->timing().device, absl::ZeroDuration());
    EXPECT_EQ(model->replicas()[0]->executions.load() - executions_before, 1u);  // the first
  }
  EXPECT_EQ(SimCoreBusy(0).executions, 2u);
}

// A hardware error takes the core out of rotation (here: another model's, on the same core) while
// the next request is already written into the replica's other set: the one executing finishes,
// but the one written ahead does not run there, and with no other replica it fails, saying why,
// instead of executing on a core that left rotation.
TEST_F(PipelinedExecutionTest, ARequestWrittenAheadForACoreThatLeftRotationDoesNotRun) {
  std::shared_ptr<LoadedModel> model = BuildFifo("stranded", kLongExecutionUs);
  ASSERT_NE(model, nullptr);
  std::mt19937 random(5);
  std::unique_ptr<TestJob> first = SubmitAndWaitUntilExecuting(model, random);
  std::unique_ptr<TestJob> ahead = NewJob(model, RandomRows(random, 1), 1);
  ASSERT_TRUE(ahead->scheduler()->Submit(ahead.get()).ok());
  ASSERT_TRUE(ahead->WaitStarted());
  EXPECT_FALSE(first->done());
  workers_.MarkCoresUnhealthy(CoreRange{0, 1}, "core 0 failed another model's execution");
  ExpectBitExact(*first);
  ASSERT_TRUE(ahead->WaitDone());
  EXPECT_EQ(ahead->code(), absl::StatusCode::kUnavailable) << ahead->message();
  EXPECT_THAT(ahead->message(), HasSubstr("model 'stranded' on core 0"));
  EXPECT_THAT(ahead->message(), HasSubstr("taken out of rotation after a hardware error"));
  EXPECT_EQ(ahead->completions(), 1);
  EXPECT_EQ(ahead->output_calls(0), 0);
  EXPECT_FALSE(model->replicas()[0]->healthy.load());
  EXPECT_EQ(model->replicas()[0]->executions.load(), 1u);
  EXPECT_EQ(SimCoreBusy(0).executions, 1u);
  EXPECT_EQ(model->replicas()[0]->free_tensor_sets.load(), 0b11u);
}

// Copies that cost less than a hand-off stay on the core's thread: with copies free (no
// NRTSIM_DMA_BYTES_PER_SECOND) and every copy under the threshold, 48 requests queued at once on
// a pipelined replica are all written by one thread, none while the core executes, and each is
// answered once, bit for bit. The threshold is one no copy reaches on any host: with the daemon's
// 20 us, a 4 KiB write under ThreadSanitizer on a loaded machine can take longer, and the test
// would then measure the host instead of the decision.
class CheapCopiesTest : public testing::ExecutionTest {
 protected:
  void SetUp() override {
    ExecutionTest::SetUp();
    workers_.set_hand_off_threshold(absl::Seconds(1));
  }
};

TEST_F(CheapCopiesTest, CopiesCheaperThanAHandOffStayOnTheCoresThread) {
  ASSERT_EQ(getenv("NRTSIM_DMA_BYTES_PER_SECOND"), nullptr) << "this case needs free copies";
  std::shared_ptr<LoadedModel> model =
      Build("cheap", {MlpVariant(1, 1000)}, {0}, [](std::vector<Doorbell*> bells) {
        return std::make_unique<FifoScheduler>("cheap", 64, 1, std::move(bells));
      });
  ASSERT_NE(model, nullptr);
  ASSERT_EQ(model->replicas()[0]->variants[0].tensor_sets.size(), 2u);  // pipelined
  const nrtsim_core_busy_t before = SimCoreBusy(0);
  std::mt19937 random(5);
  std::vector<std::unique_ptr<TestJob>> jobs;
  for (int i = 0; i < 48; ++i) {
    jobs.push_back(NewJob(model, RandomRows(random, 1), 1));
    ASSERT_TRUE(jobs.back()->scheduler()->Submit(jobs.back().get()).ok());
  }
  for (const std::unique_ptr<TestJob>& job : jobs) {
    ExpectBitExact(*job);
    EXPECT_EQ(job->completions(), 1);
    EXPECT_EQ(job->executed_on(), jobs.front()->executed_on());
  }
  EXPECT_EQ(SimCoreBusy(0).copies_during_execution - before.copies_during_execution, 0u);
  EXPECT_EQ(model->replicas()[0]->executions.load(), jobs.size());
}

}  // namespace
}  // namespace neuronserve
