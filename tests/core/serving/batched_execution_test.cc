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
#include "client/simmodel/fault_spec.h"
#include "core/serving/dynamic_batcher.h"
#include "core/serving/fifo_scheduler.h"
#include "core/serving/job_rows.h"
#include "core/serving/loaded_model.h"
#include "core/serving/worker_pool.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/serving/infer_test_job.h"
#include "tests/core/sim_fixture.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve {
namespace {

using testing::DrawStressKind;
using testing::OutcomesOf;
using testing::PrepareForSubmit;
using testing::StressKind;
using testing::TestJob;

constexpr int64_t kIn = 8;
constexpr int64_t kOut = 4;

// The MLP compiled for `batch` rows; every variant has the same weights (the same seed).
simmodel::SimModel MlpVariant(int64_t batch, uint64_t latency_us,
                              const std::vector<std::string>& faults = {}) {
  simmodel::MlpOptions options;
  options.layer_sizes = {kIn, 16, kOut};
  options.seed = 3;
  options.batch = batch;
  simmodel::SimModel model = testing::MlpModel(options);
  model.latency_us = latency_us;
  for (const std::string& spec : faults) {
    absl::StatusOr<simmodel::Fault> fault = simmodel::ParseFaultSpec(spec);
    EXPECT_TRUE(fault.ok()) << fault.status();
    if (fault.ok()) model.faults.push_back(*fault);
  }
  return model;
}

// `rows` rows of distinct inputs drawn from `random`.
std::vector<float> RandomRows(std::mt19937& random, uint32_t rows) {
  std::uniform_real_distribution<float> value(-3.0f, 3.0f);
  std::vector<float> x(rows * kIn);
  for (float& v : x) v = value(random);
  return x;
}

enum class StressEnding;

using SchedulerFactory =
    std::function<std::unique_ptr<Scheduler>(std::vector<Doorbell*> doorbells)>;

class BatchedExecutionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* cores = getenv("NRTSIM_CORES");
    saved_cores_ = cores == nullptr ? std::nullopt : std::optional<std::string>(cores);
    setenv("NRTSIM_CORES", "3", 1);
    runtime_ = testing::StartSimRuntime();
    ASSERT_NE(runtime_, nullptr);
  }
  void TearDown() override {
    for (const std::shared_ptr<LoadedModel>& model : models_) {
      model->scheduler()->Close(absl::StatusCode::kUnavailable, "the test ended");
      workers_.Detach(*model);
    }
    models_.clear();
    reference_.reset();  // the last reference: unloaded before the runtime closes
    runtime_.reset();
    if (saved_cores_.has_value()) {
      setenv("NRTSIM_CORES", saved_cores_->c_str(), 1);
    } else {
      unsetenv("NRTSIM_CORES");
    }
  }

  // A model of one replica per entry of `replica_variants`, replica r on core `first_core` + r
  // holding that entry's variants (in that order), with the batch size the worker is told for
  // each, attached to the workers and scheduled by `make_scheduler` (given the replicas'
  // workers' doorbells).
  std::shared_ptr<LoadedModel> BuildReplicas(
      const std::string& name, const std::vector<std::vector<simmodel::SimModel>>& replica_variants,
      const std::vector<uint32_t>& batch_sizes, const SchedulerFactory& make_scheduler,
      uint32_t first_core = 0) {
    std::vector<std::unique_ptr<ModelReplica>> replicas;
    std::vector<Doorbell*> doorbells;
    ModelTensors tensors;
    for (size_t r = 0; r < replica_variants.size(); ++r) {
      const uint32_t core = first_core + static_cast<uint32_t>(r);
      auto replica = std::make_unique<ModelReplica>();
      replica->cores = CoreRange{core, 1};
      for (size_t v = 0; v < replica_variants[r].size(); ++v) {
        const std::string neff = testing::EncodeNeff(replica_variants[r][v]);
        absl::StatusOr<NrtModel> loaded =
            runtime_->LoadModel({reinterpret_cast<const uint8_t*>(neff.data()), neff.size()},
                                static_cast<int32_t>(core));
        EXPECT_TRUE(loaded.ok()) << loaded.status();
        if (!loaded.ok()) return nullptr;
        ReplicaVariant& variant = replica->variants.emplace_back();
        variant.batch_size = batch_sizes[v];
        variant.model = *std::move(loaded);
        absl::StatusOr<std::vector<TensorSpec>> described = variant.model.Tensors();
        EXPECT_TRUE(described.ok()) << described.status();
        if (!described.ok()) return nullptr;
        ModelTensors split = ModelTensors::Split(*described);
        absl::StatusOr<std::vector<ReplicaTensors>> bound = ReplicaTensors::AllocateSets(
            *runtime_, name, core, split.inputs, split.outputs, pipeline_depth_);
        EXPECT_TRUE(bound.ok()) << bound.status();
        if (!bound.ok()) return nullptr;
        variant.tensor_sets = *std::move(bound);
        if (r == 0 && v == 0) tensors = std::move(split);
      }
      replica->SetPipelineDepth(pipeline_depth_);
      replicas.push_back(std::move(replica));
      doorbells.push_back(workers_.WorkerFor(core));
    }
    auto model = std::make_shared<LoadedModel>(
        ModelIdentity{name, "1", ModelSource::kUpload}, std::move(replicas), std::move(tensors), 0,
        absl::Now(), absl::ZeroDuration(), make_scheduler(std::move(doorbells)));
    workers_.Attach(*model);
    models_.push_back(model);
    return model;
  }
  // One replica, on core `core`.
  std::shared_ptr<LoadedModel> Build(const std::string& name,
                                     const std::vector<simmodel::SimModel>& variants,
                                     const std::vector<uint32_t>& batch_sizes,
                                     const SchedulerFactory& make_scheduler, uint32_t core = 0) {
    return BuildReplicas(name, {variants}, batch_sizes, make_scheduler, core);
  }

  // The batched model: variants of batch 1 and 4, the batch-4 one with `batch4_faults`.
  std::shared_ptr<LoadedModel> BuildBatched(const std::string& name, uint64_t latency_us,
                                            const std::vector<std::string>& batch1_faults = {},
                                            const std::vector<std::string>& batch4_faults = {}) {
    return Build(name, {MlpVariant(1, latency_us, batch1_faults),
                        MlpVariant(4, latency_us, batch4_faults)},
                 {1, 4}, [&](std::vector<Doorbell*> doorbells) {
                   BatchingPolicy policy;
                   policy.variant_batch_sizes = {1, 4};
                   return std::make_unique<DynamicBatcher>(name, policy, 256, 1,
                                                           std::move(doorbells));
                 });
  }

  // A job of `rows` rows of `x` for `model`.
  static std::unique_ptr<TestJob> NewJob(const std::shared_ptr<LoadedModel>& model,
                                         std::vector<float> x, uint32_t rows) {
    auto job = std::make_unique<TestJob>(LoadedModel::Lease(model),
                                         std::vector<std::vector<float>>{std::move(x)},
                                         std::vector<size_t>{static_cast<size_t>(rows * kOut)});
    job->rows = rows;
    return job;
  }

  // The outputs of `x`'s rows, each run alone on the batch-1 MLP (no batcher involved).
  std::vector<float> Reference(const std::vector<float>& x) {
    if (reference_ == nullptr) {
      // On a core of its own, which no case's faults take out of rotation.
      reference_ = Build(
          "reference", {MlpVariant(1, 0)}, {1},
          [](std::vector<Doorbell*> bells) {
            return std::make_unique<FifoScheduler>("reference", 64, 1, std::move(bells));
          },
          kReferenceCore);
    }
    std::vector<float> y;
    for (size_t row = 0; row * kIn < x.size(); ++row) {
      std::unique_ptr<TestJob> job = NewJob(
          reference_, std::vector<float>(x.begin() + row * kIn, x.begin() + (row + 1) * kIn), 1);
      EXPECT_TRUE(job->scheduler()->Submit(job.get()).ok());
      EXPECT_TRUE(job->WaitDone());
      EXPECT_EQ(job->code(), absl::StatusCode::kOk) << job->message();
      y.insert(y.end(), job->output(0).begin(), job->output(0).end());
    }
    return y;
  }

  // Completed once, OK, with outputs equal bit for bit to the rows run alone.
  void ExpectBitExact(TestJob& job) {
    ASSERT_TRUE(job.WaitDone());
    EXPECT_EQ(job.completions(), 1);
    ASSERT_EQ(job.code(), absl::StatusCode::kOk) << job.message();
    const std::vector<float> want = Reference(job.input(0));
    ASSERT_EQ(job.output(0).size(), want.size());
    EXPECT_EQ(std::memcmp(job.output(0).data(), want.data(), want.size() * sizeof(float)), 0);
  }

  // One-row requests that wait while the core is busy: a first request holds the worker inside
  // its input write until `gate` is notified, and `count` more are submitted behind it.
  // When the burst goes (at the end of a case, or at a failed assertion before the gate was
  // opened) it opens the gate and waits for its jobs' answers, so that no worker is left waiting
  // on a gate, or inside a job, that is gone. `gate` must outlive it.
  struct HeldBurst {
    HeldBurst() = default;
    HeldBurst(HeldBurst&& other) noexcept
        : gate(std::exchange(other.gate, nullptr)),
          held(std::move(other.held)),
          queued(std::move(other.queued)) {}
    HeldBurst& operator=(HeldBurst&&) = delete;
    ~HeldBurst() {
      if (gate == nullptr) return;
      if (!gate->HasBeenNotified()) gate->Notify();
      if (held != nullptr) held->WaitDone();
      for (const std::unique_ptr<TestJob>& job : queued) job->WaitDone();
    }

    Notification* gate = nullptr;
    std::unique_ptr<TestJob> held;
    std::vector<std::unique_ptr<TestJob>> queued;
  };
  static HeldBurst SubmitBehindHeldJob(const std::shared_ptr<LoadedModel>& model,
                                       std::mt19937& random, Notification& gate, int count) {
    HeldBurst burst;
    burst.gate = &gate;
    burst.held = NewJob(model, RandomRows(random, 1), 1);
    burst.held->set_input_gate(&gate);
    EXPECT_TRUE(burst.held->scheduler()->Submit(burst.held.get()).ok());
    EXPECT_TRUE(burst.held->WaitStarted());
    for (int i = 0; i < count; ++i) {
      burst.queued.push_back(NewJob(model, RandomRows(random, 1), 1));
      EXPECT_TRUE(burst.queued.back()->scheduler()->Submit(burst.queued.back().get()).ok());
    }
    return burst;
  }

  std::unique_ptr<NrtRuntime> runtime_;
  // Tensor sets per replica of the models BuildReplicas makes.
  uint32_t pipeline_depth_ = 2;
  std::optional<std::string> saved_cores_;
  // The body of the two stress cases at the end of this file.
  void RunStress(StressEnding ending);

  static constexpr uint32_t kReferenceCore = 2;
  WorkerPool workers_{3};
  std::vector<std::shared_ptr<LoadedModel>> models_;
  std::shared_ptr<LoadedModel> reference_;
};

// Rows that wait while the core is busy run together: with the worker held inside a first
// request, eight one-row requests run as two executions of the batch-4 variant.
TEST_F(BatchedExecutionTest, RowsThatWaitForTheCoreRunTogetherAndAnswerAsIfAlone) {
  // Depth 1: the whole burst queues behind the held job (at depth 2 the copy thread could take
  // its first rows before the rest arrive).
  pipeline_depth_ = 1;
  std::shared_ptr<LoadedModel> model = BuildBatched("mlp", 0);
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
  std::unique_ptr<TestJob> lone = NewJob(model, RandomRows(random, 1), 1);
  ASSERT_TRUE(lone->scheduler()->Submit(lone.get()).ok());
  ASSERT_TRUE(lone->WaitDone());
  EXPECT_EQ(lone->code(), absl::StatusCode::kOk) << lone->message();
  EXPECT_EQ(lone->completed_on(), lone->executed_on());

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
  ASSERT_TRUE(batch4.tensor_sets[0].inputs[0].Read(absl::MakeSpan(row), 3 * kIn * sizeof(float)).ok());
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

  const double short_ms = 1.0 * short_model->replicas()[0]->executions.load();
  const double long_ms = 4.0 * long_model->replicas()[0]->executions.load();
  const double short_share = short_ms / (short_ms + long_ms);
  EXPECT_GE(short_share, 0.4) << short_ms << " ms vs " << long_ms << " ms";
  EXPECT_LE(short_share, 0.6) << short_ms << " ms vs " << long_ms << " ms";
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

}  // namespace
}  // namespace neuronserve
