// Faults on any call (NRTSIM_FAULTS, NRTSIM_FAULTS_FILE): which calls fail, with which status,
// that a failed call has no effect, the log line, the watched file, and exact counts under
// concurrent calls.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <latch>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "tests/sim/sim_test_util.h"

namespace nrtsim_test {
namespace call_fault_test {

constexpr NRT_STATUS kOk = NRT_SUCCESS;

// x[2] -> y[2], with 8 bytes of constants so that a load takes HBM.
json IdentityModel() {
  return {{"inputs", {Float32("x", {2})}},
          {"outputs", {Float32("y", {2})}},
          {"constants", {{"c", {{"shape", {2}}, {"data", {0.0, 0.0}}}}}},
          {"ops", {{{"op", "add"}, {"inputs", {"x", "c"}}, {"output", "y"}}}}};
}

size_t Count(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}

class CallFaultTest : public SimTest {
 protected:
  void TearDown() override {
    SimTest::TearDown();
    if (!file_.empty()) {
      std::remove(file_.c_str());
      std::remove((file_ + ".tmp").c_str());
    }
  }

  // A path for NRTSIM_FAULTS_FILE of this test and process (the file is not created).
  const std::string& FaultsFile() {
    if (file_.empty()) {
      const testing::TestInfo* test = testing::UnitTest::GetInstance()->current_test_info();
      file_ = testing::TempDir() + "nrtsim_faults_" + std::to_string(getpid()) + "_" +
              test->name() + ".txt";
      std::remove(file_.c_str());
    }
    return file_;
  }

  // Replaces the rules file the way a test of a running daemon does: write a new file, then
  // rename it over the old one (atomic: a reader sees the old content or the new, whole).
  void ReplaceFaultsFile(const std::string& content) {
    const std::string temporary = FaultsFile() + ".tmp";
    {
      std::ofstream out(temporary, std::ios::trunc);
      out << content;
      ASSERT_TRUE(out.good());
    }
    ASSERT_EQ(std::rename(temporary.c_str(), FaultsFile().c_str()), 0);
  }

  uint64_t BytesUsed(uint32_t vnc) {
    nrt_vnc_memory_stats_t stats{};
    EXPECT_EQ(api().nrt_get_vnc_memory_stats(vnc, &stats, sizeof(stats), nullptr), NRT_SUCCESS);
    return stats.bytes_used;
  }

  uint64_t Copies(int32_t vnc) {
    nrtsim_core_busy_t busy{};
    EXPECT_EQ(api().nrtsim_get_core_busy(vnc, &busy, sizeof(busy)), NRT_SUCCESS);
    return busy.copies;
  }

  NRT_STATUS Write(nrt_tensor_t* tensor, std::vector<float> values) {
    return api().nrt_tensor_write(tensor, values.data(), 0, values.size() * sizeof(float));
  }

  // The statuses of `count` writes of 8 bytes to `tensor`.
  std::vector<NRT_STATUS> Writes(nrt_tensor_t* tensor, int count) {
    std::vector<NRT_STATUS> statuses;
    for (int i = 0; i < count; ++i) statuses.push_back(Write(tensor, {1, 2}));
    return statuses;
  }

  NRT_STATUS Read(const nrt_tensor_t* tensor) {
    float values[2] = {0, 0};
    return api().nrt_tensor_read(tensor, values, 0, sizeof(values));
  }

 private:
  std::string file_;
};

TEST_F(CallFaultTest, AfterLetsCallsThroughAndCountFailsTheNextOnes) {
  SetEnv("NRTSIM_FAULTS", "nrt_tensor_write:NRT_TIMEOUT:after=2:count=3");
  Init();
  TensorPtr tensor = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8);
  const uint64_t injected = Stats().faults_injected;
  EXPECT_EQ(Writes(tensor.get(), 7),
            (std::vector<NRT_STATUS>{kOk, kOk, NRT_TIMEOUT, NRT_TIMEOUT, NRT_TIMEOUT, kOk, kOk}));
  EXPECT_EQ(Stats().faults_injected, injected + 3);
}

TEST_F(CallFaultTest, CountDefaultsToOneAndCountAllNeverStops) {
  SetEnv("NRTSIM_FAULTS", "nrt_tensor_write:NRT_HW_ERROR;nrt_tensor_read:2:after=1:count=all");
  Init();
  TensorPtr tensor = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8);
  EXPECT_EQ(Writes(tensor.get(), 3), (std::vector<NRT_STATUS>{NRT_HW_ERROR, kOk, kOk}));
  std::vector<NRT_STATUS> reads;
  for (int i = 0; i < 5; ++i) reads.push_back(Read(tensor.get()));
  EXPECT_EQ(reads,
            (std::vector<NRT_STATUS>{kOk, NRT_INVALID, NRT_INVALID, NRT_INVALID, NRT_INVALID}));
}

TEST_F(CallFaultTest, WritesOneLineForEachFaultThatFires) {
  SetEnv("NRTSIM_FAULTS",
         "nrt_tensor_write:1203:after=1:core=1 ; nrt_tensor_read:EXEC_HW_ERR_HBM_UE");
  Init();
  TensorPtr device = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 8);
  TensorPtr host = MustAllocate(NRT_TENSOR_PLACEMENT_HOST, -1, 8);
  testing::internal::CaptureStderr();
  EXPECT_EQ(Writes(device.get(), 3),
            (std::vector<NRT_STATUS>{kOk, NRT_EXEC_HW_ERR_DMA_ABORT, kOk}));
  EXPECT_EQ(Read(host.get()), NRT_EXEC_HW_ERR_HBM_UE);
  EXPECT_EQ(Read(host.get()), kOk);
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_EQ(printed,
            "nrtsim: fault: nrt_tensor_write on core 1 -> NRT_EXEC_HW_ERR_DMA_ABORT (rule "
            "\"nrt_tensor_write:1203:after=1:core=1\", call 2)\n"
            "nrtsim: fault: nrt_tensor_read on core - -> NRT_EXEC_HW_ERR_HBM_UE (rule "
            "\"nrt_tensor_read:EXEC_HW_ERR_HBM_UE\", call 1)\n");
}

TEST_F(CallFaultTest, CoreSelectsTheCallsOnThatCoreOnly) {
  SetEnv("NRTSIM_FAULTS", "nrt_tensor_write:NRT_HW_ERROR:core=1:count=all");
  Init();
  TensorPtr on_zero = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8);
  TensorPtr on_one = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 8);
  // A HOST tensor has no core, even when allocated naming one.
  TensorPtr host = MustAllocate(NRT_TENSOR_PLACEMENT_HOST, 1, 8);
  EXPECT_EQ(Writes(on_zero.get(), 2), (std::vector<NRT_STATUS>{kOk, kOk}));
  EXPECT_EQ(Writes(host.get(), 2), (std::vector<NRT_STATUS>{kOk, kOk}));
  EXPECT_EQ(Writes(on_one.get(), 2), (std::vector<NRT_STATUS>{NRT_HW_ERROR, NRT_HW_ERROR}));
}

TEST_F(CallFaultTest, ARuleWithoutCoreMatchesHostAndDeviceAllocations) {
  SetEnv("NRTSIM_FAULTS", "nrt_tensor_allocate:NRT_FAIL_HOST_MEM_ALLOC:count=2");
  Init();
  TensorPtr tensor;
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 8, &tensor), NRT_FAIL_HOST_MEM_ALLOC);
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 8, &tensor), NRT_FAIL_HOST_MEM_ALLOC);
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 8, &tensor), kOk);
}

TEST_F(CallFaultTest, ACoreRuleOfAllocateMatchesDeviceTensorsOnThatCoreOnly) {
  SetEnv("NRTSIM_FAULTS", "nrt_tensor_allocate:NRT_RESOURCE:core=0:count=all");
  Init();
  TensorPtr tensor;
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_HOST, 0, 8, &tensor), kOk);
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 8, &tensor), kOk);
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8, &tensor), NRT_RESOURCE);
}

TEST_F(CallFaultTest, RulesCountOnTheirOwnAndTheFirstThatFiresDecides) {
  SetEnv("NRTSIM_FAULTS",
         "nrt_tensor_read:NRT_TIMEOUT:after=1;nrt_tensor_read:NRT_HW_ERROR:count=3");
  Init();
  TensorPtr tensor = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8);
  std::vector<NRT_STATUS> reads;
  for (int i = 0; i < 4; ++i) reads.push_back(Read(tensor.get()));
  // Call 2: both fire and the first rule decides; the second still counted it.
  EXPECT_EQ(reads, (std::vector<NRT_STATUS>{NRT_HW_ERROR, NRT_TIMEOUT, NRT_HW_ERROR, kOk}));
}

TEST_F(CallFaultTest, ACallTheRuntimeRefusesForItsArgumentsIsNotCounted) {
  SetEnv("NRTSIM_FAULTS", "nrt_tensor_write:NRT_TIMEOUT");
  Init();
  TensorPtr tensor = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8);
  const float values[2] = {1, 2};
  EXPECT_EQ(api().nrt_tensor_write(tensor.get(), values, 4, sizeof(values)), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_write(tensor.get(), nullptr, 0, sizeof(values)), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_write(nullptr, values, 0, sizeof(values)), NRT_INVALID);
  EXPECT_EQ(Write(tensor.get(), {1, 2}), NRT_TIMEOUT);
}

TEST_F(CallFaultTest, AFailedLoadLoadsNothing) {
  SetEnv("NRTSIM_FAULTS", "nrt_load:NRT_TIMEOUT");
  Init();
  const nrtsim_stats_t before = Stats();
  const uint64_t used = BytesUsed(0);
  const std::string bytes = SimNeffFromJson(IdentityModel().dump());
  // The out-parameter is left as the caller passed it.
  int marker = 0;
  auto* model = reinterpret_cast<nrt_model_t*>(&marker);
  EXPECT_EQ(api().nrt_load(bytes.data(), bytes.size(), 0, -1, &model), NRT_TIMEOUT);
  EXPECT_EQ(model, reinterpret_cast<nrt_model_t*>(&marker));
  EXPECT_EQ(Stats().live_models, before.live_models);
  EXPECT_EQ(Stats().device_bytes_used, before.device_bytes_used);
  EXPECT_EQ(BytesUsed(0), used);
  EXPECT_EQ(Stats().faults_injected, before.faults_injected + 1);
  ModelPtr loaded = MustLoad(IdentityModel(), 0);  // count=1: the next load works
  EXPECT_EQ(BytesUsed(0), used + 8);
}

TEST_F(CallFaultTest, ALoadIsOnTheStartCoreItWouldHaveTaken) {
  SetEnv("NRTSIM_FAULTS", "nrt_load:NRT_LOAD_NOT_ENOUGH_NC:core=1");
  Init();
  ModelPtr first, second;
  EXPECT_EQ(Load(IdentityModel(), &first, -1), kOk);  // core 0: the rule does not match
  // The next free core is 1: the rule fails the load, which leaves core 1 free...
  EXPECT_EQ(Load(IdentityModel(), &second, -1), NRT_LOAD_NOT_ENOUGH_NC);
  EXPECT_EQ(BytesUsed(1), 0u);
  // ...so the next load with -1 takes it.
  EXPECT_EQ(Load(IdentityModel(), &second, -1), kOk);
  EXPECT_EQ(BytesUsed(1), 8u);
}

TEST_F(CallFaultTest, AFailedAllocationTakesNoMemory) {
  SetEnv("NRTSIM_FAULTS", "nrt_tensor_allocate:NRT_RESOURCE:core=0");
  Init();
  const nrtsim_stats_t before = Stats();
  int marker = 0;
  auto* tensor = reinterpret_cast<nrt_tensor_t*>(&marker);
  EXPECT_EQ(api().nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 1024, "t", &tensor),
            NRT_RESOURCE);
  EXPECT_EQ(tensor, reinterpret_cast<nrt_tensor_t*>(&marker));
  EXPECT_EQ(BytesUsed(0), 0u);
  EXPECT_EQ(Stats().live_tensors, before.live_tensors);
  EXPECT_EQ(Stats().device_bytes_used, before.device_bytes_used);
  TensorPtr allocated = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 1024);
  EXPECT_EQ(BytesUsed(0), 1024u);
}

TEST_F(CallFaultTest, AFailedTensorSetAllocationAllocatesNone) {
  SetEnv("NRTSIM_FAULTS", "nrt_allocate_tensor_set:NRT_FAIL_HOST_MEM_ALLOC");
  Init();
  const uint64_t sets = Stats().live_tensor_sets;
  nrt_tensor_set_t* set = nullptr;
  EXPECT_EQ(api().nrt_allocate_tensor_set(&set), NRT_FAIL_HOST_MEM_ALLOC);
  EXPECT_EQ(set, nullptr);
  EXPECT_EQ(Stats().live_tensor_sets, sets);
  TensorSetPtr allocated = MustAllocateSet();
  EXPECT_EQ(Stats().live_tensor_sets, sets + 1);
}

TEST_F(CallFaultTest, AFailedAddKeepsTheSetAsItWas) {
  SetEnv("NRTSIM_FAULTS", "nrt_add_tensor_to_tensor_set:NRT_RESOURCE:after=1:count=2");
  Init();
  TensorPtr first = MustAllocate(NRT_TENSOR_PLACEMENT_HOST, -1, 8);
  TensorPtr second = MustAllocate(NRT_TENSOR_PLACEMENT_HOST, -1, 8);
  TensorSetPtr set = MustAllocateSet();
  MustAdd(set.get(), "x", first.get());
  EXPECT_EQ(api().nrt_add_tensor_to_tensor_set(set.get(), "x", second.get()), NRT_RESOURCE);
  EXPECT_EQ(api().nrt_add_tensor_to_tensor_set(set.get(), "y", second.get()), NRT_RESOURCE);
  nrt_tensor_t* found = nullptr;
  EXPECT_EQ(api().nrt_get_tensor_from_tensor_set(set.get(), "x", &found), kOk);
  EXPECT_EQ(found, first.get());
  EXPECT_EQ(api().nrt_get_tensor_from_tensor_set(set.get(), "y", &found), NRT_INVALID);
}

TEST_F(CallFaultTest, AFailedWriteWritesNothingAndUsesNoCopyEngine) {
  SetEnv("NRTSIM_FAULTS", "nrt_tensor_write:NRT_EXEC_HW_ERR_HBM_UE:after=1");
  Init();
  TensorPtr tensor = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8);
  EXPECT_EQ(Write(tensor.get(), {1, 2}), kOk);
  const uint64_t copies = Copies(0);
  EXPECT_EQ(Write(tensor.get(), {3, 4}), NRT_EXEC_HW_ERR_HBM_UE);
  EXPECT_EQ(Copies(0), copies);
  EXPECT_EQ(ReadFloats(tensor.get()), (std::vector<float>{1, 2}));
}

TEST_F(CallFaultTest, AFailedReadLeavesTheBufferAlone) {
  SetEnv("NRTSIM_FAULTS", "nrt_tensor_read:NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE");
  Init();
  TensorPtr tensor = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8);
  EXPECT_EQ(Write(tensor.get(), {1, 2}), kOk);
  const uint64_t copies = Copies(0);
  float values[2] = {7, 7};
  EXPECT_EQ(api().nrt_tensor_read(tensor.get(), values, 0, sizeof(values)),
            NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE);
  EXPECT_EQ(values[0], 7);
  EXPECT_EQ(values[1], 7);
  EXPECT_EQ(Copies(0), copies);
  EXPECT_EQ(ReadFloats(tensor.get()), (std::vector<float>{1, 2}));
}

TEST_F(CallFaultTest, AFailedExecutionRunsNothingOnTheModelsCore) {
  SetEnv("NRTSIM_FAULTS", "nrt_execute:NRT_EXEC_HW_ERR_NC_UE:core=1");
  Init();
  ModelPtr on_zero = MustLoad(IdentityModel(), 0);
  ModelPtr on_one = MustLoad(IdentityModel(), 1);
  FloatMap out;
  EXPECT_EQ(Run(on_zero.get(), 0, {{"x", {1, 2}}}, {{"y", 2}}, &out), kOk);

  TensorPtr in = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 8);
  TensorPtr result = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 8);
  WriteFloats(in.get(), {1, 2});
  WriteFloats(result.get(), {7, 7});
  TensorSetPtr inputs = MustAllocateSet();
  TensorSetPtr outputs = MustAllocateSet();
  MustAdd(inputs.get(), "x", in.get());
  MustAdd(outputs.get(), "y", result.get());
  const nrtsim_stats_t before = Stats();
  EXPECT_EQ(api().nrt_execute(on_one.get(), inputs.get(), outputs.get()), NRT_EXEC_HW_ERR_NC_UE);
  EXPECT_EQ(Stats().executions, before.executions);
  EXPECT_EQ(Stats().faults_injected, before.faults_injected + 1);
  EXPECT_EQ(ReadFloats(result.get()), (std::vector<float>{7, 7}));
  EXPECT_EQ(api().nrt_execute(on_one.get(), inputs.get(), outputs.get()), kOk);
  EXPECT_EQ(ReadFloats(result.get()), (std::vector<float>{1, 2}));
}

TEST_F(CallFaultTest, ExecutionsCountForTheModelFilesRulesAndTheEnvironmentsAlike) {
  SetEnv("NRTSIM_FAULTS", "nrt_execute:NRT_TIMEOUT");
  Init();
  json model = IdentityModel();
  model["faults"] = {{{"on_execution", 2}, {"status", "NRT_HW_ERROR"}}};
  ModelPtr loaded = MustLoad(model, 0);
  std::vector<NRT_STATUS> statuses;
  FloatMap out;
  for (int i = 0; i < 3; ++i) {
    statuses.push_back(Run(loaded.get(), 0, {{"x", {1, 2}}}, {{"y", 2}}, &out));
  }
  EXPECT_EQ(statuses, (std::vector<NRT_STATUS>{NRT_TIMEOUT, NRT_HW_ERROR, kOk}));
}

TEST_F(CallFaultTest, TheRulesStayUntilTheNextInit) {
  SetEnv("NRTSIM_FAULTS", "nrt_allocate_tensor_set:NRT_RESOURCE:after=1");
  Init();
  TensorSetPtr kept = MustAllocateSet();
  api().nrt_close();
  // Tensor sets work while the runtime is closed, and the rules still apply to them.
  nrt_tensor_set_t* set = nullptr;
  EXPECT_EQ(api().nrt_allocate_tensor_set(&set), NRT_RESOURCE);
  // A new nrt_init reads the environment again, and counts from zero.
  SetEnv("NRTSIM_FAULTS", "nrt_allocate_tensor_set:NRT_FAILURE");
  Init();
  EXPECT_EQ(api().nrt_allocate_tensor_set(&set), NRT_FAILURE);
  unsetenv("NRTSIM_FAULTS");
  api().nrt_close();
  Init();
  TensorSetPtr allocated = MustAllocateSet();
}

TEST_F(CallFaultTest, TheFileIsReadAgainWhenReplaced) {
  ReplaceFaultsFile("nrt_tensor_write:NRT_TIMEOUT:count=all  # every write fails\n");
  SetEnv("NRTSIM_FAULTS_FILE", FaultsFile());
  testing::internal::CaptureStderr();
  Init();
  TensorPtr tensor = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8);
  EXPECT_EQ(Writes(tensor.get(), 2), (std::vector<NRT_STATUS>{NRT_TIMEOUT, NRT_TIMEOUT}));
  ReplaceFaultsFile(
      "# reads now\n"
      "\n"
      "  nrt_tensor_read:NRT_HW_ERROR:after=1 ; nrt_tensor_read:NRT_TIMEOUT:after=3 # two\n");
  EXPECT_EQ(Writes(tensor.get(), 2), (std::vector<NRT_STATUS>{kOk, kOk}));
  std::vector<NRT_STATUS> reads;
  for (int i = 0; i < 5; ++i) reads.push_back(Read(tensor.get()));
  EXPECT_EQ(reads, (std::vector<NRT_STATUS>{kOk, NRT_HW_ERROR, kOk, NRT_TIMEOUT, kOk}));
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find(", fault rules file " + FaultsFile()), std::string::npos) << printed;
  EXPECT_NE(printed.find("nrtsim: faults: read 1 rule(s) from NRTSIM_FAULTS_FILE '" + FaultsFile() +
                         "'\n"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("nrtsim: faults: read 2 rule(s) from NRTSIM_FAULTS_FILE '" + FaultsFile() +
                         "'\n"),
            std::string::npos)
      << printed;
}

TEST_F(CallFaultTest, CountsStartAgainWhenTheFileIsReread) {
  ReplaceFaultsFile("nrt_tensor_write:NRT_TIMEOUT:after=1");
  SetEnv("NRTSIM_FAULTS_FILE", FaultsFile());
  Init();
  TensorPtr tensor = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8);
  EXPECT_EQ(Writes(tensor.get(), 3), (std::vector<NRT_STATUS>{kOk, NRT_TIMEOUT, kOk}));
  ReplaceFaultsFile("nrt_tensor_write:NRT_TIMEOUT:after=1");  // the same rules, a new file
  EXPECT_EQ(Writes(tensor.get(), 3), (std::vector<NRT_STATUS>{kOk, NRT_TIMEOUT, kOk}));
}

TEST_F(CallFaultTest, AMissingFileMeansNoRulesUntilItAppears) {
  SetEnv("NRTSIM_FAULTS_FILE", FaultsFile());
  testing::internal::CaptureStderr();
  Init();
  TensorPtr tensor = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8);
  EXPECT_EQ(Writes(tensor.get(), 2), (std::vector<NRT_STATUS>{kOk, kOk}));
  ReplaceFaultsFile("nrt_tensor_write:NRT_FAILURE");
  EXPECT_EQ(Writes(tensor.get(), 2), (std::vector<NRT_STATUS>{NRT_FAILURE, kOk}));
  ASSERT_EQ(std::remove(FaultsFile().c_str()), 0);
  ReplaceFaultsFile("");  // empty: no rules either
  EXPECT_EQ(Writes(tensor.get(), 2), (std::vector<NRT_STATUS>{kOk, kOk}));
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_EQ(Count(printed, "nrtsim: faults: NRTSIM_FAULTS_FILE '" + FaultsFile() +
                               "' does not exist: no rules from it\n"),
            1u)
      << printed;
}

TEST_F(CallFaultTest, AMalformedFileKeepsTheRulesInForceAndIsReportedOnce) {
  ReplaceFaultsFile("nrt_tensor_write:NRT_TIMEOUT:count=all\n");
  SetEnv("NRTSIM_FAULTS_FILE", FaultsFile());
  Init();
  TensorPtr tensor = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8);
  EXPECT_EQ(Write(tensor.get(), {1, 2}), NRT_TIMEOUT);
  ReplaceFaultsFile("nrt_tensor_read:NRT_TIMEOUT\n# fine so far\nnrt_tensor_write:NRT_BOGUS\n");
  testing::internal::CaptureStderr();
  EXPECT_EQ(Writes(tensor.get(), 3),
            (std::vector<NRT_STATUS>{NRT_TIMEOUT, NRT_TIMEOUT, NRT_TIMEOUT}));
  EXPECT_EQ(Read(tensor.get()), kOk);  // nothing of the bad file applies
  // A core= that is not visible is as bad (2 visible cores).
  ReplaceFaultsFile("nrt_tensor_read:NRT_TIMEOUT:core=2");
  EXPECT_EQ(Write(tensor.get(), {1, 2}), NRT_TIMEOUT);
  const std::string printed = testing::internal::GetCapturedStderr();
  const std::string described = "nrtsim: faults: NRTSIM_FAULTS_FILE '" + FaultsFile() + "' ";
  EXPECT_EQ(Count(printed, described + "line 3: rule \"nrt_tensor_write:NRT_BOGUS\": 'NRT_BOGUS' "
                                       "is not an NRT_STATUS name (such as NRT_TIMEOUT) or "
                                       "number; keeping the rules in force (1 from the file)\n"),
            1u)
      << printed;
  EXPECT_EQ(Count(printed, described + "line 1: rule \"nrt_tensor_read:NRT_TIMEOUT:core=2\": "
                                       "core=2 is not a visible core (2 visible cores, from 0); "
                                       "keeping the rules in force (1 from the file)\n"),
            1u)
      << printed;
  ReplaceFaultsFile("# no rules\n");
  EXPECT_EQ(Write(tensor.get(), {1, 2}), kOk);
}

TEST_F(CallFaultTest, TheEnvironmentsRulesComeBeforeTheFiles) {
  SetEnv("NRTSIM_FAULTS", "nrt_tensor_write:NRT_TIMEOUT");
  ReplaceFaultsFile("nrt_tensor_write:NRT_HW_ERROR:count=2");
  SetEnv("NRTSIM_FAULTS_FILE", FaultsFile());
  Init();
  TensorPtr tensor = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8);
  EXPECT_EQ(Writes(tensor.get(), 3), (std::vector<NRT_STATUS>{NRT_TIMEOUT, NRT_HW_ERROR, kOk}));
}

// Writes from `threads` threads at once, each to its own tensor, `rounds` each; returns how many
// returned each status.
std::map<NRT_STATUS, int> ConcurrentWrites(int threads, int rounds) {
  std::vector<TensorPtr> tensors;
  for (int i = 0; i < threads; ++i) {
    nrt_tensor_t* tensor = nullptr;
    EXPECT_EQ(Api().nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, i % 2, 8, "t", &tensor),
              NRT_SUCCESS);
    tensors.emplace_back(tensor);
  }
  std::vector<std::vector<NRT_STATUS>> statuses(static_cast<size_t>(threads));
  std::latch start(threads);
  std::vector<std::thread> workers;
  for (int i = 0; i < threads; ++i) {
    workers.emplace_back([&, i] {
      const float values[2] = {1, 2};
      start.arrive_and_wait();
      for (int r = 0; r < rounds; ++r) {
        statuses[static_cast<size_t>(i)].push_back(Api().nrt_tensor_write(
            tensors[static_cast<size_t>(i)].get(), values, 0, sizeof(values)));
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  std::map<NRT_STATUS, int> counts;
  for (const std::vector<NRT_STATUS>& of_thread : statuses) {
    for (NRT_STATUS status : of_thread) ++counts[status];
  }
  return counts;
}

TEST_F(CallFaultTest, ConcurrentCallsFailExactlyCountTimes) {
  SetEnv("NRTSIM_FAULTS", "nrt_tensor_write:NRT_TIMEOUT:after=20:count=5");
  Init();
  EXPECT_EQ(ConcurrentWrites(4, 50), (std::map<NRT_STATUS, int>{{kOk, 195}, {NRT_TIMEOUT, 5}}));
}

TEST_F(CallFaultTest, ConcurrentCallsWithAWatchedFileFailExactlyCountTimes) {
  ReplaceFaultsFile("nrt_tensor_write:NRT_HW_ERROR:count=5\n");
  SetEnv("NRTSIM_FAULTS_FILE", FaultsFile());
  Init();
  EXPECT_EQ(ConcurrentWrites(4, 50), (std::map<NRT_STATUS, int>{{kOk, 195}, {NRT_HW_ERROR, 5}}));
}

TEST_F(CallFaultTest, ReplacingTheFileWhileCallsRunIsSafe) {
  ReplaceFaultsFile("nrt_tensor_write:NRT_TIMEOUT:count=3\n");
  SetEnv("NRTSIM_FAULTS_FILE", FaultsFile());
  testing::internal::CaptureStderr();
  Init();
  std::atomic<bool> done{false};
  std::thread replacer([&] {
    for (int i = 0; i < 20 && !done.load(); ++i) {
      ReplaceFaultsFile(i % 2 == 0 ? "nrt_tensor_write:NRT_HW_ERROR:count=2\n"
                                   : "nrt_tensor_write:NRT_TIMEOUT:count=3\n");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  std::map<NRT_STATUS, int> counts = ConcurrentWrites(4, 200);
  done = true;
  replacer.join();
  testing::internal::GetCapturedStderr();
  int total = 0;
  for (const auto& [status, count] : counts) {
    EXPECT_TRUE(status == kOk || status == NRT_TIMEOUT || status == NRT_HW_ERROR) << status;
    total += count;
  }
  EXPECT_EQ(total, 800);
}

}  // namespace call_fault_test
}  // namespace nrtsim_test
