// What each NeuronCore generation is: its architecture name, memory and capability flags.
//
// The runtime reports only an instance family (nrt_get_instance_info); the table here turns it
// into what an operator wants to see. A family this table does not know is reported as
// "unknown" with no capability flags, never refused: new hardware must still serve.
#ifndef NEURON_SERVE_CORE_DEVICE_GENERATION_H_
#define NEURON_SERVE_CORE_DEVICE_GENERATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace neuronserve {

enum class Capability : uint32_t {
  kFp32 = 1u << 0,
  kBf16 = 1u << 1,
  kFp16 = 1u << 2,
  kInt8 = 1u << 3,
  kInt4 = 1u << 4,
  kFp8E4M3 = 1u << 5,
  kFp8E5M2 = 1u << 6,
  kMatrixEngine = 1u << 7,  // a systolic-array TensorEngine for GEMM/CONV
  kHbm = 1u << 8,           // device memory is HBM (NeuronCore-v1 uses DDR DRAM)
  kMultiStream = 1u << 9,   // independently scheduled engines run concurrent instruction streams
};

using CapabilitySet = uint32_t;

constexpr CapabilitySet operator|(Capability a, Capability b) {
  return static_cast<CapabilitySet>(a) | static_cast<CapabilitySet>(b);
}
constexpr CapabilitySet operator|(CapabilitySet a, Capability b) {
  return a | static_cast<CapabilitySet>(b);
}
constexpr bool HasCapability(CapabilitySet set, Capability capability) {
  return (set & static_cast<CapabilitySet>(capability)) != 0;
}

// Every flag in declaration order, and its upper-case name ("FP32", "FP8_E4M3", ...).
const std::vector<Capability>& AllCapabilities();
absl::string_view CapabilityName(Capability capability);

struct Generation {
  absl::string_view family;        // "inf1", "inf2", "trn1", "trn2", "trn3", or "unknown"
  absl::string_view chip;          // "Inferentia2", ...
  absl::string_view architecture;  // "NeuronCore-v2", ...
  uint32_t cores_per_chip = 0;     // (logical) NeuronCores per chip at the default configuration
  uint64_t memory_per_chip_bytes = 0;
  CapabilitySet capabilities = 0;

  bool known() const { return family != "unknown"; }
  // Device memory of one (logical) core at the default configuration; 0 when unknown.
  uint64_t MemoryPerCoreBytes() const;
};

// The generation for an nrt_instance_info_t.family value (every INF2*/TRN2* variant maps to its
// base family).
const Generation& GenerationForFamily(uint32_t family);

// "xlarge", "2xlarge", ... for an nrt_instance_info_t.size value; "unknown" otherwise.
absl::string_view InstanceSizeName(uint32_t size);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_DEVICE_GENERATION_H_
