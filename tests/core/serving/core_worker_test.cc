// Core workers end to end: ModelRegistry loads sim models on the real libnrtsim.so (opened with
// dlopen through the binding), requests go through a lease's FifoScheduler to the WorkerPool's
// per-core threads, and TestJob (tests/core/serving/infer_test_job.h) records what comes back.
#include "core/serving/core_worker.h"

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
#include "core/lifecycle/model_registry.h"
#include "core/serving/fifo_scheduler.h"
#include "core/serving/worker_pool.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/serving/infer_test_job.h"
#include "tests/core/sim_fixture.h"
#include "tests/support/sim_model_files.h"
#include "base/mutex.h"

namespace neuronserve {
namespace {

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
const std::vector<float> kW = {0.5f, -1.0f, 0.25f, 1.0f,  0.5f,  -0.5f,
                               -0.25f, 0.75f, 1.0f, 0.125f, -0.375f, 0.625f};
const std::vector<float> kB = {0.25f, -0.125f, 0.0625f};
constexpr size_t kY = 0;  // output indices, in the model's order
constexpr size_t kZ = 1;
const std::vector<size_t> kBothOutputs = {3, 4};

std::string Faults(const std::string& rules) { return absl::StrCat(R"(, "faults": [)", rules, "]"); }

std::shared_ptr<const std::string> MlpNeff(int latency_us = 0, const std::string& extra = "") {
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
std::vector<float> InputFor(int seed) {
  std::vector<float> x(4);
  for (int k = 0; k < 4; ++k) x[k] = static_cast<float>((seed * 7 + k * 3) % 11 - 5) * 0.25f;
  return x;
}

std::vector<float> ExpectedY(const std::vector<float>& x) {
  std::vector<float> y(3);
  for (int n = 0; n < 3; ++n) {
    float sum = kB[n];
    for (int k = 0; k < 4; ++k) sum += x[k] * kW[k * 3 + n];
    y[n] = std::max(sum, 0.0f);
  }
  return y;
}

std::vector<float> ExpectedZ(const std::vector<float>& x) {
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
void ExpectServed(TestJob& job) {
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
void ExpectAnsweredWithoutRunning(TestJob& job, absl::StatusCode code) {
  ASSERT_TRUE(job.done());
  EXPECT_EQ(job.completions(), 1);
  EXPECT_EQ(job.code(), code) << job.message();
  EXPECT_FALSE(job.started());
  EXPECT_EQ(job.output_calls(kY), 0);
  EXPECT_EQ(job.output(kY), std::vector<float>(3, TestJob::kSentinel));
  EXPECT_FALSE(job.holds_lease());
}

LoadSpec Spec(const std::string& name, std::shared_ptr<const std::string> neff) {
  LoadSpec spec;
  spec.identity = ModelIdentity{name, "1", ModelSource::kUpload};
  spec.neff = std::move(neff);
  return spec;
}

// Load and wait; the outcome as code and text (see TestJob on absl::Status across threads).
std::string LoadSync(ModelRegistry& registry, LoadSpec spec) {
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
std::unique_ptr<TestJob> NewJob(const ModelRegistry& registry, const std::string& name, int seed,
                                std::vector<size_t> outputs = kBothOutputs) {
  absl::StatusOr<LoadedModel::Lease> lease = registry.Acquire(name);
  EXPECT_TRUE(lease.ok()) << lease.status();
  if (!lease.ok()) return nullptr;
  return std::make_unique<TestJob>(*std::move(lease),
                                   std::vector<std::vector<float>>{InputFor(seed)},
                                   std::move(outputs));
}

// Pushes and waits for the answer.
void PushAndWait(TestJob& job) {
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
TEST_F(CoreWorkerTest, ServesCorrectOutputsFromSeveralThreadsOnBothReplicas) {
  auto registry = NewRegistry();
  LoadSpec spec = Spec("mlp", MlpNeff(/*latency_us=*/1000));
  spec.replicas = 2;
  ASSERT_EQ(LoadSync(*registry, std::move(spec)), "OK");
  const uint64_t executions_before = SimStats().executions;

  constexpr int kThreads = 4;
  constexpr int kPerThread = 25;
  std::vector<std::unique_ptr<TestJob>> jobs(kThreads * kPerThread + 2);
  // Both replicas surely take part: the first job is held on the worker that took it, so the
  // second one starts on the other replica; then everything runs freely.
  Notification gate;
  jobs[jobs.size() - 2] = NewJob(*registry, "mlp", 1000);
  jobs[jobs.size() - 1] = NewJob(*registry, "mlp", 1001);
  TestJob& held = *jobs[jobs.size() - 2];
  TestJob& second = *jobs[jobs.size() - 1];
  held.set_input_gate(&gate);
  ASSERT_TRUE(held.scheduler()->Submit(&held).ok());
  ASSERT_TRUE(held.WaitStarted());
  ASSERT_TRUE(second.scheduler()->Submit(&second).ok());
  ASSERT_TRUE(second.WaitStarted());
  gate.Notify();

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const int index = t * kPerThread + i;
        jobs[index] = NewJob(*registry, "mlp", index);
        if (jobs[index] == nullptr) return;
        absl::Status pushed = jobs[index]->scheduler()->Submit(jobs[index].get());
        EXPECT_TRUE(pushed.ok()) << pushed;
      }
      for (int i = 0; i < kPerThread; ++i) {
        EXPECT_TRUE(jobs[t * kPerThread + i]->WaitDone());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_TRUE(held.WaitDone());
  ASSERT_TRUE(second.WaitDone());

  for (const auto& job : jobs) {
    ASSERT_NE(job, nullptr);
    ExpectServed(*job);
    EXPECT_EQ(job->attempts, 1);
    EXPECT_GE(job->timing().device, absl::Milliseconds(1));  // latency_us, waited on the core
    EXPECT_GE(job->timing().queued, absl::ZeroDuration());
  }
  auto lease = registry->Acquire("mlp");
  ASSERT_TRUE(lease.ok());
  const uint64_t on_first = (*lease)->replicas()[0]->executions.load();
  const uint64_t on_second = (*lease)->replicas()[1]->executions.load();
  EXPECT_GT(on_first, 0u);
  EXPECT_GT(on_second, 0u);
  EXPECT_EQ(on_first + on_second, jobs.size());
  EXPECT_EQ(SimStats().executions - executions_before, jobs.size());
  EXPECT_EQ((*lease)->requests_succeeded(), jobs.size());
  EXPECT_EQ((*lease)->requests_failed(), 0u);
  EXPECT_EQ((*lease)->scheduler()->depth(), 0u);
}

// (b) A job whose deadline passed or whose caller cancelled is answered without running, both
// when it arrives that way and when it happens while it waits behind a running job.
TEST_F(CoreWorkerTest, ExpiredOrCancelledJobsAreAnsweredAndNeverRun) {
  // Depth 1: the jobs behind the held one stay queued (PipelinedTest covers the ones written
  // ahead).
  auto registry = NewRegistry(Unpipelined());
  ASSERT_EQ(LoadSync(*registry, Spec("gated", MlpNeff())), "OK");
  const uint64_t executions_before = SimStats().executions;

  auto expired = NewJob(*registry, "gated", 1);
  expired->deadline = absl::Now() - absl::Seconds(1);
  PushAndWait(*expired);
  ExpectAnsweredWithoutRunning(*expired, absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(expired->message(), HasSubstr("model 'gated': the deadline passed"));
  EXPECT_THAT(expired->message(), HasSubstr("the request did not run"));

  auto cancelled = NewJob(*registry, "gated", 2);
  cancelled->Cancel();
  PushAndWait(*cancelled);
  ExpectAnsweredWithoutRunning(*cancelled, absl::StatusCode::kCancelled);
  EXPECT_THAT(cancelled->message(),
              HasSubstr("model 'gated': the request was cancelled while queued"));

  // Now behind a job held on the worker (before nrt_execute) until the gate opens.
  Notification gate;
  auto running = NewJob(*registry, "gated", 3);
  running->set_input_gate(&gate);
  ASSERT_TRUE(running->scheduler()->Submit(running.get()).ok());
  ASSERT_TRUE(running->WaitStarted());
  auto times_out = NewJob(*registry, "gated", 4);
  times_out->deadline = absl::Now() + absl::Milliseconds(5);
  auto gives_up = NewJob(*registry, "gated", 5);
  ASSERT_TRUE(times_out->scheduler()->Submit(times_out.get()).ok());
  ASSERT_TRUE(gives_up->scheduler()->Submit(gives_up.get()).ok());
  gives_up->Cancel();
  // Let the deadline pass while it is queued (time has to pass; nothing else is awaited).
  while (absl::Now() <= times_out->deadline) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_FALSE(times_out->done());
  EXPECT_FALSE(gives_up->done());
  gate.Notify();
  ASSERT_TRUE(running->WaitDone());
  ASSERT_TRUE(times_out->WaitDone());
  ASSERT_TRUE(gives_up->WaitDone());
  ExpectServed(*running);
  ExpectAnsweredWithoutRunning(*times_out, absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(times_out->message(), HasSubstr("in the queue; the request did not run"));
  ExpectAnsweredWithoutRunning(*gives_up, absl::StatusCode::kCancelled);

  // Only the one job ran.
  EXPECT_EQ(SimStats().executions - executions_before, 1u);
  auto lease = registry->Acquire("gated");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ((*lease)->replicas()[0]->executions.load(), 1u);
  EXPECT_EQ((*lease)->requests_succeeded(), 1u);
  EXPECT_EQ((*lease)->requests_failed(), 4u);
  EXPECT_EQ(expired->attempts, 0);
}

// (c) An output the caller did not ask for (an empty span) is not read; the others are.
TEST_F(CoreWorkerTest, OutputsNotWantedAreSkipped) {
  auto registry = NewRegistry();
  ASSERT_EQ(LoadSync(*registry, Spec("mlp", MlpNeff())), "OK");

  auto only_y = NewJob(*registry, "mlp", 1, {3, 0});
  PushAndWait(*only_y);
  ASSERT_EQ(only_y->code(), absl::StatusCode::kOk) << only_y->message();
  EXPECT_TRUE(Near(only_y->output(kY), ExpectedY(only_y->input(0))));
  EXPECT_TRUE(only_y->output(kZ).empty());
  EXPECT_EQ(only_y->output_calls(kY), 1);
  EXPECT_EQ(only_y->output_calls(kZ), 1);

  auto only_z = NewJob(*registry, "mlp", 2, {0, 4});
  PushAndWait(*only_z);
  ASSERT_EQ(only_z->code(), absl::StatusCode::kOk) << only_z->message();
  EXPECT_TRUE(only_z->output(kY).empty());
  EXPECT_TRUE(Near(only_z->output(kZ), ExpectedZ(only_z->input(0))));

  auto neither = NewJob(*registry, "mlp", 3, {0, 0});
  PushAndWait(*neither);
  EXPECT_EQ(neither->code(), absl::StatusCode::kOk) << neither->message();
  EXPECT_EQ(neither->completions(), 1);
}

// (d) A hardware error on a model's only replica: the request gets the runtime's error, the
// core leaves rotation, and the model answers UNAVAILABLE from then on. A model loaded later
// on that core starts out of rotation.
TEST_F(CoreWorkerTest, HardwareErrorOnTheOnlyReplicaTakesItsCoreOutOfRotation) {
  RegistryOptions options;
  options.unload_timeout = absl::Seconds(1);  // only matters if a refused job was kept (a bug)
  auto registry = NewRegistry(options);
  LoadSpec spec =
      Spec("broken", MlpNeff(0, Faults(R"({"on_execution": 1, "status": "NRT_HW_ERROR"})")));
  spec.start_cores = {1};
  ASSERT_EQ(LoadSync(*registry, std::move(spec)), "OK");
  const nrtsim_stats_t before = SimStats();

  auto failed = NewJob(*registry, "broken", 1);
  PushAndWait(*failed);
  EXPECT_EQ(failed->completions(), 1);
  EXPECT_EQ(failed->code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(failed->message(), HasSubstr("model 'broken' on core 1"));
  EXPECT_THAT(failed->message(), HasSubstr("NRT_HW_ERROR"));
  EXPECT_EQ(failed->attempts, 1);  // no other replica to retry on
  EXPECT_EQ(SimStats().faults_injected - before.faults_injected, 1u);
  EXPECT_EQ(SimStats().executions - before.executions, 0u);

  EXPECT_FALSE(registry->workers().CoreHealthy(1));
  EXPECT_TRUE(registry->workers().CoreHealthy(0));
  EXPECT_THAT(registry->workers().UnhealthyCores(), ElementsAre(1u));
  auto info = registry->Get("broken");
  ASSERT_TRUE(info.ok());
  ASSERT_EQ(info->replicas.size(), 1u);
  EXPECT_FALSE(info->replicas[0].healthy);
  EXPECT_EQ(info->requests_failed, 1u);

  auto refused = NewJob(*registry, "broken", 2);
  absl::Status pushed = refused->scheduler()->Submit(refused.get());
  EXPECT_EQ(pushed.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(pushed.message(), HasSubstr("model 'broken' has no healthy replica left"));
  EXPECT_THAT(pushed.message(), HasSubstr("NRT_HW_ERROR"));
  EXPECT_EQ(refused->completions(), 0);  // refused, not kept: the caller answers it
  // Were it kept (a bug), freeing it would leave the queue a dangling job: leak it instead, so
  // the test fails cleanly and the unload below answers it.
  if (pushed.ok()) refused.release();
  refused.reset();

  // The core stays out of rotation for the process: a new model placed there cannot serve.
  Notification unloaded;
  registry->Unload("broken", [&](absl::StatusOr<ModelInfo>) { unloaded.Notify(); });
  unloaded.WaitForNotification();
  LoadSpec later = Spec("later", MlpNeff());
  later.start_cores = {1};
  ASSERT_EQ(LoadSync(*registry, std::move(later)), "OK");
  EXPECT_FALSE(registry->Get("later")->replicas[0].healthy);
  auto stranded = NewJob(*registry, "later", 3);
  pushed = stranded->scheduler()->Submit(stranded.get());
  EXPECT_EQ(pushed.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(pushed.message(), HasSubstr("its cores failed earlier with a hardware error"));
  if (pushed.ok()) stranded.release();  // as above
}

// (d) A hardware error on one of two replicas: the request is retried on the other and
// succeeds, the failed replica's core leaves rotation, and the model keeps serving. Built by hand
// (real runtime, WorkerPool, queue and LoadedModel, no registry) so that the sound replica's
// worker can be attached only after the retry is queued: the faulty one surely takes the first
// job, and the retry is seen waiting in the queue for another replica.
TEST_F(CoreWorkerTest, HardwareErrorOnOneReplicaIsRetriedOnTheOther) {
  const nrtsim_stats_t before = SimStats();
  {
    WorkerPool pool(kCores);
    CountingDoorbell spy;
    std::shared_ptr<LoadedModel> model = BuildModel(
        "flaky",
        {MlpNeff(0, Faults(R"({"every": 1, "status": "NRT_HW_ERROR"})")), MlpNeff()}, pool,
        &spy);
    ASSERT_NE(model, nullptr);
    ModelReplica& faulty = *model->replicas()[0];
    ModelReplica& sound = *model->replicas()[1];

    auto job = std::make_unique<TestJob>(LoadedModel::Lease(model),
                                         std::vector<std::vector<float>>{InputFor(1)},
                                         kBothOutputs);
    ASSERT_TRUE(model->scheduler()->Submit(job.get()).ok());
    pool.WorkerFor(0)->Attach(model.get(), &faulty);
    ASSERT_TRUE(spy.WaitForRings(2));  // Push, then the failed job's PushRetry
    EXPECT_FALSE(job->done());
    EXPECT_FALSE(pool.CoreHealthy(0));
    EXPECT_FALSE(faulty.healthy.load());
    EXPECT_EQ(model->scheduler()->healthy_replicas(), 1u);
    EXPECT_FALSE(model->scheduler()->closed());
    EXPECT_EQ(model->scheduler()->depth(), 1u);

    pool.WorkerFor(1)->Attach(model.get(), &sound);
    ASSERT_TRUE(job->WaitDone());
    ExpectServed(*job);
    EXPECT_EQ(job->attempts, 2);
    EXPECT_EQ(faulty.executions.load(), 1u);
    EXPECT_EQ(sound.executions.load(), 1u);

    // The model keeps serving, on the sound replica only.
    for (int i = 0; i < 5; ++i) {
      TestJob next(LoadedModel::Lease(model), {InputFor(10 + i)}, kBothOutputs);
      PushAndWait(next);
      ExpectServed(next);
    }
    EXPECT_EQ(faulty.executions.load(), 1u);
    EXPECT_EQ(sound.executions.load(), 6u);
    EXPECT_TRUE(pool.CoreHealthy(1));
    EXPECT_EQ(model->requests_succeeded(), 6u);
    EXPECT_EQ(model->requests_failed(), 0u);

    pool.Detach(*model);
    job.reset();
    EXPECT_EQ(model->leases(), 0);
    model.reset();
  }
  const nrtsim_stats_t after = SimStats();
  EXPECT_EQ(after.faults_injected - before.faults_injected, 1u);
  EXPECT_EQ(after.live_models, before.live_models);
  EXPECT_EQ(after.device_bytes_used, before.device_bytes_used);
}

// (d) The same through the registry, with the simulator's per-core fault rule ("core": 0 breaks
// only the replica loaded on core 0). Which replica takes a job is not up to the test, so the
// first job is held on whichever worker took it; the second then starts on the other worker. If
// the held one is on the sound replica, the second job fails on the faulty one and waits for the
// retry; if the held one is on the faulty replica, it fails once released and is retried on the
// sound one. Either way: exactly one fault, one retry, and both requests succeed.
void RunTwoRequestsOverAFaultyReplica(ModelRegistry& registry, const std::string& name,
                                      std::unique_ptr<TestJob>& held,
                                      std::unique_ptr<TestJob>& other) {
  Notification gate;
  held = NewJob(registry, name, 1);
  held->set_input_gate(&gate);
  ASSERT_TRUE(held->scheduler()->Submit(held.get()).ok());
  ASSERT_TRUE(held->WaitStarted());
  other = NewJob(registry, name, 2);
  ASSERT_TRUE(other->scheduler()->Submit(other.get()).ok());
  // The other worker took it: otherwise, after a transient failure of the held job, the faulty
  // (still healthy) replica could take it from the main lane first.
  ASSERT_TRUE(other->WaitStarted());
  gate.Notify();
  ASSERT_TRUE(held->WaitDone());
  ASSERT_TRUE(other->WaitDone());
  ExpectServed(*held);
  ExpectServed(*other);
  EXPECT_THAT(std::vector<int>({held->attempts, other->attempts}),
              AnyOf(ElementsAre(1, 2), ElementsAre(2, 1)));
}

TEST_F(CoreWorkerTest, HardwareErrorOnOneReplicaFailsOverThroughTheRegistry) {
  auto registry = NewRegistry(Unpipelined());
  LoadSpec spec = Spec(
      "failover", MlpNeff(0, Faults(R"({"every": 1, "status": "NRT_HW_ERROR", "core": 0})")));
  spec.replicas = 2;
  ASSERT_EQ(LoadSync(*registry, std::move(spec)), "OK");
  const nrtsim_stats_t before = SimStats();

  std::unique_ptr<TestJob> held, other;
  ASSERT_NO_FATAL_FAILURE(RunTwoRequestsOverAFaultyReplica(*registry, "failover", held, other));
  EXPECT_EQ(SimStats().faults_injected - before.faults_injected, 1u);
  EXPECT_FALSE(registry->workers().CoreHealthy(0));
  EXPECT_TRUE(registry->workers().CoreHealthy(1));
  auto info = registry->Get("failover");
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE(info->replicas[0].healthy);
  EXPECT_TRUE(info->replicas[1].healthy);
  EXPECT_EQ(info->requests_succeeded, 2u);
  EXPECT_EQ(info->requests_failed, 0u);

  // It keeps serving, on core 1 only.
  for (int i = 0; i < 5; ++i) {
    auto job = NewJob(*registry, "failover", 10 + i);
    PushAndWait(*job);
    ExpectServed(*job);
    EXPECT_EQ(job->attempts, 1);
  }
  auto lease = registry->Acquire("failover");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ((*lease)->replicas()[0]->executions.load(), 1u);  // the failed one
  EXPECT_EQ((*lease)->replicas()[1]->executions.load(), 7u);
  EXPECT_EQ(SimStats().faults_injected - before.faults_injected, 1u);
}

TEST_F(CoreWorkerTest, TransientErrorOnOneReplicaIsRetriedThroughTheRegistry) {
  auto registry = NewRegistry(Unpipelined());
  LoadSpec spec = Spec(
      "hiccup", MlpNeff(0, Faults(R"({"every": 1, "status": "NRT_EXEC_NC_BUSY", "core": 0})")));
  spec.replicas = 2;
  ASSERT_EQ(LoadSync(*registry, std::move(spec)), "OK");
  const nrtsim_stats_t before = SimStats();

  std::unique_ptr<TestJob> held, other;
  ASSERT_NO_FATAL_FAILURE(RunTwoRequestsOverAFaultyReplica(*registry, "hiccup", held, other));
  EXPECT_EQ(SimStats().faults_injected - before.faults_injected, 1u);
  // Transient: nothing leaves rotation.
  EXPECT_TRUE(registry->workers().UnhealthyCores().empty());
  auto info = registry->Get("hiccup");
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->replicas[0].healthy);
  EXPECT_TRUE(info->replicas[1].healthy);
  EXPECT_EQ(info->requests_succeeded, 2u);
  EXPECT_EQ(info->requests_failed, 0u);
}

// (d) Through the registry: a hardware error of one model takes its core out of rotation for
// every model with a replica there; a two-replica model sharing the core serves on on the other.
TEST_F(CoreWorkerTest, HardwareErrorOnASharedCoreLeavesOtherModelsServingElsewhere) {
  auto registry = NewRegistry();
  LoadSpec good = Spec("good", MlpNeff());
  good.start_cores = {0, 1};
  good.shared = true;
  ASSERT_EQ(LoadSync(*registry, std::move(good)), "OK");
  LoadSpec bad = Spec("bad", MlpNeff(0, Faults(R"({"every": 1, "status": "NRT_HW_ERROR"})")));
  bad.start_cores = {0};
  bad.shared = true;
  ASSERT_EQ(LoadSync(*registry, std::move(bad)), "OK");

  auto failed = NewJob(*registry, "bad", 1);
  PushAndWait(*failed);
  EXPECT_EQ(failed->code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(failed->message(), HasSubstr("model 'bad' on core 0"));
  EXPECT_THAT(failed->message(), HasSubstr("NRT_HW_ERROR"));
  EXPECT_FALSE(registry->workers().CoreHealthy(0));

  auto info = registry->Get("good");
  ASSERT_TRUE(info.ok());
  ASSERT_EQ(info->replicas.size(), 2u);
  EXPECT_EQ(info->replicas[0].cores.start, 0u);
  EXPECT_FALSE(info->replicas[0].healthy);
  EXPECT_TRUE(info->replicas[1].healthy);

  std::vector<std::unique_ptr<TestJob>> jobs;
  for (int i = 0; i < 10; ++i) {
    jobs.push_back(NewJob(*registry, "good", i));
    ASSERT_TRUE(jobs.back()->scheduler()->Submit(jobs.back().get()).ok());
  }
  for (auto& job : jobs) {
    ASSERT_TRUE(job->WaitDone());
    ExpectServed(*job);
  }
  auto lease = registry->Acquire("good");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ((*lease)->replicas()[0]->executions.load(), 0u);
  EXPECT_EQ((*lease)->replicas()[1]->executions.load(), 10u);
  EXPECT_EQ((*lease)->scheduler()->healthy_replicas(), 1u);
}

// (d) NRT_TIMEOUT (a hang past NEURON_RT_EXEC_TIMEOUT) is a core fault like a hardware error:
// the core leaves rotation and the request runs again on the other replica.
TEST_F(CoreWorkerTest, TimeoutTakesTheCoreOutOfRotationAndFailsOver) {
  auto registry = NewRegistry(Unpipelined());
  LoadSpec spec =
      Spec("hung", MlpNeff(0, Faults(R"({"every": 1, "status": "NRT_TIMEOUT", "core": 0})")));
  spec.start_cores = {0, 1};
  ASSERT_EQ(LoadSync(*registry, std::move(spec)), "OK");
  std::unique_ptr<TestJob> held, other;
  ASSERT_NO_FATAL_FAILURE(RunTwoRequestsOverAFaultyReplica(*registry, "hung", held, other));
  EXPECT_FALSE(registry->workers().CoreHealthy(0));
  EXPECT_TRUE(registry->workers().CoreHealthy(1));
  auto info = registry->Get("hung");
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE(info->replicas[0].healthy);
  EXPECT_TRUE(info->replicas[1].healthy);
  EXPECT_EQ(info->requests_succeeded, 2u);
  EXPECT_EQ(info->requests_failed, 0u);
}

// (d) NRT_TIMEOUT on a model's only replica: UNAVAILABLE, and the core is out of rotation.
TEST_F(CoreWorkerTest, TimeoutOnTheOnlyReplicaLeavesTheModelUnavailable) {
  auto registry = NewRegistry();
  LoadSpec spec =
      Spec("alone", MlpNeff(0, Faults(R"({"on_execution": 1, "status": "NRT_TIMEOUT"})")));
  spec.start_cores = {1};
  ASSERT_EQ(LoadSync(*registry, std::move(spec)), "OK");
  auto failed = NewJob(*registry, "alone", 1);
  PushAndWait(*failed);
  EXPECT_EQ(failed->code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(failed->message(), HasSubstr("model 'alone' on core 1"));
  EXPECT_THAT(failed->message(), HasSubstr("NRT_TIMEOUT"));
  EXPECT_FALSE(registry->workers().CoreHealthy(1));
  EXPECT_FALSE(registry->Get("alone")->replicas[0].healthy);
}

// (d) A transient error (NRT_EXEC_NC_BUSY) on one of two replicas is retried on the other and
// succeeds; nothing leaves rotation. Hand-built, as above, so the retry is seen waiting.
TEST_F(CoreWorkerTest, TransientErrorIsRetriedOnceOnAnotherReplica) {
  const nrtsim_stats_t before = SimStats();
  {
    WorkerPool pool(kCores);
    CountingDoorbell spy;
    std::shared_ptr<LoadedModel> model = BuildModel(
        "slowpoke",
        {MlpNeff(0, Faults(R"({"every": 1, "status": "NRT_EXEC_NC_BUSY"})")), MlpNeff()}, pool, &spy);
    ASSERT_NE(model, nullptr);
    ModelReplica& timing_out = *model->replicas()[0];
    ModelReplica& sound = *model->replicas()[1];

    auto job = std::make_unique<TestJob>(LoadedModel::Lease(model),
                                         std::vector<std::vector<float>>{InputFor(7)},
                                         kBothOutputs);
    ASSERT_TRUE(model->scheduler()->Submit(job.get()).ok());
    pool.WorkerFor(0)->Attach(model.get(), &timing_out);
    ASSERT_TRUE(spy.WaitForRings(2));
    // The replica that failed it does not take it back while another is healthy.
    EXPECT_FALSE(job->done());
    EXPECT_EQ(model->scheduler()->depth(), 1u);
    EXPECT_TRUE(timing_out.healthy.load());
    EXPECT_TRUE(pool.CoreHealthy(0));

    pool.WorkerFor(1)->Attach(model.get(), &sound);
    ASSERT_TRUE(job->WaitDone());
    ExpectServed(*job);
    EXPECT_EQ(job->attempts, 2);
    EXPECT_EQ(timing_out.executions.load(), 1u);
    EXPECT_EQ(sound.executions.load(), 1u);
    EXPECT_TRUE(pool.UnhealthyCores().empty());
    EXPECT_EQ(model->scheduler()->healthy_replicas(), 2u);

    pool.Detach(*model);
    job.reset();
    model.reset();
  }
  const nrtsim_stats_t after = SimStats();
  EXPECT_EQ(after.faults_injected - before.faults_injected, 1u);
  EXPECT_EQ(after.live_models, before.live_models);
  EXPECT_EQ(after.device_bytes_used, before.device_bytes_used);
}

// (d) A transient error on every replica: retried once, not more, then answered with it.
TEST_F(CoreWorkerTest, TransientErrorIsRetriedOnlyOnce) {
  auto registry = NewRegistry();
  LoadSpec spec = Spec("busy", MlpNeff(0, Faults(R"({"every": 1, "status": "NRT_EXEC_NC_BUSY"})")));
  spec.replicas = 2;
  ASSERT_EQ(LoadSync(*registry, std::move(spec)), "OK");
  const nrtsim_stats_t before = SimStats();

  auto job = NewJob(*registry, "busy", 1);
  PushAndWait(*job);
  EXPECT_EQ(job->completions(), 1);
  EXPECT_EQ(job->code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(job->message(), HasSubstr("model 'busy'"));
  EXPECT_THAT(job->message(), HasSubstr("NRT_EXEC_NC_BUSY"));
  EXPECT_EQ(job->attempts, 2);
  EXPECT_EQ(SimStats().faults_injected - before.faults_injected, 2u);
  auto lease = registry->Acquire("busy");
  ASSERT_TRUE(lease.ok());
  // Once on each replica: a retry never goes back to the replica that failed it.
  EXPECT_EQ((*lease)->replicas()[0]->executions.load(), 1u);
  EXPECT_EQ((*lease)->replicas()[1]->executions.load(), 1u);
  EXPECT_TRUE(registry->workers().UnhealthyCores().empty());
}

// (d) A transient error on a model's only replica is the request's answer, and the replica
// stays in rotation.
TEST_F(CoreWorkerTest, TransientErrorOnTheOnlyReplicaFailsTheRequest) {
  auto registry = NewRegistry();
  ASSERT_EQ(LoadSync(*registry, Spec("once", MlpNeff(0, Faults(
                                                   R"({"on_execution": 1, "status": "NRT_EXEC_NC_BUSY"})")))),
            "OK");
  auto failed = NewJob(*registry, "once", 1);
  PushAndWait(*failed);
  EXPECT_EQ(failed->completions(), 1);
  EXPECT_EQ(failed->code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(failed->message(), HasSubstr("model 'once' on core 0"));
  EXPECT_THAT(failed->message(), HasSubstr("NRT_EXEC_NC_BUSY"));
  EXPECT_EQ(failed->attempts, 1);
  EXPECT_TRUE(registry->workers().CoreHealthy(0));
  EXPECT_TRUE(registry->Get("once")->replicas[0].healthy);

  auto next = NewJob(*registry, "once", 2);
  PushAndWait(*next);
  ExpectServed(*next);
}

// (e) Unload while requests wait behind a slow execution, with a short drain timeout: the
// executing one completes OK, the queued ones get UNAVAILABLE at the timeout, every job is
// answered exactly once, and the device memory comes back.
TEST_F(CoreWorkerTest, UnloadAnswersQueuedJobsAndLetsTheExecutingOneFinish) {
  RegistryOptions options;
  options.unload_timeout = absl::Milliseconds(50);
  // One unit in flight per replica: with more, the worker writes the next request while the
  // held one waits, and that one is then executing, not queued, when the unload begins.
  options.pipeline_depth = 1;
  auto registry = NewRegistry(options);
  ASSERT_EQ(LoadSync(*registry, Spec("slow", MlpNeff(/*latency_us=*/100000))), "OK");
  const uint64_t executions_before = SimStats().executions;
  EXPECT_GT(SimStats().device_bytes_used, 0u);

  Notification gate;
  auto running = NewJob(*registry, "slow", 0);
  running->set_input_gate(&gate);
  ASSERT_TRUE(running->scheduler()->Submit(running.get()).ok());
  ASSERT_TRUE(running->WaitStarted());  // on the worker: what follows queues behind it
  std::vector<std::unique_ptr<TestJob>> queued;
  for (int i = 1; i <= 4; ++i) {
    queued.push_back(NewJob(*registry, "slow", i));
    ASSERT_TRUE(queued.back()->scheduler()->Submit(queued.back().get()).ok());
  }

  Notification unloaded;
  std::atomic<bool> unload_ok{false};
  registry->Unload("slow", [&](absl::StatusOr<ModelInfo> info) {
    unload_ok = info.ok();
    unloaded.Notify();
  });
  // The queued jobs are answered once the drain timeout passes, while one still executes.
  for (auto& job : queued) {
    ASSERT_TRUE(job->WaitDone());
    ExpectAnsweredWithoutRunning(*job, absl::StatusCode::kUnavailable);
    EXPECT_THAT(job->message(), HasSubstr("model 'slow' version '1' was unloaded"));
    EXPECT_THAT(job->message(), HasSubstr("this one did not run"));
  }
  EXPECT_FALSE(running->done());
  EXPECT_FALSE(unloaded.HasBeenNotified());  // an execution is never cut short
  EXPECT_EQ(registry->Acquire("slow").status().code(), absl::StatusCode::kNotFound);

  gate.Notify();
  ASSERT_TRUE(running->WaitDone());
  ExpectServed(*running);
  EXPECT_GE(running->timing().device, absl::Milliseconds(100));
  ASSERT_TRUE(unloaded.WaitForNotificationWithTimeout(absl::Seconds(20)));
  EXPECT_TRUE(unload_ok.load());

  for (auto& job : queued) EXPECT_EQ(job->completions(), 1);
  EXPECT_EQ(running->completions(), 1);
  EXPECT_EQ(registry->Get("slow").status().code(), absl::StatusCode::kNotFound);
  const nrtsim_stats_t after = SimStats();
  EXPECT_EQ(after.executions - executions_before, 1u);
  EXPECT_EQ(after.live_models, 0u);
  EXPECT_EQ(after.device_bytes_used, 0u);
  EXPECT_EQ(after.live_tensors, 0u);
}

// (e) Unload right behind the last request, many times: the answer comes only once the model
// is off the device. (The request's lease is released on the worker thread; before the fix in
// LoadedModel::Lease::Release, that thread could still hold the last reference to the model for
// a moment after the registry saw it idle, so the unload happened there, after Unload answered.)
TEST_F(CoreWorkerTest, UnloadAnswersOnlyOnceTheModelIsOffTheDevice) {
  auto registry = NewRegistry();
  for (int round = 0; round < 200; ++round) {
    ASSERT_EQ(LoadSync(*registry, Spec("cycle", MlpNeff())), "OK");
    auto job = NewJob(*registry, "cycle", round);
    ASSERT_TRUE(job->scheduler()->Submit(job.get()).ok());
    Notification unloaded;
    registry->Unload("cycle", [&](absl::StatusOr<ModelInfo>) { unloaded.Notify(); });
    unloaded.WaitForNotification();
    const nrtsim_stats_t stats = SimStats();
    ASSERT_EQ(stats.live_models, 0u) << "round " << round;
    ASSERT_EQ(stats.device_bytes_used, 0u) << "round " << round;
    ASSERT_TRUE(job->WaitDone());
    ExpectServed(*job);
  }
}

// (f) Eight threads push 200 requests each at a two-replica model with a small queue, with
// random deadlines and cancellations: every job is answered exactly once, with an outcome its
// kind allows, and every OK answer carries the right data.
TEST_F(CoreWorkerTest, ConcurrentPushesWithDeadlinesAndCancellationsAreEachAnsweredOnce) {
  auto registry = NewRegistry();
  LoadSpec spec = Spec("stress", MlpNeff(/*latency_us=*/200));
  spec.replicas = 2;
  spec.max_queue = 4;
  ASSERT_EQ(LoadSync(*registry, std::move(spec)), "OK");
  const uint64_t executions_before = SimStats().executions;

  constexpr int kThreads = 8;
  constexpr int kPerThread = 200;
  std::vector<std::unique_ptr<TestJob>> jobs(kThreads * kPerThread);
  std::vector<StressKind> kinds(jobs.size());
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 random(1234 + t);
      std::deque<TestJob*> in_flight;
      for (int i = 0; i < kPerThread; ++i) {
        const int index = t * kPerThread + i;
        const StressKind kind = kinds[index] = DrawStressKind(random);
        jobs[index] = NewJob(*registry, "stress", index);
        TestJob& job = *jobs[index];
        PrepareForSubmit(job, kind, random);
        absl::Status pushed = job.scheduler()->Submit(&job);
        if (!pushed.ok()) {
          EXPECT_EQ(pushed.code(), absl::StatusCode::kUnavailable) << pushed;
          EXPECT_THAT(pushed.message(), HasSubstr("model 'stress': request queue is full (4"));
          job.Refuse(pushed);  // refused jobs are the caller's to answer
          // Back off as a client would: wait for an earlier answer, or for about one
          // execution's time, before pushing again (load shaping, not synchronization).
          if (!in_flight.empty()) {
            EXPECT_TRUE(in_flight.front()->WaitDone());
            in_flight.pop_front();
          } else {
            absl::SleepFor(absl::Microseconds(200));
          }
          continue;
        }
        if (kind == StressKind::kCancelledAfter) job.Cancel();
        // At most two of this thread's jobs in flight: 8 threads still overfill the queue of 4
        // (some pushes are refused), and most get through to the workers.
        in_flight.push_back(&job);
        if (in_flight.size() > 2) {
          EXPECT_TRUE(in_flight.front()->WaitDone());
          in_flight.pop_front();
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  uint64_t ok = 0;
  uint64_t failed_in_core = 0;
  uint64_t exhausted = 0;
  using C = absl::StatusCode;
  for (size_t i = 0; i < jobs.size(); ++i) {
    TestJob& job = *jobs[i];
    ASSERT_TRUE(job.WaitDone()) << "job " << i << " was never answered";
    EXPECT_EQ(job.completions(), 1) << "job " << i;
    const C code = job.code();
    EXPECT_THAT(code, OutcomesOf(kinds[i])) << i << ": " << job.message();
    // Only an OK job executed (the count of executions below) and had outputs read; another
    // may have had its inputs written ahead before it gave up while waiting for the core.
    if (code == C::kOk) {
      EXPECT_TRUE(job.started()) << i;
    } else {
      EXPECT_EQ(job.output_calls(kY), 0) << i << ": " << job.message();
    }
    if (code == C::kOk) {
      ++ok;
      EXPECT_TRUE(Near(job.output(kY), ExpectedY(job.input(0)))) << i;
      EXPECT_TRUE(Near(job.output(kZ), ExpectedZ(job.input(0)))) << i;
    } else if (code == C::kUnavailable) {
      ++exhausted;
    } else {
      ++failed_in_core;
    }
    EXPECT_FALSE(job.holds_lease());
  }
  EXPECT_GT(ok, 0u);
  EXPECT_EQ(ok + exhausted + failed_in_core, jobs.size());
  EXPECT_EQ(SimStats().executions - executions_before, ok);
  auto lease = registry->Acquire("stress");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ((*lease)->replicas()[0]->executions.load() + (*lease)->replicas()[1]->executions.load(),
            ok);
  EXPECT_EQ((*lease)->requests_succeeded(), ok);
  EXPECT_EQ((*lease)->requests_failed(), failed_in_core);
  EXPECT_EQ((*lease)->scheduler()->depth(), 0u);
  RecordProperty("ok", static_cast<int>(ok));
  RecordProperty("resource_exhausted", static_cast<int>(exhausted));
  RecordProperty("deadline_or_cancelled", static_cast<int>(failed_in_core));
}

}  // namespace
}  // namespace neuronserve
