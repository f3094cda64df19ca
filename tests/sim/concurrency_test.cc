// Simulated device time and per-core serialization, proven by counters rather than by timing
// (only lower bounds on time are asserted: these machines are shared and noisy).
#include <chrono>
#include <latch>
#include <thread>
#include <vector>

#include "tests/sim/sim_test_util.h"

namespace nrtsim_test {
namespace {

json SlowModel(int latency_us, int nc_count = 1) {
  return {{"nc_count", nc_count},
          {"latency_us", latency_us},
          {"inputs", {Float32("x", {4})}},
          {"outputs", {Float32("y", {4})}},
          {"ops", {{{"op", "relu"}, {"inputs", {"x"}}, {"output", "y"}}}}};
}

// A model with its bound tensor sets on one core, ready to execute from any thread.
struct BoundModel {
  ModelPtr model;
  TensorPtr in, out;
  TensorSetPtr in_set, out_set;
};

class ConcurrencyTest : public SimTest {
 protected:
  void SetUp() override {
    SimTest::SetUp();
    SetEnv("NRTSIM_CORES", "3");
    Init();
  }

  BoundModel Bind(const json& model, int vnc) {
    BoundModel bound;
    bound.model = MustLoad(model, vnc);
    bound.in = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, 16);
    bound.out = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, 16);
    bound.in_set = MustAllocateSet();
    bound.out_set = MustAllocateSet();
    MustAdd(bound.in_set.get(), "x", bound.in.get());
    MustAdd(bound.out_set.get(), "y", bound.out.get());
    return bound;
  }

  // Executes each model `rounds` times from its own thread, all threads started together;
  // returns the peak number of executions that were in the device section at once.
  uint64_t PeakWhileRunning(std::vector<BoundModel*> models, int rounds) {
    api().nrtsim_reset_peak();
    std::latch start(static_cast<std::ptrdiff_t>(models.size()));
    std::vector<std::thread> threads;
    std::vector<int> failures(models.size(), 0);
    for (size_t i = 0; i < models.size(); ++i) {
      threads.emplace_back([&, i] {
        start.arrive_and_wait();
        for (int r = 0; r < rounds; ++r) {
          BoundModel& m = *models[i];
          if (api().nrt_execute(m.model.get(), m.in_set.get(), m.out_set.get()) != NRT_SUCCESS) {
            ++failures[i];
          }
        }
      });
    }
    for (std::thread& t : threads) t.join();
    for (int f : failures) EXPECT_EQ(f, 0);
    return Stats().peak_concurrent_executions;
  }
};

TEST_F(ConcurrencyTest, AnExecutionTakesAtLeastItsLatency) {
  BoundModel m = Bind(SlowModel(50'000), 0);
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(api().nrt_execute(m.model.get(), m.in_set.get(), m.out_set.get()), NRT_SUCCESS);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
}

TEST_F(ConcurrencyTest, LoadTakesAtLeastItsLoadLatency) {
  json model = SlowModel(0);
  model["load_latency_ms"] = 30;
  auto start = std::chrono::steady_clock::now();
  ModelPtr loaded = MustLoad(model);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(30));
}

TEST_F(ConcurrencyTest, DifferentCoresRunInParallel) {
  BoundModel a = Bind(SlowModel(100'000), 0);
  BoundModel b = Bind(SlowModel(100'000), 1);
  uint64_t executions = Stats().executions;
  EXPECT_EQ(PeakWhileRunning({&a, &b}, 2), 2u);
  EXPECT_EQ(Stats().executions, executions + 4);
}

TEST_F(ConcurrencyTest, TheSameCoreSerializes) {
  BoundModel a = Bind(SlowModel(100'000), 0);
  BoundModel b = Bind(SlowModel(100'000), 0);
  EXPECT_EQ(PeakWhileRunning({&a, &b}, 2), 1u);
}

TEST_F(ConcurrencyTest, OneModelFromTwoThreadsSerializes) {
  BoundModel a = Bind(SlowModel(50'000), 2);
  EXPECT_EQ(PeakWhileRunning({&a, &a}, 2), 1u);
}

TEST_F(ConcurrencyTest, AMultiCoreModelHoldsAllItsCores) {
  BoundModel wide = Bind(SlowModel(100'000, 2), 0);  // cores 0 and 1
  BoundModel on_core_1 = Bind(SlowModel(100'000), 1);
  BoundModel on_core_2 = Bind(SlowModel(100'000), 2);
  EXPECT_EQ(PeakWhileRunning({&wide, &on_core_1}, 2), 1u);
  EXPECT_EQ(PeakWhileRunning({&wide, &on_core_2}, 2), 2u);
}

TEST_F(ConcurrencyTest, ManyThreadsLeaveConsistentCounters) {
  // Unthrottled executions and allocations from several threads (for the sanitizers).
  uint64_t executions = Stats().executions;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([this, t] {
      BoundModel m = Bind(SlowModel(0), t % 3);
      for (int i = 0; i < 50; ++i) {
        EXPECT_EQ(api().nrt_execute(m.model.get(), m.in_set.get(), m.out_set.get()), NRT_SUCCESS);
        TensorPtr scratch = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, t % 3, 64);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  nrtsim_stats_t stats = Stats();
  EXPECT_EQ(stats.executions, executions + 200);
  EXPECT_EQ(stats.live_tensors, 0u);
  EXPECT_EQ(stats.live_models, 0u);
  EXPECT_EQ(stats.device_bytes_used, 0u);
}

}  // namespace
}  // namespace nrtsim_test
