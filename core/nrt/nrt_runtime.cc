#include "core/nrt/nrt_runtime.h"

#include <atomic>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/nrt/nrt_status.h"

namespace neuronserve {
namespace {

// True while an NrtRuntime is alive in this process.
std::atomic<bool> g_runtime_alive{false};

std::string FixedString(const char* chars, size_t capacity) {
  return std::string(chars, strnlen(chars, capacity));
}

}  // namespace

std::string RuntimeVersion::ToString() const {
  return absl::StrCat(major, ".", minor, ".", patch, ".", maintenance);
}

absl::StatusOr<std::unique_ptr<NrtRuntime>> NrtRuntime::Start(std::unique_ptr<NrtLibrary> library) {
  if (g_runtime_alive.exchange(true)) {
    return absl::FailedPreconditionError(
        "the Neuron runtime is already initialized in this process; libnrt allows one runtime "
        "per process");
  }
  const NrtApi& api = library->api();
  // The empty framework versions are what a standalone (framework-less) server passes.
  if (absl::Status status = NrtError(absl::StrCat("nrt_init (", library->path(), ")"),
                                     api.init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
      !status.ok()) {
    g_runtime_alive = false;
    return status;
  }
  nrt_version_t raw{};
  if (absl::Status status = NrtError("nrt_get_version", api.get_version(&raw, sizeof(raw)));
      !status.ok()) {
    api.close();
    g_runtime_alive = false;
    return status;
  }
  RuntimeVersion version;
  version.major = raw.rt_major;
  version.minor = raw.rt_minor;
  version.patch = raw.rt_patch;
  version.maintenance = raw.rt_maintenance;
  version.detail = FixedString(raw.rt_detail, sizeof(raw.rt_detail));
  version.git_hash = FixedString(raw.git_hash, sizeof(raw.git_hash));
  return std::unique_ptr<NrtRuntime>(new NrtRuntime(std::move(library), std::move(version)));
}

NrtRuntime::NrtRuntime(std::unique_ptr<NrtLibrary> library, RuntimeVersion version)
    : library_(std::move(library)),
      version_(std::move(version)),
      numbering_(DtypeNumberingForVersion(version_.major, version_.minor)) {}

NrtRuntime::~NrtRuntime() {
  api().close();
  g_runtime_alive = false;
}

absl::StatusOr<NrtModel> NrtRuntime::LoadModel(absl::Span<const uint8_t> neff,
                                               int32_t start_core) const {
  nrt_model_t* model = nullptr;
  // vnc_count is deprecated in current headers ("always use -1"); the model's own core count
  // comes from nrt_get_model_nc_count after the load.
  if (absl::Status status =
          NrtError("nrt_load", api().load(neff.data(), neff.size(), start_core, -1, &model),
                   absl::StrCat("start core ", start_core, ", ", neff.size(), " bytes"));
      !status.ok()) {
    return status;
  }
  return NrtModel(&api(), model, numbering_);
}

absl::StatusOr<NrtTensor> NrtRuntime::AllocateTensor(nrt_tensor_placement_t placement, int core,
                                                     size_t size, const std::string& name) const {
  nrt_tensor_t* tensor = nullptr;
  if (absl::Status status =
          NrtError("nrt_tensor_allocate",
                   api().tensor_allocate(placement, core, size, name.c_str(), &tensor),
                   absl::StrCat("tensor '", name, "', ", size, " bytes on core ", core));
      !status.ok()) {
    return status;
  }
  return NrtTensor(&api(), tensor);
}

absl::StatusOr<NrtTensorSet> NrtRuntime::AllocateTensorSet() const {
  nrt_tensor_set_t* set = nullptr;
  if (absl::Status status = NrtError("nrt_allocate_tensor_set", api().allocate_tensor_set(&set));
      !status.ok()) {
    return status;
  }
  return NrtTensorSet(&api(), set);
}

absl::StatusOr<CoreMemoryStats> NrtRuntime::MemoryStats(uint32_t core) const {
  if (api().get_vnc_memory_stats == nullptr) {
    return absl::UnimplementedError(absl::StrCat("the Neuron runtime '", library_path(),
                                                 "' does not export nrt_get_vnc_memory_stats"));
  }
  nrt_vnc_memory_stats_t stats{};
  size_t written = 0;
  if (absl::Status status =
          NrtError("nrt_get_vnc_memory_stats",
                   api().get_vnc_memory_stats(core, &stats, sizeof(stats), &written),
                   absl::StrCat("core ", core));
      !status.ok()) {
    return status;
  }
  return CoreMemoryStats{stats.bytes_used, stats.bytes_limit};
}

}  // namespace neuronserve
