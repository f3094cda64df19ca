#include "core/device/generation.h"

#include "base/instance_size_names.h"
#include "base/nrt_abi.h"

namespace neuronserve {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

// Sources: the Neuron architecture documentation (NeuronCore-v1/v2/v3 pages and "Data Types").
// NeuronCore-v1's engines take FP16/BF16/INT8 (FP32 models are auto-cast), memory is DDR.
// NeuronCore-v2 adds FP32/TF32 and configurable FP8 (cFP8: E4M3 and E5M2) on HBM.
// NeuronCore-v3 (Trainium2) keeps cFP8/FP16/BF16/TF32/FP32; its docs name no INT8 path.
// No generation so far documents INT4.
constexpr CapabilitySet kCoreV1 = Capability::kFp32 | Capability::kBf16 | Capability::kFp16 |
                                  Capability::kInt8 | Capability::kMatrixEngine;
constexpr CapabilitySet kCoreV2 = kCoreV1 | Capability::kFp8E4M3 | Capability::kFp8E5M2 |
                                  Capability::kHbm | Capability::kMultiStream;
constexpr CapabilitySet kCoreV3 =
    Capability::kFp32 | Capability::kBf16 | Capability::kFp16 | Capability::kFp8E4M3 |
    Capability::kFp8E5M2 | Capability::kMatrixEngine | Capability::kHbm | Capability::kMultiStream;

constexpr Generation kInf1{"inf1", "Inferentia", "NeuronCore-v1", 4, 8 * kGiB, kCoreV1};
constexpr Generation kInf2{"inf2", "Inferentia2", "NeuronCore-v2", 2, 32 * kGiB, kCoreV2};
constexpr Generation kTrn1{"trn1", "Trainium", "NeuronCore-v2", 2, 32 * kGiB, kCoreV2};
// Trainium2: 8 physical cores per chip, paired into 4 logical cores by default (LNC=2).
constexpr Generation kTrn2{"trn2", "Trainium2", "NeuronCore-v3", 4, 96 * kGiB, kCoreV3};
// Trainium3: memory and core count are published; its capability flags are not yet in the
// table, so none are claimed.
constexpr Generation kTrn3{"trn3", "Trainium3", "unknown", 8, 144 * kGiB, 0};
constexpr Generation kUnknown{"unknown", "unknown", "unknown", 0, 0, 0};

}  // namespace

const std::vector<Capability>& AllCapabilities() {
  static const std::vector<Capability> all = {
      Capability::kFp32, Capability::kBf16,       Capability::kFp16,    Capability::kInt8,
      Capability::kInt4, Capability::kFp8E4M3,    Capability::kFp8E5M2, Capability::kMatrixEngine,
      Capability::kHbm,  Capability::kMultiStream};
  return all;
}

absl::string_view CapabilityName(Capability capability) {
  switch (capability) {
    case Capability::kFp32:
      return "FP32";
    case Capability::kBf16:
      return "BF16";
    case Capability::kFp16:
      return "FP16";
    case Capability::kInt8:
      return "INT8";
    case Capability::kInt4:
      return "INT4";
    case Capability::kFp8E4M3:
      return "FP8_E4M3";
    case Capability::kFp8E5M2:
      return "FP8_E5M2";
    case Capability::kMatrixEngine:
      return "MATRIX_ENGINE";
    case Capability::kHbm:
      return "HBM";
    case Capability::kMultiStream:
      return "MULTI_STREAM";
  }
  return "UNKNOWN";
}

uint64_t Generation::MemoryPerCoreBytes() const {
  return cores_per_chip == 0 ? 0 : memory_per_chip_bytes / cores_per_chip;
}

const Generation& GenerationForFamily(uint32_t family) {
  switch (family) {
    case NRT_INSTANCE_INF1:
      return kInf1;
    case NRT_INSTANCE_INF2:
    case NRT_INSTANCE_INF2E:
      return kInf2;
    case NRT_INSTANCE_TRN1:
    case NRT_INSTANCE_TRN1N:
      return kTrn1;
    case NRT_INSTANCE_TRN2:
    case NRT_INSTANCE_TRN2N:
    case NRT_INSTANCE_TRN2P:
    case NRT_INSTANCE_TRN2U:
    case NRT_INSTANCE_TRN2E:
    case NRT_INSTANCE_TRN2EU:
    case NRT_INSTANCE_TRN2AC:
    case NRT_INSTANCE_TRN2UAC:
      return kTrn2;
    case NRT_INSTANCE_TRN3:
    case NRT_INSTANCE_TRN3PDS98:
      return kTrn3;
    default:
      return kUnknown;
  }
}

absl::string_view InstanceSizeName(uint32_t size) { return NrtInstanceSizeName(size); }

}  // namespace neuronserve
