// The simulated machine follows the environment: cores, visible cores, instance, HBM, version.
#include <cstring>
#include <string>

#include "tests/sim/sim_test_util.h"

namespace nrtsim_test {
namespace {

class ConfigTest : public SimTest {
 protected:
  uint32_t Total() {
    uint32_t total = 0, total_vnc = 0;
    EXPECT_EQ(api().nrt_get_total_nc_count(&total), NRT_SUCCESS);
    EXPECT_EQ(api().nrt_get_total_vnc_count(&total_vnc), NRT_SUCCESS);
    EXPECT_EQ(total, total_vnc);
    return total;
  }
  uint32_t Visible() {
    uint32_t visible = 0, visible_vnc = 0;
    EXPECT_EQ(api().nrt_get_visible_nc_count(&visible), NRT_SUCCESS);
    EXPECT_EQ(api().nrt_get_visible_vnc_count(&visible_vnc), NRT_SUCCESS);
    EXPECT_EQ(visible, visible_vnc);
    return visible;
  }
  uint64_t HbmLimit(uint32_t vnc) {
    nrt_vnc_memory_stats_t stats{};
    EXPECT_EQ(api().nrt_get_vnc_memory_stats(vnc, &stats, sizeof(stats), nullptr), NRT_SUCCESS);
    return stats.bytes_limit;
  }
  nrt_instance_info_t Instance() {
    nrt_instance_info_t info{};
    EXPECT_EQ(api().nrt_get_instance_info(&info, sizeof(info)), NRT_SUCCESS);
    return info;
  }
  // nrt_init must fail with NRT_INVALID and say which variable is wrong.
  void ExpectInitRejects(const char* variable, const std::string& value) {
    SetEnv(variable, value);
    testing::internal::CaptureStderr();
    EXPECT_EQ(api().nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_INVALID)
        << variable << "=" << value;
    std::string printed = testing::internal::GetCapturedStderr();
    EXPECT_NE(printed.find(std::string("nrtsim: nrt_init: ") + variable + "='" + value + "'"),
              std::string::npos)
        << printed;
    unsetenv(variable);
  }
};

constexpr uint64_t kGiB = uint64_t{1} << 30;

TEST_F(ConfigTest, DefaultsToATwoCoreInf2) {
  EXPECT_EQ(Total(), 2u);  // callable before nrt_init
  EXPECT_EQ(Visible(), 2u);
  Init();
  nrt_instance_info_t info = Instance();
  EXPECT_EQ(info.family, NRT_INSTANCE_INF2);
  EXPECT_EQ(info.size, NRT_INSTANCE_SIZE_1XL);
  EXPECT_STREQ(info.arch_name, "inferentia2");
  EXPECT_STREQ(info.device_revision, "sim");
  EXPECT_EQ(HbmLimit(0), 16 * kGiB);
  EXPECT_EQ(HbmLimit(1), 16 * kGiB);
}

TEST_F(ConfigTest, VisibleCoreRangeIsRenumberedFromZero) {
  SetEnv("NRTSIM_CORES", "8");
  SetEnv("NEURON_RT_VISIBLE_CORES", "2-5");
  EXPECT_EQ(Total(), 8u);
  EXPECT_EQ(Visible(), 4u);
  Init();
  EXPECT_EQ(Total(), 8u);
  EXPECT_EQ(Visible(), 4u);
  TensorPtr tensor;
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_DEVICE, 3, 8, &tensor), NRT_SUCCESS);
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_DEVICE, 4, 8, &tensor), NRT_INVALID);
}

// The runtime's developer guide requires one contiguous ascending set ("3,5,6" is invalid).
// This test used to accept "1,3" and "0,2-3"; the simulator is now as strict as the guide (the
// refused forms are in VisibleCoresMustBeOneContiguousAscendingSet).
TEST_F(ConfigTest, VisibleCoreListsThatFormOneContiguousRun) {
  SetEnv("NRTSIM_CORES", "8");
  const std::pair<const char*, uint32_t> accepted[] = {{"2-5", 4},     {"3,4", 2}, {"2-3,4-5", 4},
                                                       {"0,1-2,3", 4}, {"3", 1},   {"0-7", 8}};
  for (const auto& [list, count] : accepted) {
    SetEnv("NEURON_RT_VISIBLE_CORES", list);
    EXPECT_EQ(Visible(), count) << list;
  }
  SetEnv("NEURON_RT_VISIBLE_CORES", "3,4");
  Init();
  EXPECT_EQ(Visible(), 2u);
  TensorPtr tensor;
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 8, &tensor), NRT_SUCCESS);  // physical 4
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_DEVICE, 2, 8, &tensor), NRT_INVALID);
}

TEST_F(ConfigTest, VisibleCoresMustBeOneContiguousAscendingSet) {
  SetEnv("NRTSIM_CORES", "8");
  for (const char* bad : {"1,3", "3,5,6", "3,2", "0-2,2", "4-5,2-3", "0,2-3", "1-2,4"}) {
    ExpectInitRejects("NEURON_RT_VISIBLE_CORES", bad);
    SetEnv("NEURON_RT_VISIBLE_CORES", bad);
    uint32_t count = 99;
    EXPECT_EQ(api().nrt_get_visible_nc_count(&count), NRT_INVALID) << bad;
    unsetenv("NEURON_RT_VISIBLE_CORES");
  }
}

TEST_F(ConfigTest, NumCoresZeroMeansAllCores) {
  SetEnv("NRTSIM_CORES", "6");
  SetEnv("NEURON_RT_NUM_CORES", "0");
  EXPECT_EQ(Visible(), 6u);
  Init();
  EXPECT_EQ(Visible(), 6u);
}

TEST_F(ConfigTest, NumCoresTakesTheFirstN) {
  SetEnv("NRTSIM_CORES", "6");
  SetEnv("NEURON_RT_NUM_CORES", "3");
  Init();
  EXPECT_EQ(Total(), 6u);
  EXPECT_EQ(Visible(), 3u);
}

TEST_F(ConfigTest, VisibleCoresWinOverNumCores) {
  SetEnv("NRTSIM_CORES", "6");
  SetEnv("NEURON_RT_NUM_CORES", "3");
  SetEnv("NEURON_RT_VISIBLE_CORES", "4-5");
  EXPECT_EQ(Visible(), 2u);
}

TEST_F(ConfigTest, MalformedVisibleCoresAreRejectedEverywhere) {
  SetEnv("NRTSIM_CORES", "4");
  for (const char* bad : {"abc", "1-", "-1", "3-1", "0-4", "4", "1,,2", "1,1", "0-2,2", " 1"}) {
    ExpectInitRejects("NEURON_RT_VISIBLE_CORES", bad);
    SetEnv("NEURON_RT_VISIBLE_CORES", bad);
    uint32_t count = 99;
    EXPECT_EQ(api().nrt_get_visible_nc_count(&count), NRT_INVALID) << bad;
    EXPECT_EQ(api().nrt_get_total_nc_count(&count), NRT_INVALID) << bad;
    unsetenv("NEURON_RT_VISIBLE_CORES");
  }
  // "0" is not here: it is the runtime's default and means all cores (NumCoresZeroMeansAllCores).
  for (const char* bad : {"5", "x", "-2", " 1"}) ExpectInitRejects("NEURON_RT_NUM_CORES", bad);
}

TEST_F(ConfigTest, MalformedSimVariablesAreRejected) {
  for (const char* bad : {"0", "two", "-1", "2x", "99999999"})
    ExpectInitRejects("NRTSIM_CORES", bad);
  for (const char* bad : {"inf3", "INF2", "trn"}) ExpectInitRejects("NRTSIM_INSTANCE", bad);
  for (const char* bad : {"0", "1TiB", "GiB", "-5", "12 MiB"}) {
    ExpectInitRejects("NRTSIM_HBM_BYTES", bad);
  }
  for (const char* bad : {"2", "2.30", "2.30.0.1.2", "2.x.0", "v2.30.0", "2..0"}) {
    ExpectInitRejects("NRTSIM_VERSION", bad);
  }
  for (const char* bad : {"0", "-1", "1.5", "x", "1s", "4294967296"}) {
    ExpectInitRejects("NEURON_RT_EXEC_TIMEOUT", bad);
  }
  Init();  // and with everything unset again, it works
}

TEST_F(ConfigTest, InstanceFamiliesSizesAndHbm) {
  struct Case {
    const char* instance;
    const char* cores;
    uint32_t family;
    uint32_t size;
    const char* arch;
    uint64_t hbm_per_core;
  };
  const Case cases[] = {
      {"inf1", "4", NRT_INSTANCE_INF1, NRT_INSTANCE_SIZE_1XL, "inferentia", 2 * kGiB},
      {"inf1", "16", NRT_INSTANCE_INF1, NRT_INSTANCE_SIZE_6XL, "inferentia", 2 * kGiB},
      {"inf1", "64", NRT_INSTANCE_INF1, NRT_INSTANCE_SIZE_24XL, "inferentia", 2 * kGiB},
      {"inf1", "65", NRT_INSTANCE_INF1, NRT_INSTANCE_SIZE_UNKNOWN, "inferentia", 2 * kGiB},
      {"inf2", "2", NRT_INSTANCE_INF2, NRT_INSTANCE_SIZE_1XL, "inferentia2", 16 * kGiB},
      {"inf2", "12", NRT_INSTANCE_INF2, NRT_INSTANCE_SIZE_24XL, "inferentia2", 16 * kGiB},
      {"inf2", "13", NRT_INSTANCE_INF2, NRT_INSTANCE_SIZE_48XL, "inferentia2", 16 * kGiB},
      {"trn1", "2", NRT_INSTANCE_TRN1, NRT_INSTANCE_SIZE_2XL, "trainium", 16 * kGiB},
      {"trn1", "32", NRT_INSTANCE_TRN1, NRT_INSTANCE_SIZE_32XL, "trainium", 16 * kGiB},
      {"trn2", "4", NRT_INSTANCE_TRN2, NRT_INSTANCE_SIZE_3XL, "trainium2", 24 * kGiB},
      {"trn2", "64", NRT_INSTANCE_TRN2, NRT_INSTANCE_SIZE_48XL, "trainium2", 24 * kGiB},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.instance) + " with " + c.cores + " cores");
    SetEnv("NRTSIM_INSTANCE", c.instance);
    SetEnv("NRTSIM_CORES", c.cores);
    Init();
    nrt_instance_info_t info = Instance();
    EXPECT_EQ(info.family, c.family);
    EXPECT_EQ(info.size, c.size);
    EXPECT_STREQ(info.arch_name, c.arch);
    EXPECT_EQ(HbmLimit(0), c.hbm_per_core);
    api().nrt_close();
  }
}

// trn2: NRTSIM_CORES counts the logical cores of the default LNC=2 (so NRTSIM_CORES=4 is a
// trn2.3xlarge with 4 cores of 24 GiB); NEURON_LOGICAL_NC_CONFIG=1 reports twice as many cores
// on the same instance, each pair sharing one 24 GiB HBM bank.
TEST_F(ConfigTest, Trn2LogicalCoreCountsAndSizes) {
  SetEnv("NRTSIM_INSTANCE", "trn2");
  const struct {
    const char* cores;
    const char* lnc;  // nullptr: the default
    uint32_t reported;
    uint32_t size;
  } cases[] = {
      {"4", nullptr, 4, NRT_INSTANCE_SIZE_3XL}, {"4", "2", 4, NRT_INSTANCE_SIZE_3XL},
      {"4", "1", 8, NRT_INSTANCE_SIZE_3XL},     {"64", nullptr, 64, NRT_INSTANCE_SIZE_48XL},
      {"64", "1", 128, NRT_INSTANCE_SIZE_48XL},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.cores) + " cores, LNC " + (c.lnc ? c.lnc : "default"));
    SetEnv("NRTSIM_CORES", c.cores);
    if (c.lnc != nullptr) SetEnv("NEURON_LOGICAL_NC_CONFIG", c.lnc);
    EXPECT_EQ(Total(), c.reported);  // before nrt_init too
    Init();
    EXPECT_EQ(Total(), c.reported);
    EXPECT_EQ(Visible(), c.reported);
    EXPECT_EQ(Instance().size, c.size);
    EXPECT_EQ(HbmLimit(0), 24 * kGiB);
    EXPECT_EQ(HbmLimit(c.reported - 1), 24 * kGiB);
    api().nrt_close();
    unsetenv("NEURON_LOGICAL_NC_CONFIG");
  }
}

TEST_F(ConfigTest, Trn2VisibleCoresCountLogicalCores) {
  SetEnv("NRTSIM_INSTANCE", "trn2");
  SetEnv("NRTSIM_CORES", "4");
  SetEnv("NEURON_RT_VISIBLE_CORES", "6-7");
  ExpectInitRejects("NEURON_RT_VISIBLE_CORES", "6-7");  // LNC=2: cores 0..3
  SetEnv("NEURON_LOGICAL_NC_CONFIG", "1");
  SetEnv("NEURON_RT_VISIBLE_CORES", "6-7");
  EXPECT_EQ(Visible(), 2u);
  SetEnv("NEURON_RT_NUM_CORES", "5");
  unsetenv("NEURON_RT_VISIBLE_CORES");
  EXPECT_EQ(Visible(), 5u);
}

TEST_F(ConfigTest, Trn2AtLnc1APairOfCoresSharesOneHbmBank) {
  SetEnv("NRTSIM_INSTANCE", "trn2");
  SetEnv("NRTSIM_CORES", "4");
  SetEnv("NRTSIM_HBM_BYTES", "1MiB");
  SetEnv("NEURON_LOGICAL_NC_CONFIG", "1");
  SetEnv("NEURON_RT_VISIBLE_CORES", "2-5");  // the pairs (2,3) and (4,5)
  Init();
  auto used = [&](uint32_t vnc) {
    nrt_vnc_memory_stats_t stats{};
    EXPECT_EQ(api().nrt_get_vnc_memory_stats(vnc, &stats, sizeof(stats), nullptr), NRT_SUCCESS);
    EXPECT_EQ(stats.bytes_limit, 1u << 20);  // each reports the bank, not half of it
    return stats.bytes_used;
  };
  TensorPtr on_first = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 768 << 10);  // physical 2
  EXPECT_EQ(used(0), 768u << 10);
  EXPECT_EQ(used(1), 768u << 10);  // physical 3 shares the bank
  EXPECT_EQ(used(2), 0u);
  TensorPtr too_big;
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 512 << 10, &too_big), NRT_RESOURCE);
  TensorPtr fits = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 256 << 10);
  EXPECT_EQ(used(0), 1u << 20);
  TensorPtr other_bank = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 2, 1 << 20);
  EXPECT_EQ(used(3), 1u << 20);
  on_first.reset();
  EXPECT_EQ(used(1), 256u << 10);
}

TEST_F(ConfigTest, Trn2AtLnc2EveryCoreHasItsOwnBank) {
  SetEnv("NRTSIM_INSTANCE", "trn2");
  SetEnv("NRTSIM_HBM_BYTES", "1MiB");
  Init();
  TensorPtr full = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 1 << 20);
  TensorPtr other = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 1 << 20);
  EXPECT_NE(other, nullptr);
}

TEST_F(ConfigTest, LogicalCoreConfigOnlyOneWithoutLogicalCores) {
  for (const char* instance : {"inf1", "inf2", "trn1"}) {
    SCOPED_TRACE(instance);
    SetEnv("NRTSIM_INSTANCE", instance);
    ExpectInitRejects("NEURON_LOGICAL_NC_CONFIG", "2");
    SetEnv("NEURON_LOGICAL_NC_CONFIG", "1");
    Init();
    EXPECT_EQ(Total(), 2u);
    api().nrt_close();
    unsetenv("NEURON_LOGICAL_NC_CONFIG");
  }
  unsetenv("NRTSIM_INSTANCE");
  SetEnv("NEURON_LOGICAL_NC_CONFIG", "2");
  uint32_t count = 0;
  EXPECT_EQ(api().nrt_get_total_nc_count(&count), NRT_INVALID);  // a query refuses it too
}

TEST_F(ConfigTest, MalformedLogicalCoreConfigIsRejected) {
  SetEnv("NRTSIM_INSTANCE", "trn2");
  for (const char* bad : {"0", "3", "4", "x", "-1", " 2", "2x"}) {
    ExpectInitRejects("NEURON_LOGICAL_NC_CONFIG", bad);
  }
}

TEST_F(ConfigTest, HbmOverrideAcceptsBinarySuffixes) {
  const std::pair<const char*, uint64_t> cases[] = {
      {"4096", 4096}, {"3KiB", 3 << 10}, {"5MiB", 5 << 20}, {"2GiB", 2 * kGiB}};
  for (const auto& [text, bytes] : cases) {
    SetEnv("NRTSIM_HBM_BYTES", text);
    Init();
    EXPECT_EQ(HbmLimit(0), bytes) << text;
    api().nrt_close();
  }
}

TEST_F(ConfigTest, InstanceInfoHonoursTheCallersSmallerStruct) {
  Init();
  nrt_instance_info_t info;
  std::memset(&info, 0x7f, sizeof(info));
  ASSERT_EQ(api().nrt_get_instance_info(&info, sizeof(uint32_t)), NRT_SUCCESS);
  EXPECT_EQ(info.family, NRT_INSTANCE_INF2);
  EXPECT_EQ(info.size, 0x7f7f7f7fu);  // beyond the caller's size: untouched
}

TEST_F(ConfigTest, DefaultVersionIs230WithTheNewDtypeNumbering) {
  Init();
  nrt_version_t version{};
  ASSERT_EQ(api().nrt_get_version(&version, sizeof(version)), NRT_SUCCESS);
  EXPECT_EQ(version.rt_major, 2u);
  EXPECT_EQ(version.rt_minor, 30u);
  EXPECT_EQ(version.rt_patch, 0u);
  EXPECT_EQ(version.rt_maintenance, 0u);
  EXPECT_NE(std::string(version.rt_detail).find("simulat"), std::string::npos);

  ModelPtr model = MustLoad({{"inputs", {Float32("x", {2})}},
                             {"outputs", {Float32("y", {2})}},
                             {"ops", {{{"op", "relu"}, {"inputs", {"x"}}, {"output", "y"}}}}});
  nrt_tensor_info_array_t* info = nullptr;
  ASSERT_EQ(api().nrt_get_model_tensor_info(model.get(), &info), NRT_SUCCESS);
  EXPECT_EQ(info->tensor_array[0].dtype, 0xAu);  // FLOAT32 in runtime 2.30's numbering
  api().nrt_free_model_tensor_info(info);
}

TEST_F(ConfigTest, Version229UsesTheSequentialDtypeNumbering) {
  SetEnv("NRTSIM_VERSION", "2.29.4.7");
  Init();
  nrt_version_t version{};
  ASSERT_EQ(api().nrt_get_version(&version, sizeof(version)), NRT_SUCCESS);
  EXPECT_EQ(version.rt_minor, 29u);
  EXPECT_EQ(version.rt_patch, 4u);
  EXPECT_EQ(version.rt_maintenance, 7u);

  ModelPtr model = MustLoad(
      {{"inputs", {Float32("x", {2}), {{"name", "b"}, {"dtype", "bfloat16"}, {"shape", {4}}}}},
       {"outputs", {Float32("y", {2}), {{"name", "c"}, {"dtype", "bfloat16"}, {"shape", {4}}}}},
       {"ops",
        {{{"op", "relu"}, {"inputs", {"x"}}, {"output", "y"}},
         {{"op", "identity"}, {"inputs", {"b"}}, {"output", "c"}}}}});
  nrt_tensor_info_array_t* info = nullptr;
  ASSERT_EQ(api().nrt_get_model_tensor_info(model.get(), &info), NRT_SUCCESS);
  EXPECT_EQ(info->tensor_array[0].dtype, 1u);  // FLOAT32, sequential
  EXPECT_EQ(info->tensor_array[1].dtype, 3u);  // BFLOAT16, sequential (0x6 in 2.30)
  EXPECT_EQ(info->tensor_array[1].size, 8u);
  api().nrt_free_model_tensor_info(info);

  // FP8 has no number before 2.30, so such a model cannot be described: refused.
  ModelPtr fp8;
  EXPECT_EQ(Load({{"inputs", {{{"name", "q"}, {"dtype", "fp8_e4"}, {"shape", {4}}}}},
                  {"outputs", {{{"name", "r"}, {"dtype", "fp8_e4"}, {"shape", {4}}}}},
                  {"ops", {{{"op", "identity"}, {"inputs", {"q"}}, {"output", "r"}}}}},
                 &fp8),
            NRT_INVALID);
}

TEST_F(ConfigTest, VersionIsReadableBeforeInit) {
  SetEnv("NRTSIM_VERSION", "2.31.2");
  nrt_version_t version{};
  ASSERT_EQ(api().nrt_get_version(&version, sizeof(version)), NRT_SUCCESS);
  EXPECT_EQ(version.rt_minor, 31u);
  EXPECT_EQ(version.rt_patch, 2u);
}

}  // namespace
}  // namespace nrtsim_test
