#include "core/device/device_inventory.h"

#include <cstddef>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/nrt/nrt_status.h"

namespace neuronserve {

namespace {

// nrt_instance_info_t grew at runtime 2.30 (arch_name and device_revision after family and
// size); an older runtime knows only its 8-byte struct and refuses a larger length, so pass the
// size of the struct of the runtime's version.
size_t InstanceInfoBytesFor(const RuntimeVersion& version) {
  const bool has_names = version.major > 2 || (version.major == 2 && version.minor >= 30);
  return has_names ? sizeof(nrt_instance_info_t) : offsetof(nrt_instance_info_t, arch_name);
}

}  // namespace

std::string InstanceDescription::TypeName() const { return absl::StrCat(family, ".", size); }

std::string FormatBytes(uint64_t bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  if (value == static_cast<double>(static_cast<uint64_t>(value))) {
    return absl::StrCat(static_cast<uint64_t>(value), " ", kUnits[unit]);
  }
  return absl::StrFormat("%.1f %s", value, kUnits[unit]);
}

std::string DeviceInventory::Summary() const {
  std::string architecture = cores.empty() ? "none" : cores.front().architecture;
  std::string memory = cores.empty() ? "0 B" : FormatBytes(cores.front().memory_bytes);
  return absl::StrCat(visible_cores, " of ", total_cores, " NeuronCores (", architecture, ", ",
                      memory, " each) on ", instance.TypeName());
}

absl::StatusOr<DeviceInventory> EnumerateDevices(const NrtRuntime& runtime) {
  const NrtApi& api = runtime.api();
  DeviceInventory inventory;
  inventory.runtime_version = runtime.version();
  inventory.runtime_library = runtime.library_path();

  nrt_instance_info_t info{};  // before 2.30 arch_name and device_revision stay empty
  if (absl::Status status =
          NrtError("nrt_get_instance_info",
                   api.get_instance_info(&info, InstanceInfoBytesFor(inventory.runtime_version)));
      !status.ok()) {
    return status;
  }
  const Generation& generation = GenerationForFamily(info.family);
  inventory.instance.family_value = info.family;
  inventory.instance.size_value = info.size;
  inventory.instance.family = std::string(generation.family);
  inventory.instance.size = std::string(InstanceSizeName(info.size));
  inventory.instance.arch_name.assign(info.arch_name,
                                      strnlen(info.arch_name, sizeof(info.arch_name)));
  inventory.instance.device_revision.assign(
      info.device_revision, strnlen(info.device_revision, sizeof(info.device_revision)));

  if (absl::Status status =
          NrtError("nrt_get_total_nc_count", api.get_total_nc_count(&inventory.total_cores));
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          NrtError("nrt_get_visible_nc_count", api.get_visible_nc_count(&inventory.visible_cores));
      !status.ok()) {
    return status;
  }

  for (uint32_t index = 0; index < inventory.visible_cores; ++index) {
    CoreDescription core;
    core.index = index;
    core.architecture = std::string(generation.architecture);
    core.capabilities = generation.capabilities;
    core.memory_bytes = generation.MemoryPerCoreBytes();
    // The runtime's own limit wins over the table (e.g. NRTSIM_HBM_BYTES, or another memory
    // size than the generation's). On trn2 with NEURON_LOGICAL_NC_CONFIG=1 both cores of a pair
    // report the whole HBM bank they share.
    absl::StatusOr<CoreMemoryStats> stats = runtime.MemoryStats(index);
    if (stats.ok() && stats->bytes_limit > 0) core.memory_bytes = stats->bytes_limit;
    inventory.cores.push_back(std::move(core));
  }
  return inventory;
}

}  // namespace neuronserve
