// What changes with the reported runtime version (NRTSIM_VERSION) and the knobs that imitate
// other runtimes: the 8-byte nrt_instance_info_t before 2.30, VIRTUAL placement gone from 2.32,
// void dtypes (NRTSIM_VOID_DTYPE_TENSORS), and the builds without some of the functions that
// report a model's core count. (The dtype numbering of 2.29 is in config_test.cc.)
#include <dlfcn.h>

#include <cstring>

#include "tests/sim/sim_test_util.h"
#include "tests/support/build_paths.h"

namespace nrtsim_test {
namespace {

class VersionQuirksTest : public SimTest {};

TEST_F(VersionQuirksTest, Before230TheInstanceInfoIsEightBytes) {
  SetEnv("NRTSIM_VERSION", "2.29.0");
  Init();
  nrt_instance_info_t info;
  std::memset(&info, 0x7f, sizeof(info));
  ASSERT_EQ(api().nrt_get_instance_info(&info, 8), NRT_SUCCESS);
  EXPECT_EQ(info.family, NRT_INSTANCE_INF2);
  EXPECT_EQ(info.size, NRT_INSTANCE_SIZE_1XL);
  EXPECT_EQ(info.arch_name[0], 0x7f);  // beyond the 2.29 struct: untouched

  // A caller built against the 2.30 headers passes 32 bytes: a 2.29 runtime refuses it.
  testing::internal::CaptureStderr();
  EXPECT_EQ(api().nrt_get_instance_info(&info, sizeof(info)), NRT_INVALID);
  std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("nrtsim: nrt_get_instance_info: instance_info_len 32 is not the 8 bytes"),
            std::string::npos)
      << printed;
  EXPECT_EQ(api().nrt_get_instance_info(&info, 4), NRT_INVALID);
}

TEST_F(VersionQuirksTest, Before230TheEightByteRuleHoldsWithoutInitToo) {
  SetEnv("NRTSIM_VERSION", "2.29.4");
  nrt_instance_info_t info{};
  EXPECT_EQ(api().nrt_get_instance_info(&info, sizeof(info)), NRT_INVALID);
  EXPECT_EQ(api().nrt_get_instance_info(&info, 8), NRT_SUCCESS);
  EXPECT_EQ(info.family, NRT_INSTANCE_INF2);
}

TEST_F(VersionQuirksTest, From230The32ByteStructIsFilled) {
  SetEnv("NRTSIM_VERSION", "2.30.0");
  SetEnv("NRTSIM_INSTANCE", "trn1");
  Init();
  nrt_instance_info_t info;
  std::memset(&info, 0x7f, sizeof(info));
  ASSERT_EQ(api().nrt_get_instance_info(&info, sizeof(info)), NRT_SUCCESS);
  EXPECT_EQ(info.family, NRT_INSTANCE_TRN1);
  EXPECT_EQ(info.size, NRT_INSTANCE_SIZE_2XL);
  EXPECT_STREQ(info.arch_name, "trainium");
  EXPECT_STREQ(info.device_revision, "sim");
  ASSERT_EQ(api().nrt_get_instance_info(&info, 8), NRT_SUCCESS);  // a smaller caller's struct
}

TEST_F(VersionQuirksTest, VirtualPlacementIsRefusedFrom232) {
  SetEnv("NRTSIM_VERSION", "2.32.0");
  Init();
  TensorPtr tensor;
  testing::internal::CaptureStderr();
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_VIRTUAL, 0, 8, &tensor), NRT_INVALID);
  std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_EQ(tensor, nullptr);
  EXPECT_NE(printed.find("nrtsim: nrt_tensor_allocate: VIRTUAL placement does not exist in "
                         "runtime 2.32 and later"),
            std::string::npos)
      << printed;
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_VIRTUAL, -1, 8, &tensor), NRT_INVALID);
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 8, &tensor), NRT_SUCCESS);
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8, &tensor), NRT_SUCCESS);
}

TEST_F(VersionQuirksTest, VirtualPlacementIsAcceptedBefore232) {
  SetEnv("NRTSIM_VERSION", "2.31.9");
  Init();
  TensorPtr tensor;
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_VIRTUAL, 0, 8, &tensor), NRT_SUCCESS);
  EXPECT_EQ(api().nrt_tensor_get_size(tensor.get()), 8u);
}

TEST_F(VersionQuirksTest, NamedTensorsAreReportedWithTheVoidDtype) {
  SetEnv("NRTSIM_VOID_DTYPE_TENSORS", "logits_fp16,other");
  Init();
  ModelPtr model = MustLoad(
      {{"inputs", {Float32("x", {2, 3}), {{"name", "h"}, {"dtype", "float16"}, {"shape", {4}}}}},
       {"outputs",
        {Float32("y", {2, 3}), {{"name", "logits_fp16"}, {"dtype", "float16"}, {"shape", {4}}}}},
       {"ops",
        {{{"op", "relu"}, {"inputs", {"x"}}, {"output", "y"}},
         {{"op", "identity"}, {"inputs", {"h"}}, {"output", "logits_fp16"}}}}});
  nrt_tensor_info_array_t* info = nullptr;
  ASSERT_EQ(api().nrt_get_model_tensor_info(model.get(), &info), NRT_SUCCESS);
  ASSERT_EQ(info->tensor_count, 4u);
  EXPECT_EQ(info->tensor_array[0].dtype, 0xAu);  // x: FLOAT32
  EXPECT_EQ(info->tensor_array[1].dtype, 0x7u);  // h: FLOAT16, not named
  const nrt_tensor_info_t& logits = info->tensor_array[3];
  EXPECT_STREQ(logits.name, "logits_fp16");
  EXPECT_EQ(logits.dtype, 0u);  // void
  EXPECT_EQ(logits.size, 8u);   // size and shape stay right
  ASSERT_EQ(logits.ndim, 1u);
  EXPECT_EQ(logits.shape[0], 4u);
  api().nrt_free_model_tensor_info(info);
}

TEST_F(VersionQuirksTest, AMalformedVoidDtypeListIsRefused) {
  for (const char* bad : {",", "a,", ",a", "a,,b"}) {
    SetEnv("NRTSIM_VOID_DTYPE_TENSORS", bad);
    testing::internal::CaptureStderr();
    EXPECT_EQ(api().nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_INVALID) << bad;
    std::string printed = testing::internal::GetCapturedStderr();
    EXPECT_NE(
        printed.find(std::string("nrtsim: nrt_init: NRTSIM_VOID_DTYPE_TENSORS='") + bad + "'"),
        std::string::npos)
        << printed;
  }
}

// The builds that leave out ways of asking for a model's core count, for testing a caller's
// fallbacks: each lacks exactly the functions its name says and has everything else.
TEST(ModelCoreCountBuildsTest, EachLacksExactlyWhatItSays) {
  struct Build {
    const char* path;
    bool nc_count, vnc_count, model_info;
  };
  const Build builds[] = {
      {NRTSIM_LIBRARY_PATH, true, true, true},
      {NRTSIM_NO_MODEL_NC_COUNT_LIBRARY_PATH, false, true, true},
      {NRTSIM_MODEL_INFO_ONLY_LIBRARY_PATH, false, false, true},
      {NRTSIM_NO_MODEL_CORE_COUNT_LIBRARY_PATH, false, false, false},
  };
  for (const Build& build : builds) {
    void* library = dlopen(build.path, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library, nullptr) << dlerror();
    EXPECT_EQ(dlsym(library, "nrt_get_model_nc_count") != nullptr, build.nc_count) << build.path;
    EXPECT_EQ(dlsym(library, "nrt_get_model_vnc_count") != nullptr, build.vnc_count)
        << build.path;
    EXPECT_EQ(dlsym(library, "nrt_get_model_info") != nullptr, build.model_info) << build.path;
    for (const char* name :
         {"nrt_init", "nrt_load", "nrt_get_model_tensor_info", "nrt_execute"}) {
      EXPECT_NE(dlvsym(library, name, "NRT_2.0.0"), nullptr) << name << " in " << build.path;
    }
    dlclose(library);
  }
}

}  // namespace
}  // namespace nrtsim_test
