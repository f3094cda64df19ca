// EvaluateHealth, HealthMonitor and CallbackRelay.
#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/health/health_evaluator.h"
#include "core/health/health_monitor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/callback_relay.h"
#include "base/mutex.h"

namespace neuronserve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

ModelInfo Model(const std::string& name, ModelState state, std::vector<bool> replicas_healthy) {
  ModelInfo model;
  model.identity.name = name;
  model.identity.version = "1";
  model.state = state;
  uint32_t core = 0;
  for (bool healthy : replicas_healthy) {
    ReplicaInfo replica;
    replica.cores = CoreRange{core++, 1};
    replica.healthy = healthy;
    model.replicas.push_back(replica);
  }
  return model;
}

// Started, not draining, two cores of which one healthy.
HealthInputs ServingInputs() {
  HealthInputs inputs;
  inputs.startup_done = true;
  inputs.draining = false;
  inputs.core_healthy = {false, true};
  inputs.execution_timeout = absl::Seconds(10);
  return inputs;
}

// ---------------------------------------------------------------------------------------------
// EvaluateHealth

TEST(EvaluateHealthTest, ServingWhenStartedNotDrainingAndOneCoreHealthy) {
  const HealthReport report = EvaluateHealth(ServingInputs());
  EXPECT_TRUE(report.serving);
  EXPECT_THAT(report.serving_reason, IsEmpty());
  EXPECT_TRUE(report.live);
  EXPECT_THAT(report.live_reason, IsEmpty());
  EXPECT_THAT(report.models, IsEmpty());
}

TEST(EvaluateHealthTest, NotServingBeforeStartupIsDone) {
  HealthInputs inputs = ServingInputs();
  inputs.startup_done = false;
  const HealthReport report = EvaluateHealth(inputs);
  EXPECT_FALSE(report.serving);
  EXPECT_THAT(report.serving_reason, HasSubstr("starting"));
  EXPECT_TRUE(report.live);
}

TEST(EvaluateHealthTest, NotServingWhileDraining) {
  HealthInputs inputs = ServingInputs();
  inputs.draining = true;
  const HealthReport report = EvaluateHealth(inputs);
  EXPECT_FALSE(report.serving);
  EXPECT_THAT(report.serving_reason, HasSubstr("draining"));
  EXPECT_TRUE(report.live) << "draining is not a reason to restart the daemon";
}

TEST(EvaluateHealthTest, NotServingWithoutAHealthyCore) {
  HealthInputs inputs = ServingInputs();
  inputs.core_healthy = {false, false};
  HealthReport report = EvaluateHealth(inputs);
  EXPECT_FALSE(report.serving);
  EXPECT_THAT(report.serving_reason, HasSubstr("no NeuronCore is healthy"));

  inputs.core_healthy.clear();  // no core at all
  report = EvaluateHealth(inputs);
  EXPECT_FALSE(report.serving);
  EXPECT_THAT(report.serving_reason, HasSubstr("no NeuronCore is healthy"));
}

TEST(EvaluateHealthTest, ModelServingOnlyWhenReadyWithAHealthyReplica) {
  HealthInputs inputs = ServingInputs();
  inputs.models = {
      Model("ready", ModelState::kReady, {true}),
      Model("ready_partly", ModelState::kReady, {false, true}),
      Model("ready_all_unhealthy", ModelState::kReady, {false, false}),
      Model("ready_no_replica", ModelState::kReady, {}),
      Model("loading", ModelState::kLoading, {true}),
      Model("failed", ModelState::kFailed, {}),
      Model("unloading", ModelState::kUnloading, {true}),
  };
  const HealthReport report = EvaluateHealth(inputs);
  EXPECT_THAT(report.models,
              UnorderedElementsAre(Pair("ready", true), Pair("ready_partly", true),
                                   Pair("ready_all_unhealthy", false),
                                   Pair("ready_no_replica", false), Pair("loading", false),
                                   Pair("failed", false), Pair("unloading", false)));
  EXPECT_TRUE(report.serving);
}

TEST(EvaluateHealthTest, NoModelServingWhileDraining) {
  HealthInputs inputs = ServingInputs();
  inputs.draining = true;
  inputs.models = {Model("a", ModelState::kReady, {true}), Model("b", ModelState::kReady, {true})};
  const HealthReport report = EvaluateHealth(inputs);
  EXPECT_THAT(report.models, UnorderedElementsAre(Pair("a", false), Pair("b", false)));
}

TEST(EvaluateHealthTest, LiveUnlessAnExecutionRunsPastTheTimeout) {
  HealthInputs inputs = ServingInputs();
  inputs.execution_timeout = absl::Seconds(10);
  EXPECT_TRUE(EvaluateHealth(inputs).live);  // nothing running

  inputs.longest_execution = RunningExecution{3, absl::Seconds(9)};
  EXPECT_TRUE(EvaluateHealth(inputs).live);
  inputs.longest_execution = RunningExecution{3, absl::Seconds(10)};
  EXPECT_TRUE(EvaluateHealth(inputs).live) << "exactly at the timeout is not past it";

  inputs.longest_execution = RunningExecution{3, absl::Seconds(10) + absl::Milliseconds(1)};
  const HealthReport report = EvaluateHealth(inputs);
  EXPECT_FALSE(report.live);
  EXPECT_THAT(report.live_reason, HasSubstr("NeuronCore 3"));
  EXPECT_TRUE(report.serving) << "liveness does not decide readiness";
}

TEST(EvaluateHealthTest, LiveWithAnyExecutionWhenThereIsNoTimeout) {
  HealthInputs inputs = ServingInputs();
  inputs.execution_timeout = absl::InfiniteDuration();
  inputs.longest_execution = RunningExecution{0, absl::Hours(100)};
  EXPECT_TRUE(EvaluateHealth(inputs).live);
}

// ---------------------------------------------------------------------------------------------
// HealthMonitor

// The daemon's state as the monitor gathers it, and what it published.
class FakeDaemon {
 public:
  FakeDaemon() {
    inputs_ = ServingInputs();
    inputs_.models = {Model("a", ModelState::kReady, {true}),
                      Model("b", ModelState::kLoading, {true})};
  }

  HealthMonitor::Gather gather() {
    return [this] {
      MutexLock lock(&mutex_);
      ++gathers_;
      return inputs_;
    };
  }
  HealthMonitor::Publish publish() {
    return [this](const std::string& service, bool serving, const HealthReport&) {
      MutexLock lock(&mutex_);
      if (closed_) ++published_after_close_;
      published_.emplace_back(service, serving);
      changed_.NotifyAll();
    };
  }

  template <typename F>
  void Change(F change) {
    MutexLock lock(&mutex_);
    change(inputs_);
  }
  // Returns what was published since the last call.
  std::vector<std::pair<std::string, bool>> Take() {
    MutexLock lock(&mutex_);
    return std::exchange(published_, {});
  }
  // Waits until something was published (false after `timeout`).
  bool WaitForPublish(absl::Duration timeout) {
    MutexLock lock(&mutex_);
    return changed_.WaitWithTimeout(
        &mutex_, timeout, [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return !published_.empty(); });
  }
  int gathers() {
    MutexLock lock(&mutex_);
    return gathers_;
  }
  void Close() {
    MutexLock lock(&mutex_);
    closed_ = true;
  }
  int published_after_close() {
    MutexLock lock(&mutex_);
    return published_after_close_;
  }

 private:
  Mutex mutex_;
  CondVar changed_;
  HealthInputs inputs_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::pair<std::string, bool>> published_ ABSL_GUARDED_BY(mutex_);
  int gathers_ ABSL_GUARDED_BY(mutex_) = 0;
  bool closed_ ABSL_GUARDED_BY(mutex_) = false;
  int published_after_close_ ABSL_GUARDED_BY(mutex_) = 0;
};

using Published = std::vector<std::pair<std::string, bool>>;

// Long enough that the monitor's thread never re-evaluates on its own within a test.
constexpr absl::Duration kNoInterval = absl::Hours(1);

TEST(HealthMonitorTest, ConstructorPublishesEveryInitialStatusOnce) {
  FakeDaemon daemon;
  HealthMonitor monitor(daemon.gather(), daemon.publish(), kNoInterval);
  EXPECT_THAT(daemon.Take(), ElementsAre(Pair(kLivenessService, true), Pair("", true),
                                         Pair("a", true), Pair("b", false)));
  const HealthReport latest = monitor.Latest();
  EXPECT_TRUE(latest.serving);
  EXPECT_TRUE(latest.live);
  EXPECT_THAT(latest.models, UnorderedElementsAre(Pair("a", true), Pair("b", false)));

  monitor.EvaluateNow();  // nothing changed: nothing published again
  EXPECT_THAT(daemon.Take(), IsEmpty());
}

TEST(HealthMonitorTest, EvaluateNowPublishesOnlyWhatChangedInOrder) {
  FakeDaemon daemon;
  HealthMonitor monitor(daemon.gather(), daemon.publish(), kNoInterval);
  daemon.Take();

  daemon.Change([](HealthInputs& in) { in.models[1].state = ModelState::kReady; });
  monitor.EvaluateNow();
  EXPECT_THAT(daemon.Take(), ElementsAre(Pair("b", true)));

  daemon.Change([](HealthInputs& in) { in.draining = true; });
  monitor.EvaluateNow();
  EXPECT_THAT(daemon.Take(), ElementsAre(Pair("", false), Pair("a", false), Pair("b", false)));
  EXPECT_FALSE(monitor.Latest().serving);

  daemon.Change([](HealthInputs& in) {
    in.longest_execution = RunningExecution{1, in.execution_timeout + absl::Seconds(1)};
  });
  monitor.EvaluateNow();
  EXPECT_THAT(daemon.Take(), ElementsAre(Pair(kLivenessService, false)));
  EXPECT_FALSE(monitor.Latest().live);

  monitor.EvaluateNow();
  EXPECT_THAT(daemon.Take(), IsEmpty());
}

TEST(HealthMonitorTest, ModelThatDisappearsIsPublishedNotServingOnceIfItWasServing) {
  FakeDaemon daemon;  // a READY (serving), b LOADING (not)
  HealthMonitor monitor(daemon.gather(), daemon.publish(), kNoInterval);
  daemon.Take();

  daemon.Change([](HealthInputs& in) { in.models.clear(); });
  monitor.EvaluateNow();
  EXPECT_THAT(daemon.Take(), ElementsAre(Pair("a", false)));
  EXPECT_THAT(monitor.Latest().models, IsEmpty());
  monitor.EvaluateNow();
  EXPECT_THAT(daemon.Take(), IsEmpty());

  // It comes back: published again.
  daemon.Change([](HealthInputs& in) { in.models = {Model("a", ModelState::kReady, {true})}; });
  monitor.EvaluateNow();
  EXPECT_THAT(daemon.Take(), ElementsAre(Pair("a", true)));
}

TEST(HealthMonitorTest, PokeReevaluatesSoon) {
  FakeDaemon daemon;
  HealthMonitor monitor(daemon.gather(), daemon.publish(), kNoInterval);
  daemon.Take();
  daemon.Change([](HealthInputs& in) { in.core_healthy = {false, false}; });
  // A negative check over a window (nothing observable says the thread is asleep in its wait):
  // a thread that re-evaluated on its own would have published within these 30 ms.
  absl::SleepFor(absl::Milliseconds(30));
  EXPECT_THAT(daemon.Take(), IsEmpty()) << "re-evaluated without a poke";

  const absl::Time start = absl::Now();
  monitor.Poke();
  ASSERT_TRUE(daemon.WaitForPublish(absl::Seconds(1)));
  EXPECT_LT(absl::Now() - start, absl::Milliseconds(500));
  EXPECT_THAT(daemon.Take(), ElementsAre(Pair("", false)));
  // Latest() is updated right after the publishing (not before it): wait for it briefly.
  for (int i = 0; i < 100 && monitor.Latest().serving; ++i) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_FALSE(monitor.Latest().serving);
}

TEST(HealthMonitorTest, IntervalReevaluatesWithoutAPoke) {
  FakeDaemon daemon;
  HealthMonitor monitor(daemon.gather(), daemon.publish(), absl::Milliseconds(20));
  daemon.Take();
  daemon.Change([](HealthInputs& in) { in.models[0].replicas[0].healthy = false; });
  ASSERT_TRUE(daemon.WaitForPublish(absl::Seconds(1)));
  EXPECT_THAT(daemon.Take(), ElementsAre(Pair("a", false)));
  // And it keeps going.
  daemon.Change([](HealthInputs& in) { in.models[0].replicas[0].healthy = true; });
  ASSERT_TRUE(daemon.WaitForPublish(absl::Seconds(1)));
  EXPECT_THAT(daemon.Take(), ElementsAre(Pair("a", true)));
}

TEST(HealthMonitorTest, NothingIsPublishedAfterDestruction) {
  FakeDaemon daemon;
  std::atomic<bool> flip{false};
  HealthMonitor::Gather base = daemon.gather();
  // Every evaluation changes "": the thread publishes on every (1 ms) round.
  HealthMonitor::Gather gather = [&flip, base] {
    HealthInputs inputs = base();
    inputs.draining = flip.exchange(!flip.load());
    return inputs;
  };
  {
    HealthMonitor monitor(gather, daemon.publish(), absl::Milliseconds(1));
    ASSERT_TRUE(daemon.WaitForPublish(absl::Seconds(1)));
    const int gathers = daemon.gathers();
    for (int i = 0; i < 200 && daemon.gathers() < gathers + 3; ++i) {
      absl::SleepFor(absl::Milliseconds(2));
    }
    EXPECT_GE(daemon.gathers(), gathers + 3) << "the thread does not re-evaluate";
  }
  daemon.Close();
  const int gathers = daemon.gathers();
  // A negative check over a window: a thread that outlived the destructor would have gathered
  // (every 1 ms) and published within these 30 ms.
  absl::SleepFor(absl::Milliseconds(30));
  EXPECT_EQ(daemon.published_after_close(), 0);
  EXPECT_EQ(daemon.gathers(), gathers);
}

TEST(HealthMonitorTest, ConcurrentPokesAndEvaluationsPublishAlternatingStatuses) {
  FakeDaemon daemon;
  std::atomic<bool> down{false};
  HealthMonitor::Gather base = daemon.gather();
  HealthMonitor::Gather gather = [&down, base] {
    HealthInputs inputs = base();
    if (down.load()) {
      inputs.draining = true;                                          // "", a
      inputs.longest_execution = RunningExecution{2, absl::Hours(1)};  // liveness
    }
    return inputs;
  };

  Mutex mutex;
  std::map<std::string, std::vector<bool>> history;  // by service, in publishing order
  HealthMonitor::Publish publish = [&](const std::string& service, bool serving,
                                       const HealthReport&) {
    MutexLock lock(&mutex);
    history[service].push_back(serving);
  };

  {
    HealthMonitor monitor(gather, publish, absl::Milliseconds(1));
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back([&, t] {
        while (!stop.load()) {
          if (t == 0) {
            monitor.Poke();
          } else {
            monitor.EvaluateNow();
          }
          std::this_thread::yield();
        }
      });
    }
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        down.store(!down.load());
        monitor.Poke();
        absl::SleepFor(absl::Microseconds(500));
      }
      stop.store(true);
    });
    for (std::thread& thread : threads) thread.join();
    monitor.EvaluateNow();  // settle on the final state

    MutexLock lock(&mutex);
    const HealthReport latest = monitor.Latest();
    for (const std::string& service :
         {std::string(kLivenessService), std::string(""), std::string("a"), std::string("b")}) {
      const std::vector<bool>& values = history[service];
      ASSERT_FALSE(values.empty()) << service;
      for (size_t i = 1; i < values.size(); ++i) {
        ASSERT_NE(values[i], values[i - 1])
            << "service '" << service << "' published " << values[i] << " twice in a row at " << i;
      }
    }
    EXPECT_GT(history[""].size(), 2u) << "the state flips were never seen";
    EXPECT_EQ(history["b"].size(), 1u);  // LOADING all along
    EXPECT_EQ(latest.live, history[kLivenessService].back());
    EXPECT_EQ(latest.serving, history[""].back());
    EXPECT_EQ(latest.models.at("a"), history["a"].back());
    EXPECT_EQ(latest.models.at("b"), history["b"].back());
    EXPECT_EQ(latest.serving, !down.load());
  }
}

// ---------------------------------------------------------------------------------------------
// CallbackRelay

TEST(CallbackRelayTest, NotifyDoesNothingUnplugged) {
  CallbackRelay relay;
  relay.Notify();  // no target: nothing to call
  int calls = 0;
  relay.Plug([&calls] { ++calls; });
  relay.Unplug();
  relay.Notify();
  EXPECT_EQ(calls, 0);
}

TEST(CallbackRelayTest, NotifyCallsThePluggedTargetOnce) {
  CallbackRelay relay;
  int first = 0;
  int second = 0;
  relay.Plug([&first] { ++first; });
  relay.Notify();
  EXPECT_EQ(first, 1);
  relay.Notify();
  EXPECT_EQ(first, 2);
  relay.Plug([&second] { ++second; });  // replaces the target
  relay.Notify();
  EXPECT_EQ(first, 2);
  EXPECT_EQ(second, 1);
}

TEST(CallbackRelayTest, UnplugWaitsForARunningCall) {
  CallbackRelay relay;
  Notification entered;
  Notification release;
  std::atomic<bool> call_done{false};
  std::atomic<int> calls{0};
  relay.Plug([&] {
    calls.fetch_add(1);
    entered.Notify();
    release.WaitForNotification();
    call_done.store(true);
  });
  std::thread notifier([&] { relay.Notify(); });
  ASSERT_TRUE(entered.WaitForNotificationWithTimeout(absl::Seconds(5)));

  std::atomic<bool> unplugged{false};
  std::atomic<bool> call_done_at_unplug{false};
  Notification unplugging;
  std::thread unplugger([&] {
    unplugging.Notify();
    relay.Unplug();
    call_done_at_unplug.store(call_done.load());
    unplugged.store(true);
  });
  EXPECT_TRUE(unplugging.WaitForNotificationWithTimeout(absl::Seconds(5)));
  // A negative check, so it needs a window: nothing observable says "blocked inside Unplug".
  // 20 ms from the call on is far longer than a call that does not wait takes to return;
  // call_done_at_unplug below checks the order however long it is.
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_FALSE(unplugged.load()) << "Unplug returned while the target ran";
  release.Notify();
  notifier.join();
  unplugger.join();
  EXPECT_TRUE(unplugged.load());
  EXPECT_TRUE(call_done_at_unplug.load());
  relay.Notify();  // unplugged now
  EXPECT_EQ(calls.load(), 1);
}

}  // namespace
}  // namespace neuronserve
