// nrt_init / nrt_close: the state machine, calls outside it, and handles that outlive it.
#include <string>

#include "tests/sim/sim_test_util.h"

namespace nrtsim_test {
namespace {

json ReluModel() {
  return {{"inputs", {Float32("x", {4})}},
          {"outputs", {Float32("y", {4})}},
          {"constants", {{"unused", {{"shape", {4}}, {"data", {1, 2, 3, 4}}}}}},
          {"ops", {{{"op", "relu"}, {"inputs", {"x"}}, {"output", "y"}}}}};
}

using LifecycleTest = SimTest;

// The counters are process-wide; ctest runs every case in a fresh process, but the cases also
// pass when the whole binary runs in one, so they compare deltas.

TEST_F(LifecycleTest, InvalidFrameworkIsRejected) {
  uint64_t inits = Stats().init_count;
  EXPECT_EQ(api().nrt_init(NRT_FRAMEWORK_TYPE_INVALID, "", ""), NRT_INVALID);
  EXPECT_EQ(api().nrt_init(static_cast<nrt_framework_type_t>(42), "", ""), NRT_INVALID);
  EXPECT_EQ(Stats().init_count, inits);
}

TEST_F(LifecycleTest, InitTwiceFails) {
  uint64_t inits = Stats().init_count;
  Init();
  EXPECT_EQ(api().nrt_init(NRT_FRAMEWORK_TYPE_PYTORCH, nullptr, nullptr), NRT_FAILURE);
  EXPECT_EQ(Stats().init_count, inits + 1);
}

TEST_F(LifecycleTest, CallsBeforeInitAreUninitialized) {
  if (Stats().init_count != 0) {
    GTEST_SKIP() << "needs a process that never called nrt_init (ctest runs each case alone)";
  }
  std::string bytes = SimNeffFromJson(ReluModel().dump());
  nrt_model_t* model = nullptr;
  EXPECT_EQ(api().nrt_load(bytes.data(), bytes.size(), 0, -1, &model), NRT_UNINITIALIZED);
  nrt_tensor_t* tensor = nullptr;
  EXPECT_EQ(api().nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16, "t", &tensor),
            NRT_UNINITIALIZED);
  nrt_vnc_memory_stats_t stats{};
  EXPECT_EQ(api().nrt_get_vnc_memory_stats(0, &stats, sizeof(stats), nullptr), NRT_UNINITIALIZED);
}

TEST_F(LifecycleTest, CallsAfterCloseAreClosedButHandlesStayFreeable) {
  SetEnv("NRTSIM_HBM_BYTES", "1MiB");
  Init();
  ModelPtr model = MustLoad(ReluModel());
  TensorPtr in = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16);
  TensorPtr out = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16);
  TensorSetPtr in_set = MustAllocateSet(), out_set = MustAllocateSet();
  MustAdd(in_set.get(), "x", in.get());
  MustAdd(out_set.get(), "y", out.get());
  ASSERT_EQ(api().nrt_execute(model.get(), in_set.get(), out_set.get()), NRT_SUCCESS);
  EXPECT_EQ(Stats().device_bytes_used, 16u + 16u + 16u);

  testing::internal::CaptureStderr();
  api().nrt_close();
  std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("nrtsim: nrt_close\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("nrtsim: warning: "), std::string::npos) << printed;

  EXPECT_EQ(api().nrt_execute(model.get(), in_set.get(), out_set.get()), NRT_CLOSED);
  std::string bytes = SimNeffFromJson(ReluModel().dump());
  nrt_model_t* another = nullptr;
  EXPECT_EQ(api().nrt_load(bytes.data(), bytes.size(), 0, -1, &another), NRT_CLOSED);
  nrt_tensor_t* tensor = nullptr;
  EXPECT_EQ(api().nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, 0, 16, "t", &tensor), NRT_CLOSED);
  char buf[16];
  EXPECT_EQ(api().nrt_tensor_read(in.get(), buf, 0, 16), NRT_CLOSED);
  nrt_vnc_memory_stats_t stats{};
  EXPECT_EQ(api().nrt_get_vnc_memory_stats(0, &stats, sizeof(stats), nullptr), NRT_CLOSED);

  // Freeing after close releases everything.
  EXPECT_EQ(api().nrt_unload(model.release()), NRT_SUCCESS);
  in.reset();
  out.reset();
  in_set.reset();
  out_set.reset();
  nrtsim_stats_t after = Stats();
  EXPECT_EQ(after.live_models, 0u);
  EXPECT_EQ(after.live_tensors, 0u);
  EXPECT_EQ(after.live_tensor_sets, 0u);
  EXPECT_EQ(after.device_bytes_used, 0u);
}

TEST_F(LifecycleTest, CloseWithNothingLeftPrintsOnlyTheCloseLine) {
  uint64_t closes = Stats().close_count;
  Init();
  testing::internal::CaptureStderr();
  api().nrt_close();
  api().nrt_close();  // already closed: silent
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "nrtsim: nrt_close\n");
  EXPECT_EQ(Stats().close_count, closes + 1);
}

TEST_F(LifecycleTest, ReinitRereadsTheEnvironment) {
  nrtsim_stats_t before = Stats();
  SetEnv("NRTSIM_CORES", "2");
  Init();
  ModelPtr old_model = MustLoad(ReluModel());
  api().nrt_close();
  SetEnv("NRTSIM_CORES", "8");
  Init();
  uint32_t visible = 0;
  ASSERT_EQ(api().nrt_get_visible_nc_count(&visible), NRT_SUCCESS);
  EXPECT_EQ(visible, 8u);
  nrtsim_stats_t stats = Stats();
  EXPECT_EQ(stats.init_count, before.init_count + 2);
  EXPECT_EQ(stats.close_count, before.close_count + 1);

  // A model of the previous session cannot run in this one, but it can be unloaded.
  TensorPtr in = MustAllocate(NRT_TENSOR_PLACEMENT_HOST, -1, 16);
  TensorPtr out = MustAllocate(NRT_TENSOR_PLACEMENT_HOST, -1, 16);
  TensorSetPtr in_set = MustAllocateSet(), out_set = MustAllocateSet();
  MustAdd(in_set.get(), "x", in.get());
  MustAdd(out_set.get(), "y", out.get());
  EXPECT_EQ(api().nrt_execute(old_model.get(), in_set.get(), out_set.get()), NRT_INVALID);
  ModelPtr new_model = MustLoad(ReluModel(), 7);
  EXPECT_EQ(api().nrt_execute(new_model.get(), in_set.get(), out_set.get()), NRT_SUCCESS);
  old_model.reset();
  new_model.reset();
  EXPECT_EQ(Stats().device_bytes_used, 0u);
}

TEST_F(LifecycleTest, StatusNames) {
  EXPECT_STREQ(api().nrt_get_status_as_str(NRT_SUCCESS), "NRT_SUCCESS");
  EXPECT_STREQ(api().nrt_get_status_as_str(NRT_EXEC_HW_ERR_NC_UE), "NRT_EXEC_HW_ERR_NC_UE");
  EXPECT_NE(api().nrt_get_status_as_str(static_cast<NRT_STATUS>(777)), nullptr);
}

TEST_F(LifecycleTest, EverythingFreedLeavesNoLiveObjects) {
  Init();
  {
    ModelPtr model = MustLoad(ReluModel());
    TensorPtr t = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 100);
    TensorPtr v = MustAllocate(NRT_TENSOR_PLACEMENT_VIRTUAL, 1, 100);
    TensorSetPtr set = MustAllocateSet();
    nrtsim_stats_t live = Stats();
    EXPECT_EQ(live.live_models, 1u);
    EXPECT_EQ(live.live_tensors, 2u);
    EXPECT_EQ(live.live_tensor_sets, 1u);
    EXPECT_EQ(live.device_bytes_used, 116u);
  }
  nrtsim_stats_t stats = Stats();
  EXPECT_EQ(stats.live_models, 0u);
  EXPECT_EQ(stats.live_tensors, 0u);
  EXPECT_EQ(stats.live_tensor_sets, 0u);
  EXPECT_EQ(stats.device_bytes_used, 0u);
}

}  // namespace
}  // namespace nrtsim_test
