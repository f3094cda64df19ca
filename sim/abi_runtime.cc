// extern "C" entry points: runtime lifecycle and queries about the (simulated) machine.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

#include "base/nrt_abi.h"
#include "base/nrt_status_names.h"
#include "sim/abi_guard.h"
#include "sim/log.h"
#include "sim/runtime_state.h"
#include "sim/sim_counters.h"

namespace nrtsim = neuronserve::nrtsim;

namespace {

// Copies the first min(size, sizeof(T)) bytes of `full` to `out`: a caller built against an
// older, smaller struct passes its own sizeof (the ABI's versioning rule).
template <typename T>
void CopyPrefix(const T& full, void* out, size_t size) {
  std::memcpy(out, &full, std::min(size, sizeof(T)));
}

void CopyString(const std::string& text, char* out, size_t capacity) {
  size_t n = std::min(text.size(), capacity - 1);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

// nrt_instance_info_t up to runtime 2.29: uint32_t family, uint32_t size.
constexpr size_t kInstanceInfoBytesBefore230 = offsetof(nrt_instance_info_t, arch_name);
static_assert(kInstanceInfoBytesBefore230 == 8);

enum class CoreCountKind { kTotal, kVisible };

NRT_STATUS GetCoreCount(const char* caller, CoreCountKind kind, uint32_t* count) {
  if (count == nullptr) return NRT_INVALID;
  nrtsim::SimConfig config;
  if (NRT_STATUS s = nrtsim::ConfigForQuery(caller, &config); s != NRT_SUCCESS) return s;
  // Logical cores, as the real runtime counts them (LNC).
  *count = kind == CoreCountKind::kTotal ? config.core_count
                                         : static_cast<uint32_t>(config.visible_cores.size());
  return NRT_SUCCESS;
}

}  // namespace

extern "C" {

NRT_STATUS nrt_init(nrt_framework_type_t framework, const char* /*fw_version*/,
                    const char* /*fal_version*/) {
  try {
    if (framework < NRT_FRAMEWORK_TYPE_NO_FW || framework > NRT_FRAMEWORK_TYPE_PRECHECK) {
      nrtsim::LogLine("nrt_init: invalid framework type " +
                      std::to_string(static_cast<int32_t>(framework)));
      return NRT_INVALID;
    }
    return nrtsim::OpenRuntime();
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_init");
  }
}

void nrt_close(void) {
  try {
    if (!nrtsim::CloseRuntime()) return;
    nrtsim::LogLine("nrt_close");
    nrtsim_stats_t stats = nrtsim::SnapshotCounters();
    if (stats.live_models != 0 || stats.live_tensors != 0 || stats.live_tensor_sets != 0) {
      nrtsim::LogLine("warning: nrt_close with " + std::to_string(stats.live_models) +
                      " model(s), " + std::to_string(stats.live_tensors) + " tensor(s) and " +
                      std::to_string(stats.live_tensor_sets) +
                      " tensor set(s) still allocated; they stay valid for unload/free");
    }
  } catch (...) {
    nrtsim::StatusForCurrentException("nrt_close");
  }
}

NRT_STATUS nrt_get_version(nrt_version_t* ver, size_t size) {
  try {
    if (ver == nullptr) return NRT_INVALID;
    nrtsim::SimConfig config;
    if (NRT_STATUS s = nrtsim::ConfigForQuery("nrt_get_version", &config); s != NRT_SUCCESS) {
      return s;
    }
    nrt_version_t version{};
    version.rt_major = config.version.major;
    version.rt_minor = config.version.minor;
    version.rt_patch = config.version.patch;
    version.rt_maintenance = config.version.maintenance;
    CopyString("nrtsim: simulated Neuron runtime on the CPU (not real hardware)", version.rt_detail,
               sizeof(version.rt_detail));
    CopyString("nrtsim", version.git_hash, sizeof(version.git_hash));
    CopyPrefix(version, ver, size);
    return NRT_SUCCESS;
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_get_version");
  }
}

NRT_STATUS nrt_get_instance_info(nrt_instance_info_t* info, size_t instance_info_len) {
  try {
    if (info == nullptr) return NRT_INVALID;
    nrtsim::SimConfig config;
    if (NRT_STATUS s = nrtsim::ConfigForQuery("nrt_get_instance_info", &config); s != NRT_SUCCESS) {
      return s;
    }
    nrt_instance_info_t full{};
    full.family = config.family->family;
    full.size = config.instance_size;
    // Before 2.30 the struct was `family` and `size` only (8 bytes); such a runtime knows no
    // other size, so a caller that passes the 2.30 struct's 32 bytes is refused.
    if (!config.version.AtLeast(2, 30)) {
      if (instance_info_len != kInstanceInfoBytesBefore230) {
        nrtsim::LogLine("nrt_get_instance_info: instance_info_len " +
                        std::to_string(instance_info_len) + " is not the " +
                        std::to_string(kInstanceInfoBytesBefore230) +
                        " bytes of nrt_instance_info_t in runtime versions before 2.30 (family, "
                        "size; reported version " +
                        config.version.ToString() + ")");
        return NRT_INVALID;
      }
      CopyPrefix(full, info, instance_info_len);
      return NRT_SUCCESS;
    }
    CopyString(std::string(config.family->arch_name), full.arch_name, sizeof(full.arch_name));
    CopyString("sim", full.device_revision, sizeof(full.device_revision));
    CopyPrefix(full, info, instance_info_len);
    return NRT_SUCCESS;
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_get_instance_info");
  }
}

NRT_STATUS nrt_get_total_nc_count(uint32_t* vnc_count) {
  try {
    return GetCoreCount("nrt_get_total_nc_count", CoreCountKind::kTotal, vnc_count);
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_get_total_nc_count");
  }
}

NRT_STATUS nrt_get_visible_nc_count(uint32_t* vnc_count) {
  try {
    return GetCoreCount("nrt_get_visible_nc_count", CoreCountKind::kVisible, vnc_count);
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_get_visible_nc_count");
  }
}

NRT_STATUS nrt_get_total_vnc_count(uint32_t* vnc_count) {
  try {
    return GetCoreCount("nrt_get_total_vnc_count", CoreCountKind::kTotal, vnc_count);
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_get_total_vnc_count");
  }
}

NRT_STATUS nrt_get_visible_vnc_count(uint32_t* vnc_count) {
  try {
    return GetCoreCount("nrt_get_visible_vnc_count", CoreCountKind::kVisible, vnc_count);
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_get_visible_vnc_count");
  }
}

NRT_STATUS nrt_get_vnc_memory_stats(uint32_t vnc, nrt_vnc_memory_stats_t* stats,
                                    size_t stats_size_in, size_t* stats_size_out) {
  try {
    if (stats == nullptr) return NRT_INVALID;
    std::shared_ptr<const nrtsim::Session> session;
    if (NRT_STATUS s = nrtsim::CurrentSession(&session); s != NRT_SUCCESS) return s;
    std::shared_ptr<nrtsim::DeviceCore> core = session->CoreAt(vnc);
    if (core == nullptr) {
      nrtsim::LogLine("nrt_get_vnc_memory_stats: core " + std::to_string(vnc) +
                      " is not visible (" + std::to_string(session->cores.size()) +
                      " visible cores)");
      return NRT_INVALID;
    }
    nrt_vnc_memory_stats_t full{};
    full.bytes_used = core->hbm_bytes_used();
    full.bytes_limit = core->hbm_bytes_limit();
    CopyPrefix(full, stats, stats_size_in);
    if (stats_size_out != nullptr) *stats_size_out = std::min(stats_size_in, sizeof(full));
    return NRT_SUCCESS;
  } catch (...) {
    return nrtsim::StatusForCurrentException("nrt_get_vnc_memory_stats");
  }
}

const char* nrt_get_status_as_str(NRT_STATUS status) {
  const std::string_view name = neuronserve::NrtStatusName(status);
  return !name.empty() ? name.data() : "NRT_UNKNOWN_STATUS";
}

NRT_STATUS nrtsim_get_stats(nrtsim_stats_t* stats, size_t size) {
  if (stats == nullptr) return NRT_INVALID;
  nrtsim_stats_t full = nrtsim::SnapshotCounters();
  CopyPrefix(full, stats, size);
  return NRT_SUCCESS;
}

void nrtsim_reset_peak(void) {
  nrtsim::SimCounters& counters = nrtsim::Counters();
  counters.peak_concurrent_executions.store(counters.in_device_section.load());
}

NRT_STATUS nrtsim_get_core_busy(int32_t vnc, nrtsim_core_busy_t* busy, size_t size) {
  if (busy == nullptr) return NRT_INVALID;
  std::shared_ptr<const nrtsim::Session> session;
  if (NRT_STATUS s = nrtsim::CurrentSession(&session); s != NRT_SUCCESS) return s;
  const std::shared_ptr<nrtsim::DeviceCore> core = session->CoreAt(vnc);
  if (core == nullptr) return NRT_INVALID;
  CopyPrefix(core->Busy(), busy, size);
  return NRT_SUCCESS;
}

}  // extern "C"
