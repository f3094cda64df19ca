// Core workers serving: right answers from several threads on several replicas, jobs that
// expired or were cancelled never run, unwanted outputs are skipped, and unloading answers
// queued jobs and lets the executing one finish (core_worker_fixture.h has the model).
#include "tests/core/serving/execution/core_worker_fixture.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace neuronserve {
namespace core_worker_test {
namespace {

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
}  // namespace core_worker_test
}  // namespace neuronserve
