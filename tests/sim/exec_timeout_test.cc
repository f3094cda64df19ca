// NEURON_RT_EXEC_TIMEOUT: an execution whose simulated latency is longer than the limit returns
// NRT_TIMEOUT once the limit has passed, holding its core until then like a real execution.
// Upper bounds on time are generous: these machines are shared and noisy.
#include <chrono>
#include <thread>

#include "tests/sim/sim_test_util.h"

namespace nrtsim_test {
namespace {

using Clock = std::chrono::steady_clock;

json ReluModel(int latency_us) {
  return {{"latency_us", latency_us},
          {"inputs", {Float32("x", {4})}},
          {"outputs", {Float32("y", {4})}},
          {"ops", {{{"op", "relu"}, {"inputs", {"x"}}, {"output", "y"}}}}};
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

class ExecTimeoutTest : public SimTest {
 protected:
  void SetUp() override {
    SimTest::SetUp();
    SetEnv("NEURON_RT_EXEC_TIMEOUT", "1");
    Init();
  }
};

TEST_F(ExecTimeoutTest, ALongerExecutionTimesOutAfterTheLimit) {
  ModelPtr model = MustLoad(ReluModel(2500000));
  FloatMap outputs;
  const uint64_t executions_before = Stats().executions;  // process-wide
  testing::internal::CaptureStderr();
  const Clock::time_point start = Clock::now();
  NRT_STATUS status = Run(model.get(), 0, {{"x", {1, -2, 3, -4}}}, {{"y", 4}}, &outputs);
  const double elapsed = SecondsSince(start);
  std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_EQ(status, NRT_TIMEOUT);
  EXPECT_GE(elapsed, 1.0);
  EXPECT_LT(elapsed, 2.0);  // the 2.5 s of the model's latency did not pass
  EXPECT_NE(printed.find("nrtsim: nrt_execute: timed out after NEURON_RT_EXEC_TIMEOUT=1 s"),
            std::string::npos)
      << printed;
  EXPECT_TRUE(outputs.empty());
  EXPECT_EQ(Stats().executions, executions_before);  // it did not complete
}

// A `latency_us` fault makes one copy of a fast model slow: on its core (and only there) the
// execution runs past the limit and times out; the copy on the other core is not affected.
TEST_F(ExecTimeoutTest, ASlowFaultOnOneCoreTimesOutThere) {
  json model = ReluModel(0);
  model["faults"] = {{{"on_execution", 1}, {"latency_us", 30000000}, {"core", 1}}};
  ModelPtr on_zero = MustLoad(model, 0);
  ModelPtr on_one = MustLoad(model, 1);
  FloatMap outputs;
  ASSERT_EQ(Run(on_zero.get(), 0, {{"x", {1, -2, 3, -4}}}, {{"y", 4}}, &outputs), NRT_SUCCESS);
  EXPECT_EQ(outputs["y"], (std::vector<float>{1, 0, 3, 0}));
  outputs.clear();
  testing::internal::CaptureStderr();
  const Clock::time_point start = Clock::now();
  NRT_STATUS status = Run(on_one.get(), 1, {{"x", {1, -2, 3, -4}}}, {{"y", 4}}, &outputs);
  const double elapsed = SecondsSince(start);
  std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_EQ(status, NRT_TIMEOUT);
  EXPECT_GE(elapsed, 1.0);
  EXPECT_LT(elapsed, 10.0);  // not the fault's 30 s
  EXPECT_NE(printed.find("the execution takes 30000000 us"), std::string::npos) << printed;
  // Only the first execution was slow: the next one on core 1 succeeds.
  ASSERT_EQ(Run(on_one.get(), 1, {{"x", {1, -2, 3, -4}}}, {{"y", 4}}, &outputs), NRT_SUCCESS);
  EXPECT_EQ(outputs["y"], (std::vector<float>{1, 0, 3, 0}));
}

TEST_F(ExecTimeoutTest, AShorterExecutionSucceeds) {
  ModelPtr model = MustLoad(ReluModel(200000));
  FloatMap outputs;
  ASSERT_EQ(Run(model.get(), 0, {{"x", {1, -2, 3, -4}}}, {{"y", 4}}, &outputs), NRT_SUCCESS);
  EXPECT_EQ(outputs["y"], (std::vector<float>{1, 0, 3, 0}));
}

TEST_F(ExecTimeoutTest, ATimedOutExecutionHoldsItsCoreUntilTheLimit) {
  ModelPtr slow = MustLoad(ReluModel(2500000));
  ModelPtr fast = MustLoad(ReluModel(0));
  api().nrtsim_reset_peak();
  const Clock::time_point start = Clock::now();
  NRT_STATUS slow_status = NRT_SUCCESS;
  std::thread runner([&] {
    FloatMap ignored;
    slow_status = Run(slow.get(), 0, {{"x", {1, 2, 3, 4}}}, {{"y", 4}}, &ignored);
  });
  // Once the slow execution is in the device section, the fast one on the same core must wait
  // for it to give the core up, i.e. until the timeout.
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(20);
  while (Stats().peak_concurrent_executions == 0 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(Stats().peak_concurrent_executions, 1u);
  FloatMap outputs;
  EXPECT_EQ(Run(fast.get(), 0, {{"x", {1, -1, 2, -2}}}, {{"y", 4}}, &outputs), NRT_SUCCESS);
  EXPECT_GE(SecondsSince(start), 1.0);
  runner.join();
  EXPECT_EQ(slow_status, NRT_TIMEOUT);
}

}  // namespace
}  // namespace nrtsim_test
