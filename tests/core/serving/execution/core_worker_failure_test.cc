// Core workers meeting errors: a hardware error or a timeout takes a replica's cores out of
// rotation, transient errors are retried once on another replica, and models on a shared core
// keep serving elsewhere (core_worker_fixture.h has the model and the fixture).
#include "tests/core/serving/execution/core_worker_fixture.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace neuronserve {
namespace core_worker_test {
namespace {

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

}  // namespace
}  // namespace core_worker_test
}  // namespace neuronserve
