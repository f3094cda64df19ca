// ExecutionTest: core workers on the simulator (loaded with dlopen through the binding), with
// models built by hand (not by the registry) so that their replicas, variants, schedulers and
// pipeline depths are whatever a case needs; the MLP they run, a reference that runs rows alone,
// and a burst of requests held behind a first one. Shared by the execution tests of batching
// and of pipelining.
#ifndef NEURON_SERVE_TESTS_CORE_SERVING_EXECUTION_FIXTURE_H_
#define NEURON_SERVE_TESTS_CORE_SERVING_EXECUTION_FIXTURE_H_

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "client/simmodel/fault_spec.h"
#include "core/serving/execution/worker_pool.h"
#include "core/serving/model/loaded_model.h"
#include "core/serving/scheduling/fifo_scheduler.h"
#include "gtest/gtest.h"
#include "tests/core/serving/infer_test_job.h"
#include "tests/core/sim_fixture.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve {
namespace testing {

inline constexpr int64_t kIn = 8;
inline constexpr int64_t kOut = 4;

// The MLP compiled for `batch` rows; every variant has the same weights (the same seed).
inline simmodel::SimModel MlpVariant(int64_t batch, uint64_t latency_us,
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
inline std::vector<float> RandomRows(std::mt19937& random, uint32_t rows) {
  std::uniform_real_distribution<float> value(-3.0f, 3.0f);
  std::vector<float> x(rows * kIn);
  for (float& v : x) v = value(random);
  return x;
}

using SchedulerFactory =
    std::function<std::unique_ptr<Scheduler>(std::vector<Doorbell*> doorbells)>;

class ExecutionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* cores = getenv("NRTSIM_CORES");
    saved_cores_ = cores == nullptr ? std::nullopt : std::optional<std::string>(cores);
    setenv("NRTSIM_CORES", "3", 1);
    // The pipeline's machinery is under test: every copy is handed to the copy thread, however
    // cheap (the daemon's default keeps cheap copies on the core's thread; PipelinedExecutionTest
    // tests that choice).
    workers_.set_hand_off_threshold(absl::ZeroDuration());
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

  // Waits (up to 20 s) until core `core`'s threads both wait for work with nothing in flight.
  bool WaitUntilIdle(uint32_t core) {
    const absl::Time deadline = absl::Now() + absl::Seconds(20);
    while (!workers_.WorkerFor(core)->Idle()) {
      if (absl::Now() > deadline) return false;
      absl::SleepFor(absl::Microseconds(200));
    }
    return true;
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

  static constexpr uint32_t kReferenceCore = 2;
  WorkerPool workers_{3};
  std::vector<std::shared_ptr<LoadedModel>> models_;
  std::shared_ptr<LoadedModel> reference_;
};

}  // namespace testing
}  // namespace neuronserve

#endif  // NEURON_SERVE_TESTS_CORE_SERVING_EXECUTION_FIXTURE_H_
