// DeviceInventory: what the runtime sees of the machine — the instance, the runtime version and
// every visible NeuronCore with its architecture, memory and capabilities.
#ifndef NEURON_SERVE_CORE_DEVICE_DEVICE_INVENTORY_H_
#define NEURON_SERVE_CORE_DEVICE_DEVICE_INVENTORY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/device/generation.h"
#include "core/nrt/nrt_runtime.h"

namespace neuronserve {

struct InstanceDescription {
  uint32_t family_value = 0;  // nrt_instance_info_t.family as reported
  uint32_t size_value = 0;    // nrt_instance_info_t.size as reported
  std::string family;         // "inf2", or "unknown"
  std::string size;           // "xlarge", or "unknown"
  std::string arch_name;      // nrt_instance_info_t.arch_name as reported
  std::string device_revision;

  std::string TypeName() const;  // "inf2.xlarge"
};

struct CoreDescription {
  uint32_t index = 0;  // visible (renumbered) core index, what nrt_load takes
  std::string architecture;
  uint64_t memory_bytes = 0;  // device memory of this core
  CapabilitySet capabilities = 0;
};

struct DeviceInventory {
  RuntimeVersion runtime_version;
  std::string runtime_library;
  InstanceDescription instance;
  uint32_t total_cores = 0;
  uint32_t visible_cores = 0;
  std::vector<CoreDescription> cores;  // one per visible core, by index

  // "2 NeuronCores (NeuronCore-v2, 16 GiB each) on inf2.xlarge"
  std::string Summary() const;
};

// Reads the instance, core counts and version from the runtime. A core's memory is the limit the
// runtime reports (nrt_get_vnc_memory_stats) when it can, else the generation table's figure.
absl::StatusOr<DeviceInventory> EnumerateDevices(const NrtRuntime& runtime);

// "16 GiB", "512 MiB", "1000 B": binary units, exact when possible.
std::string FormatBytes(uint64_t bytes);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_DEVICE_DEVICE_INVENTORY_H_
