#include "core/device/device_inventory.h"

#include <cstdlib>

#include "gtest/gtest.h"
#include "tests/core/sim_fixture.h"

namespace neuronserve {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

// Each case sets the simulator's environment it needs; every case starts from, and leaves, none
// of it set, so the cases pass in any order and in one process (not only one per process, as
// ctest runs them).
class DeviceInventoryTest : public ::testing::Test {
 protected:
  void SetUp() override { ClearSimulatorEnvironment(); }
  void TearDown() override { ClearSimulatorEnvironment(); }

 private:
  static void ClearSimulatorEnvironment() {
    for (const char* name :
         {"NRTSIM_CORES", "NRTSIM_INSTANCE", "NRTSIM_VERSION", "NRTSIM_HBM_BYTES",
          "NEURON_RT_VISIBLE_CORES", "NEURON_LOGICAL_NC_CONFIG"}) {
      unsetenv(name);
    }
  }
};

DeviceInventory EnumerateSim() {
  auto runtime = testing::StartSimRuntime();
  EXPECT_NE(runtime, nullptr);
  if (runtime == nullptr) return {};
  auto inventory = EnumerateDevices(*runtime);
  EXPECT_TRUE(inventory.ok()) << inventory.status();
  return inventory.ok() ? *std::move(inventory) : DeviceInventory{};
}

TEST_F(DeviceInventoryTest, DefaultSimulatorIsAnInf2WithTwoCores) {
  DeviceInventory inventory = EnumerateSim();
  EXPECT_EQ(inventory.instance.family, "inf2");
  EXPECT_EQ(inventory.instance.TypeName(), "inf2.xlarge");
  EXPECT_EQ(inventory.total_cores, 2u);
  EXPECT_EQ(inventory.visible_cores, 2u);
  ASSERT_EQ(inventory.cores.size(), 2u);
  for (uint32_t i = 0; i < 2; ++i) {
    EXPECT_EQ(inventory.cores[i].index, i);
    EXPECT_EQ(inventory.cores[i].architecture, "NeuronCore-v2");
    EXPECT_EQ(inventory.cores[i].memory_bytes, 16 * kGiB);
    EXPECT_TRUE(HasCapability(inventory.cores[i].capabilities, Capability::kFp8E4M3));
  }
  EXPECT_EQ(inventory.runtime_version.ToString(), "2.30.0.0");
  EXPECT_EQ(inventory.Summary(), "2 of 2 NeuronCores (NeuronCore-v2, 16 GiB each) on inf2.xlarge");
}

TEST_F(DeviceInventoryTest, VisibleCoresAreRenumberedFromZero) {
  setenv("NRTSIM_CORES", "8", 1);
  setenv("NEURON_RT_VISIBLE_CORES", "2-5", 1);
  DeviceInventory inventory = EnumerateSim();
  EXPECT_EQ(inventory.total_cores, 8u);
  EXPECT_EQ(inventory.visible_cores, 4u);
  ASSERT_EQ(inventory.cores.size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(inventory.cores[i].index, i);
}

TEST_F(DeviceInventoryTest, Inf1) {
  setenv("NRTSIM_INSTANCE", "inf1", 1);
  setenv("NRTSIM_CORES", "4", 1);
  DeviceInventory inventory = EnumerateSim();
  EXPECT_EQ(inventory.instance.family, "inf1");
  ASSERT_EQ(inventory.cores.size(), 4u);
  EXPECT_EQ(inventory.cores[0].architecture, "NeuronCore-v1");
  EXPECT_EQ(inventory.cores[0].memory_bytes, 2 * kGiB);
  EXPECT_FALSE(HasCapability(inventory.cores[0].capabilities, Capability::kHbm));
}

TEST_F(DeviceInventoryTest, Trn1) {
  setenv("NRTSIM_INSTANCE", "trn1", 1);
  DeviceInventory inventory = EnumerateSim();
  EXPECT_EQ(inventory.instance.family, "trn1");
  EXPECT_EQ(inventory.instance.size, "2xlarge");
  EXPECT_EQ(inventory.cores[0].architecture, "NeuronCore-v2");
}

TEST_F(DeviceInventoryTest, Trn2) {
  setenv("NRTSIM_INSTANCE", "trn2", 1);
  setenv("NRTSIM_CORES", "64", 1);
  DeviceInventory inventory = EnumerateSim();
  EXPECT_EQ(inventory.instance.TypeName(), "trn2.48xlarge");
  ASSERT_EQ(inventory.cores.size(), 64u);
  EXPECT_EQ(inventory.cores[63].architecture, "NeuronCore-v3");
  EXPECT_EQ(inventory.cores[63].memory_bytes, 24 * kGiB);
}

// A 2.29 runtime knows only the 8-byte nrt_instance_info_t (family, size) and refuses the
// 2.30 struct's 32 bytes: the inventory passes the size of the runtime's version.
TEST_F(DeviceInventoryTest, RuntimeBefore230GetsItsEightByteInstanceInfo) {
  setenv("NRTSIM_VERSION", "2.29.0", 1);
  setenv("NRTSIM_INSTANCE", "trn1", 1);
  DeviceInventory inventory = EnumerateSim();
  EXPECT_EQ(inventory.runtime_version.ToString(), "2.29.0.0");
  EXPECT_EQ(inventory.instance.TypeName(), "trn1.2xlarge");
  EXPECT_EQ(inventory.instance.arch_name, "");  // not in the 2.29 struct
  EXPECT_EQ(inventory.instance.device_revision, "");
  EXPECT_EQ(inventory.cores.size(), 2u);
}

TEST_F(DeviceInventoryTest, Runtime230FillsTheNames) {
  setenv("NRTSIM_VERSION", "2.30.1", 1);
  DeviceInventory inventory = EnumerateSim();
  EXPECT_EQ(inventory.instance.arch_name, "inferentia2");
  EXPECT_EQ(inventory.instance.device_revision, "sim");
}

// trn2 at LNC=1: twice the cores of the default LNC=2, each reporting the 24 GiB bank it shares
// with its pair.
TEST_F(DeviceInventoryTest, Trn2WithOnePhysicalCorePerLogicalCore) {
  setenv("NRTSIM_INSTANCE", "trn2", 1);
  setenv("NRTSIM_CORES", "4", 1);
  setenv("NEURON_LOGICAL_NC_CONFIG", "1", 1);
  DeviceInventory inventory = EnumerateSim();
  EXPECT_EQ(inventory.instance.TypeName(), "trn2.3xlarge");
  EXPECT_EQ(inventory.total_cores, 8u);
  ASSERT_EQ(inventory.cores.size(), 8u);
  EXPECT_EQ(inventory.cores[7].memory_bytes, 24 * kGiB);
}

TEST_F(DeviceInventoryTest, RuntimeMemoryLimitWinsOverTheTable) {
  setenv("NRTSIM_HBM_BYTES", "4GiB", 1);
  DeviceInventory inventory = EnumerateSim();
  ASSERT_FALSE(inventory.cores.empty());
  EXPECT_EQ(inventory.cores[0].memory_bytes, 4 * kGiB);
}

TEST(FormatBytesTest, BinaryUnits) {
  EXPECT_EQ(FormatBytes(16 * kGiB), "16 GiB");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(1000), "1000 B");
}

}  // namespace
}  // namespace neuronserve
