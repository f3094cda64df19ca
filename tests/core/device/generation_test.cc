#include "core/device/generation.h"

#include "base/nrt_abi.h"
#include "gtest/gtest.h"

namespace neuronserve {
namespace {

constexpr uint64_t kGibibyte = uint64_t{1} << 30;

TEST(GenerationTest, Inf1) {
  const Generation& g = GenerationForFamily(NRT_INSTANCE_INF1);
  EXPECT_EQ(g.family, "inf1");
  EXPECT_EQ(g.architecture, "NeuronCore-v1");
  EXPECT_EQ(g.cores_per_chip, 4u);
  EXPECT_EQ(g.MemoryPerCoreBytes(), 2 * kGibibyte);  // 8 GiB per chip, not per core
  EXPECT_TRUE(HasCapability(g.capabilities, Capability::kBf16));
  EXPECT_TRUE(HasCapability(g.capabilities, Capability::kInt8));
  EXPECT_FALSE(HasCapability(g.capabilities, Capability::kFp8E4M3));
  EXPECT_FALSE(HasCapability(g.capabilities, Capability::kHbm));
}

TEST(GenerationTest, Inf2AndTrn1ShareNeuronCoreV2) {
  for (uint32_t family :
       {NRT_INSTANCE_INF2, NRT_INSTANCE_INF2E, NRT_INSTANCE_TRN1, NRT_INSTANCE_TRN1N}) {
    const Generation& g = GenerationForFamily(family);
    EXPECT_EQ(g.architecture, "NeuronCore-v2") << family;
    EXPECT_EQ(g.MemoryPerCoreBytes(), 16 * kGibibyte) << family;
    EXPECT_TRUE(HasCapability(g.capabilities, Capability::kFp32));
    EXPECT_TRUE(HasCapability(g.capabilities, Capability::kFp8E4M3));
    EXPECT_TRUE(HasCapability(g.capabilities, Capability::kFp8E5M2));
    EXPECT_TRUE(HasCapability(g.capabilities, Capability::kHbm));
    EXPECT_FALSE(HasCapability(g.capabilities, Capability::kInt4));
  }
  EXPECT_EQ(GenerationForFamily(NRT_INSTANCE_INF2).family, "inf2");
  EXPECT_EQ(GenerationForFamily(NRT_INSTANCE_TRN1N).family, "trn1");
}

TEST(GenerationTest, Trn2LogicalCores) {
  for (uint32_t family = NRT_INSTANCE_TRN2; family <= NRT_INSTANCE_TRN2UAC; ++family) {
    if (family == NRT_INSTANCE_INF2E) continue;
    const Generation& g = GenerationForFamily(family);
    EXPECT_EQ(g.family, "trn2") << family;
    EXPECT_EQ(g.architecture, "NeuronCore-v3");
    EXPECT_EQ(g.MemoryPerCoreBytes(), 24 * kGibibyte);  // 96 GiB per chip, 4 logical cores at LNC=2
    EXPECT_TRUE(HasCapability(g.capabilities, Capability::kFp8E4M3));
  }
}

TEST(GenerationTest, UnknownFamilyIsReportedNotRefused) {
  for (uint32_t family : {uint32_t{NRT_INSTANCE_UNKNOWN}, uint32_t{99}}) {
    const Generation& g = GenerationForFamily(family);
    EXPECT_FALSE(g.known());
    EXPECT_EQ(g.family, "unknown");
    EXPECT_EQ(g.capabilities, 0u);
    EXPECT_EQ(g.MemoryPerCoreBytes(), 0u);
  }
}

TEST(GenerationTest, CapabilityNames) {
  EXPECT_EQ(AllCapabilities().size(), 10u);
  EXPECT_EQ(CapabilityName(Capability::kFp8E4M3), "FP8_E4M3");
  EXPECT_EQ(CapabilityName(Capability::kMultiStream), "MULTI_STREAM");
}

TEST(GenerationTest, InstanceSizeNames) {
  EXPECT_EQ(InstanceSizeName(NRT_INSTANCE_SIZE_1XL), "xlarge");
  EXPECT_EQ(InstanceSizeName(NRT_INSTANCE_SIZE_48XL), "48xlarge");
  EXPECT_EQ(InstanceSizeName(NRT_INSTANCE_SIZE_3XL), "3xlarge");
  EXPECT_EQ(InstanceSizeName(NRT_INSTANCE_SIZE_UNKNOWN), "unknown");
  EXPECT_EQ(InstanceSizeName(1234), "unknown");
}

}  // namespace
}  // namespace neuronserve
