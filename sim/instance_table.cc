#include "sim/instance_table.h"

#include <array>
#include <span>

#include "base/nrt_abi.h"

namespace neuronserve::nrtsim {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

struct InstanceSize {
  uint32_t size;  // NRT_INSTANCE_SIZE_*
  uint32_t cores;
};

// Sizes in ascending core count; a size with the same count as a smaller one (inf1.2xlarge,
// inf2.8xlarge) is left out because it is never the smallest fit.
constexpr std::array<InstanceSize, 3> kInf1Sizes = {{
    {NRT_INSTANCE_SIZE_1XL, 4},
    {NRT_INSTANCE_SIZE_6XL, 16},
    {NRT_INSTANCE_SIZE_24XL, 64},
}};
constexpr std::array<InstanceSize, 3> kInf2Sizes = {{
    {NRT_INSTANCE_SIZE_1XL, 2},
    {NRT_INSTANCE_SIZE_24XL, 12},
    {NRT_INSTANCE_SIZE_48XL, 24},
}};
constexpr std::array<InstanceSize, 2> kTrn1Sizes = {{
    {NRT_INSTANCE_SIZE_2XL, 2},
    {NRT_INSTANCE_SIZE_32XL, 32},
}};
// trn2 counts logical cores (two physical cores each, the default LNC=2): trn2.3xlarge has one
// chip (4 logical cores), trn2.48xlarge sixteen (64). The size is looked up with the count of
// the default configuration, so NEURON_LOGICAL_NC_CONFIG=1 (128 cores) is still a 48xlarge.
constexpr std::array<InstanceSize, 2> kTrn2Sizes = {{
    {NRT_INSTANCE_SIZE_3XL, 4},
    {NRT_INSTANCE_SIZE_48XL, 64},
}};

// inf1 has 8 GiB of DRAM per 4-core chip, i.e. 2 GiB per core; trn2's 96 GiB chip is four
// logical cores of 24 GiB.
constexpr std::array<InstanceFamily, 4> kFamilies = {{
    {"inf1", NRT_INSTANCE_INF1, "inferentia", 2 * kGiB, 1},
    {"inf2", NRT_INSTANCE_INF2, "inferentia2", 16 * kGiB, 1},
    {"trn1", NRT_INSTANCE_TRN1, "trainium", 16 * kGiB, 1},
    {"trn2", NRT_INSTANCE_TRN2, "trainium2", 24 * kGiB, 2},
}};

std::span<const InstanceSize> SizesOf(const InstanceFamily& family) {
  switch (family.family) {
    case NRT_INSTANCE_INF1:
      return kInf1Sizes;
    case NRT_INSTANCE_INF2:
      return kInf2Sizes;
    case NRT_INSTANCE_TRN1:
      return kTrn1Sizes;
    case NRT_INSTANCE_TRN2:
      return kTrn2Sizes;
    default:
      return {};
  }
}

}  // namespace

const InstanceFamily* FindInstanceFamily(std::string_view name) {
  for (const InstanceFamily& family : kFamilies) {
    if (family.name == name) return &family;
  }
  return nullptr;
}

uint32_t InstanceSizeForCores(const InstanceFamily& family, uint32_t core_count) {
  for (const InstanceSize& size : SizesOf(family)) {
    if (size.cores >= core_count) return size.size;
  }
  return NRT_INSTANCE_SIZE_UNKNOWN;
}

}  // namespace neuronserve::nrtsim
