// Fault injection: which executions fail, with which status, reproducibly.
#include <algorithm>
#include <string>
#include <vector>

#include "tests/sim/sim_test_util.h"

namespace nrtsim_test {
namespace {

class FaultTest : public SimTest {
 protected:
  void SetUp() override {
    SimTest::SetUp();
    Init();
  }

  static json ModelWithFaults(json faults) {
    return {{"inputs", {Float32("x", {2})}},
            {"outputs", {Float32("y", {2})}},
            {"ops", {{{"op", "identity"}, {"inputs", {"x"}}, {"output", "y"}}}},
            {"faults", std::move(faults)}};
  }

  // The statuses of `count` consecutive executions of `model` with matching sets.
  std::vector<NRT_STATUS> Statuses(nrt_model_t* model, int count) {
    std::vector<NRT_STATUS> statuses;
    FloatMap out;
    for (int i = 0; i < count; ++i) {
      statuses.push_back(Run(model, 0, {{"x", {1, 2}}}, {{"y", 2}}, &out));
    }
    return statuses;
  }
};

constexpr NRT_STATUS kOk = NRT_SUCCESS;

TEST_F(FaultTest, OnExecutionFailsExactlyThatExecution) {
  ModelPtr model = MustLoad(ModelWithFaults({{{"on_execution", 2}, {"status", "NRT_HW_ERROR"}}}));
  nrtsim_stats_t before = Stats();
  EXPECT_EQ(Statuses(model.get(), 4), (std::vector<NRT_STATUS>{kOk, NRT_HW_ERROR, kOk, kOk}));
  EXPECT_EQ(Stats().faults_injected, before.faults_injected + 1);
  EXPECT_EQ(Stats().executions, before.executions + 3);
}

TEST_F(FaultTest, ACoreFilteredRuleBreaksOnlyTheCopyOnThatCore) {
  const json faults = {{{"every", 1}, {"status", "NRT_HW_ERROR"}, {"core", 1}}};
  ModelPtr on_zero = MustLoad(ModelWithFaults(faults), 0);
  ModelPtr on_one = MustLoad(ModelWithFaults(faults), 1);
  FloatMap out;
  EXPECT_EQ(Run(on_zero.get(), 0, {{"x", {1, 2}}}, {{"y", 2}}, &out), kOk);
  EXPECT_EQ(Run(on_one.get(), 1, {{"x", {1, 2}}}, {{"y", 2}}, &out), NRT_HW_ERROR);
}

TEST_F(FaultTest, EveryNthWithANumericStatus) {
  ModelPtr model = MustLoad(ModelWithFaults({{{"every", 3}, {"status", 1005}}}));
  std::vector<NRT_STATUS> expected = {kOk, kOk, NRT_EXEC_NC_BUSY, kOk, kOk, NRT_EXEC_NC_BUSY};
  EXPECT_EQ(Statuses(model.get(), 6), expected);
}

TEST_F(FaultTest, StatusByShortNameAndUndeclaredNumber) {
  ModelPtr short_name = MustLoad(ModelWithFaults({{{"every", 1}, {"status", "TIMEOUT"}}}));
  EXPECT_EQ(Statuses(short_name.get(), 1), (std::vector<NRT_STATUS>{NRT_TIMEOUT}));
  ModelPtr undeclared = MustLoad(ModelWithFaults({{{"every", 1}, {"status", 4242}}}));
  EXPECT_EQ(Statuses(undeclared.get(), 1), (std::vector<NRT_STATUS>{NRT_STATUS(4242)}));
}

TEST_F(FaultTest, FirstMatchingFaultWins) {
  ModelPtr model = MustLoad(ModelWithFaults(
      {{{"on_execution", 2}, {"status", "HW_ERROR"}}, {{"every", 2}, {"status", "NRT_TIMEOUT"}}}));
  EXPECT_EQ(Statuses(model.get(), 4),
            (std::vector<NRT_STATUS>{kOk, NRT_HW_ERROR, kOk, NRT_TIMEOUT}));
}

TEST_F(FaultTest, FaultsAreCheckedBeforeTheTensorSetsAndLeaveOutputsAlone) {
  ModelPtr model = MustLoad(ModelWithFaults({{{"on_execution", 1}, {"status", "HW_ERROR"}}}));
  TensorSetPtr empty_in = MustAllocateSet(), empty_out = MustAllocateSet();
  EXPECT_EQ(api().nrt_execute(model.get(), empty_in.get(), empty_out.get()), NRT_HW_ERROR);
  EXPECT_EQ(api().nrt_execute(model.get(), empty_in.get(), empty_out.get()), NRT_INVALID);

  ModelPtr faulty = MustLoad(ModelWithFaults({{{"every", 1}, {"status", "HW_ERROR"}}}));
  TensorPtr in = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8);
  TensorPtr out = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8);
  WriteFloats(in.get(), {1, 2});
  WriteFloats(out.get(), {-5, -6});
  TensorSetPtr in_set = MustAllocateSet(), out_set = MustAllocateSet();
  MustAdd(in_set.get(), "x", in.get());
  MustAdd(out_set.get(), "y", out.get());
  EXPECT_EQ(api().nrt_execute(faulty.get(), in_set.get(), out_set.get()), NRT_HW_ERROR);
  EXPECT_EQ(ReadFloats(out.get()), (std::vector<float>{-5, -6}));
}

TEST_F(FaultTest, ProbabilityIsReproducibleForTheSameSeed) {
  json faults = {{{"probability", 0.5}, {"seed", 1234}, {"status", "HW_ERROR"}}};
  ModelPtr first = MustLoad(ModelWithFaults(faults));
  ModelPtr second = MustLoad(ModelWithFaults(faults));
  std::vector<NRT_STATUS> a = Statuses(first.get(), 60);
  std::vector<NRT_STATUS> b = Statuses(second.get(), 60);
  EXPECT_EQ(a, b);
  int failures = static_cast<int>(std::count(a.begin(), a.end(), NRT_HW_ERROR));
  EXPECT_GT(failures, 10);  // p = 0.5 over 60 draws: both outcomes occur
  EXPECT_LT(failures, 50);

  faults[0]["seed"] = 99;
  ModelPtr other_seed = MustLoad(ModelWithFaults(faults));
  EXPECT_NE(Statuses(other_seed.get(), 60), a);
}

TEST_F(FaultTest, ProbabilityZeroNeverAndOneAlways) {
  ModelPtr never = MustLoad(ModelWithFaults({{{"probability", 0}, {"status", "HW_ERROR"}}}));
  ModelPtr always = MustLoad(ModelWithFaults({{{"probability", 1}, {"status", "HW_ERROR"}}}));
  EXPECT_EQ(Statuses(never.get(), 20), std::vector<NRT_STATUS>(20, kOk));
  EXPECT_EQ(Statuses(always.get(), 20), std::vector<NRT_STATUS>(20, NRT_HW_ERROR));
}

TEST_F(FaultTest, MalformedFaultsAreRejectedAtLoad) {
  const json bad[] = {
      {{{"every", 2}}},                                               // no status
      {{{"every", 2}, {"status", "NRT_SUCCESS"}}},                    // not a failure
      {{{"every", 2}, {"status", "NRT_ON_FIRE"}}},                    // unknown name
      {{{"every", 0}, {"status", "HW_ERROR"}}},                       // zero period
      {{{"on_execution", 0}, {"status", "HW_ERROR"}}},                // executions are 1-based
      {{{"probability", 1.5}, {"status", "HW_ERROR"}}},               // not a probability
      {{{"every", 2}, {"on_execution", 1}, {"status", "HW_ERROR"}}},  // two triggers
      {{{"every", 2}, {"seed", 1}, {"status", "HW_ERROR"}}},          // seed without probability
      {{{"every", 2}, {"status", "HW_ERROR"}, {"latency_us", 5}}},    // two effects
      {{{"every", 2}, {"latency_us", -1}}},                           // negative latency
      {{{"every", 2}, {"latency_us", 3600000001ULL}}},                // over an hour
  };
  for (const json& faults : bad) {
    ModelPtr model;
    EXPECT_EQ(Load(ModelWithFaults(faults), &model), NRT_INVALID) << faults.dump();
  }
}

}  // namespace
}  // namespace nrtsim_test
