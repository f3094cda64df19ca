// Core workers end to end: ModelRegistry loads sim models on the real libnrtsim.so (opened with
// dlopen through the binding), requests go through a lease's FifoScheduler to the WorkerPool's
// per-core threads, and TestJob (tests/core/serving/infer_test_job.h) records what comes back.
//
// This header holds the test model, its expected outputs and the fixture shared by
// core_worker_test.cc (serving, expiry, unloading) and core_worker_failure_test.cc (hardware,
// transient and timeout errors, retries and failover).
#ifndef NEURON_SERVE_TESTS_CORE_SERVING_EXECUTION_CORE_WORKER_FIXTURE_H_
#define NEURON_SERVE_TESTS_CORE_SERVING_EXECUTION_CORE_WORKER_FIXTURE_H_

#include <algorithm>
#include <atomic>
#include <cmath>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/mutex.h"
#include "core/lifecycle/model_registry.h"
#include "core/serving/execution/core_worker.h"
#include "core/serving/execution/worker_pool.h"
#include "core/serving/scheduling/fifo_scheduler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/serving/infer_test_job.h"
#include "tests/core/sim_fixture.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve {
namespace core_worker_test {

using ::testing::AnyOf;
using testing::CountingDoorbell;
using testing::DrawStressKind;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::OutcomesOf;
using testing::PrepareForSubmit;
using testing::SimNeffFromJson;
using testing::SimStats;
using testing::StressKind;
using testing::TestJob;

// The test model: x [1,4] -> y = relu(x W + b) [1,3] and z = tanh(x) [1,4].
inline const std::vector<float> kW = {0.5f, -1.0f, 0.25f, 1.0f,  0.5f,  -0.5f,
                               -0.25f, 0.75f, 1.0f, 0.125f, -0.375f, 0.625f};
inline const std::vector<float> kB = {0.25f, -0.125f, 0.0625f};
inline constexpr size_t kY = 0;  // output indices, in the model's order
inline constexpr size_t kZ = 1;
inline const std::vector<size_t> kBothOutputs = {3, 4};

inline std::string Faults(const std::string& rules) {
  return absl::StrCat(R"(, "faults": [)", rules, "]");
}

inline std::shared_ptr<const std::string> MlpNeff(int latency_us = 0,
                                                  const std::string& extra = "") {
  return std::make_shared<const std::string>(SimNeffFromJson(absl::StrCat(
      R"({"nc_count": 1, "latency_us": )", latency_us, R"(,
      "inputs": [{"name": "x", "dtype": "float32", "shape": [1, 4]}],
      "outputs": [{"name": "y", "dtype": "float32", "shape": [1, 3]},
                  {"name": "z", "dtype": "float32", "shape": [1, 4]}],
      "constants": {"w": {"shape": [4, 3], "data": [)",
      absl::StrJoin(kW, ", "), R"(]}, "b": {"shape": [3], "data": [)", absl::StrJoin(kB, ", "),
      R"(]}},
      "ops": [{"op": "matmul", "inputs": ["x", "w"], "output": "h"},
              {"op": "add", "inputs": ["h", "b"], "output": "hb"},
              {"op": "relu", "inputs": ["hb"], "output": "y"},
              {"op": "tanh", "inputs": ["x"], "output": "z"}])",
      extra, "}")));
}

// A different input per request, so a response mixed up with another one's would show.
inline std::vector<float> InputFor(int seed) {
  std::vector<float> x(4);
  for (int k = 0; k < 4; ++k) x[k] = static_cast<float>((seed * 7 + k * 3) % 11 - 5) * 0.25f;
  return x;
}

inline std::vector<float> ExpectedY(const std::vector<float>& x) {
  std::vector<float> y(3);
  for (int n = 0; n < 3; ++n) {
    float sum = kB[n];
    for (int k = 0; k < 4; ++k) sum += x[k] * kW[k * 3 + n];
    y[n] = std::max(sum, 0.0f);
  }
  return y;
}

inline std::vector<float> ExpectedZ(const std::vector<float>& x) {
  std::vector<float> z(4);
  for (int k = 0; k < 4; ++k) z[k] = std::tanh(x[k]);
  return z;
}

::testing::AssertionResult Near(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << "size " << got.size() << " != " << want.size();
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (!(std::fabs(got[i] - want[i]) <= 1e-5f * std::max(1.0f, std::fabs(want[i])))) {
      return ::testing::AssertionFailure() << "element " << i << ": got " << got[i]
                                           << ", want " << want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

// Completed once, OK, with both outputs right for its input.
inline void ExpectServed(TestJob& job) {
  ASSERT_TRUE(job.done());
  EXPECT_EQ(job.completions(), 1);
  ASSERT_EQ(job.code(), absl::StatusCode::kOk) << job.message();
  EXPECT_TRUE(Near(job.output(kY), ExpectedY(job.input(0))));
  EXPECT_TRUE(Near(job.output(kZ), ExpectedZ(job.input(0))));
  EXPECT_EQ(job.output_calls(kY), 1);
  EXPECT_EQ(job.output_calls(kZ), 1);
  EXPECT_FALSE(job.holds_lease());
}

// Completed once with `code`, having never reached the device.
inline void ExpectAnsweredWithoutRunning(TestJob& job, absl::StatusCode code) {
  ASSERT_TRUE(job.done());
  EXPECT_EQ(job.completions(), 1);
  EXPECT_EQ(job.code(), code) << job.message();
  EXPECT_FALSE(job.started());
  EXPECT_EQ(job.output_calls(kY), 0);
  EXPECT_EQ(job.output(kY), std::vector<float>(3, TestJob::kSentinel));
  EXPECT_FALSE(job.holds_lease());
}

inline LoadSpec Spec(const std::string& name, std::shared_ptr<const std::string> neff) {
  LoadSpec spec;
  spec.identity = ModelIdentity{name, "1", ModelSource::kUpload};
  spec.neff = std::move(neff);
  return spec;
}

// Load and wait; the outcome as code and text (see TestJob on absl::Status across threads).
inline std::string LoadSync(ModelRegistry& registry, LoadSpec spec) {
  Notification done;
  std::string outcome;
  registry.Load(std::move(spec), [&](absl::StatusOr<ModelInfo> info) {
    outcome = info.ok() ? "OK" : info.status().ToString();
    done.Notify();
  });
  done.WaitForNotification();
  return outcome;
}

// A job for model `name` with the input of `seed`; nullptr (and a failure) without a lease.
inline std::unique_ptr<TestJob> NewJob(const ModelRegistry& registry, const std::string& name, int seed,
                                std::vector<size_t> outputs = kBothOutputs) {
  absl::StatusOr<LoadedModel::Lease> lease = registry.Acquire(name);
  EXPECT_TRUE(lease.ok()) << lease.status();
  if (!lease.ok()) return nullptr;
  return std::make_unique<TestJob>(*std::move(lease),
                                   std::vector<std::vector<float>>{InputFor(seed)},
                                   std::move(outputs));
}

// Pushes and waits for the answer.
inline void PushAndWait(TestJob& job) {
  absl::Status pushed = job.scheduler()->Submit(&job);
  ASSERT_TRUE(pushed.ok()) << pushed;
  ASSERT_TRUE(job.WaitDone());
}

class CoreWorkerTest : public ::testing::Test {
 protected:
  static constexpr uint32_t kCores = 4;

  void SetUp() override {
    const char* cores = getenv("NRTSIM_CORES");
    saved_cores_ = cores == nullptr ? std::nullopt : std::optional<std::string>(cores);
    setenv("NRTSIM_CORES", "4", 1);
    // Every copy overlaps (see ExecutionTest): the pipelined stages run however cheap the copies.
    workers_.set_hand_off_threshold(absl::ZeroDuration());
    runtime_ = testing::StartSimRuntime();
    ASSERT_NE(runtime_, nullptr);
  }
  // Leaves the environment as found, for cases run after this one in the same process.
  void TearDown() override {
    runtime_.reset();
    if (saved_cores_.has_value()) {
      setenv("NRTSIM_CORES", saved_cores_->c_str(), 1);
    } else {
      unsetenv("NRTSIM_CORES");
    }
  }

  // One unit in flight per replica (pipeline depth 1): while a job is held on a worker, that
  // worker takes no other, so the next job goes to another replica's worker.
  static RegistryOptions Unpipelined() {
    RegistryOptions options;
    options.pipeline_depth = 1;
    return options;
  }

  std::unique_ptr<ModelRegistry> NewRegistry(RegistryOptions options = {}) {
    return std::make_unique<ModelRegistry>(*runtime_, workers_, nullptr, options);
  }

  // A model built by hand (not by the registry), so that its replicas may differ: replica i is
  // `neffs[i]` loaded on core i. Its queue rings the workers of those cores and `spy`.
  std::shared_ptr<LoadedModel> BuildModel(const std::string& name,
                                          const std::vector<std::shared_ptr<const std::string>>& neffs,
                                          WorkerPool& pool, Doorbell* spy) {
    std::vector<std::unique_ptr<ModelReplica>> replicas;
    ModelTensors tensors;
    std::vector<Doorbell*> doorbells;
    for (uint32_t core = 0; core < neffs.size(); ++core) {
      auto replica = std::make_unique<ModelReplica>();
      replica->cores = CoreRange{core, 1};
      absl::StatusOr<NrtModel> loaded = runtime_->LoadModel(
          {reinterpret_cast<const uint8_t*>(neffs[core]->data()), neffs[core]->size()},
          static_cast<int32_t>(core));
      EXPECT_TRUE(loaded.ok()) << loaded.status();
      if (!loaded.ok()) return nullptr;
      ReplicaVariant& variant = replica->variants.emplace_back();
      variant.model = *std::move(loaded);
      absl::StatusOr<std::vector<TensorSpec>> described = variant.model.Tensors();
      EXPECT_TRUE(described.ok()) << described.status();
      if (!described.ok()) return nullptr;
      tensors = ModelTensors::Split(*described);
      absl::StatusOr<std::vector<ReplicaTensors>> bound = ReplicaTensors::AllocateSets(
          *runtime_, name, core, tensors.inputs, tensors.outputs, pipeline_depth_);
      EXPECT_TRUE(bound.ok()) << bound.status();
      if (!bound.ok()) return nullptr;
      variant.tensor_sets = *std::move(bound);
      replica->SetPipelineDepth(pipeline_depth_);
      doorbells.push_back(pool.WorkerFor(core));
      replicas.push_back(std::move(replica));
    }
    doorbells.push_back(spy);
    const size_t count = replicas.size();
    return std::make_shared<LoadedModel>(
        ModelIdentity{name, "1", ModelSource::kUpload}, std::move(replicas), std::move(tensors), 0,
        absl::Now(), absl::ZeroDuration(),
        std::make_unique<FifoScheduler>(name, 16, count, std::move(doorbells)));
  }

  std::unique_ptr<NrtRuntime> runtime_;
  std::optional<std::string> saved_cores_;
  // Tensor sets per replica of the models BuildModel makes.
  uint32_t pipeline_depth_ = 2;
  // Every registry of a case borrows it (NewRegistry); it outlives them.
  WorkerPool workers_{kCores};
};

// (a) Several threads, two replicas: every answer is right for its own input, and both
// replicas did part of the work.

}  // namespace core_worker_test
}  // namespace neuronserve

#endif  // NEURON_SERVE_TESTS_CORE_SERVING_EXECUTION_CORE_WORKER_FIXTURE_H_
