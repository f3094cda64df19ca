#include "server/native/enumerate_response.h"

namespace neuronserve {
namespace {

v1::Capability ToProto(Capability capability) {
  switch (capability) {
    case Capability::kFp32:
      return v1::CAPABILITY_FP32;
    case Capability::kBf16:
      return v1::CAPABILITY_BF16;
    case Capability::kFp16:
      return v1::CAPABILITY_FP16;
    case Capability::kInt8:
      return v1::CAPABILITY_INT8;
    case Capability::kInt4:
      return v1::CAPABILITY_INT4;
    case Capability::kFp8E4M3:
      return v1::CAPABILITY_FP8_E4M3;
    case Capability::kFp8E5M2:
      return v1::CAPABILITY_FP8_E5M2;
    case Capability::kMatrixEngine:
      return v1::CAPABILITY_MATRIX_ENGINE;
    case Capability::kHbm:
      return v1::CAPABILITY_HBM;
    case Capability::kMultiStream:
      return v1::CAPABILITY_MULTI_STREAM;
  }
  return v1::CAPABILITY_UNSPECIFIED;
}

}  // namespace

v1::EnumerateResponse BuildEnumerateResponse(const DeviceInventory& inventory) {
  v1::EnumerateResponse response;
  v1::RuntimeInfo& runtime = *response.mutable_runtime();
  runtime.set_major(inventory.runtime_version.major);
  runtime.set_minor(inventory.runtime_version.minor);
  runtime.set_patch(inventory.runtime_version.patch);
  runtime.set_maintenance(inventory.runtime_version.maintenance);
  runtime.set_detail(inventory.runtime_version.detail);
  runtime.set_git_hash(inventory.runtime_version.git_hash);
  runtime.set_library(inventory.runtime_library);

  v1::InstanceInfo& instance = *response.mutable_instance();
  instance.set_family(inventory.instance.family);
  instance.set_size(inventory.instance.size);
  instance.set_type(inventory.instance.TypeName());
  instance.set_arch_name(inventory.instance.arch_name);
  instance.set_device_revision(inventory.instance.device_revision);
  instance.set_family_value(inventory.instance.family_value);
  instance.set_size_value(inventory.instance.size_value);

  response.set_total_cores(inventory.total_cores);
  response.set_visible_cores(inventory.visible_cores);
  for (const CoreDescription& core : inventory.cores) {
    v1::NeuronCore& out = *response.add_cores();
    out.set_index(core.index);
    out.set_architecture(core.architecture);
    out.set_memory_bytes(core.memory_bytes);
    for (Capability capability : AllCapabilities()) {
      if (HasCapability(core.capabilities, capability)) out.add_capabilities(ToProto(capability));
    }
  }
  return response;
}

void FillMemoryUse(const NrtRuntime& runtime, v1::EnumerateResponse& response) {
  for (v1::NeuronCore& core : *response.mutable_cores()) {
    absl::StatusOr<CoreMemoryStats> stats = runtime.MemoryStats(core.index());
    core.set_memory_used_bytes(stats.ok() ? stats->bytes_used : 0);
  }
}

}  // namespace neuronserve
