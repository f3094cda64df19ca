#include "core/nrt/nrt_library.h"

#include <dlfcn.h>

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace neuronserve {
namespace {

std::string LastDlError() {
  const char* error = dlerror();
  return error == nullptr ? std::string("unknown dlerror") : std::string(error);
}

// dlsym into a typed pointer; nullptr when the symbol is absent.
template <typename Fn>
Fn Lookup(void* handle, const char* name) {
  dlerror();  // clear a stale error so a null result is attributed to this lookup
  return reinterpret_cast<Fn>(dlsym(handle, name));
}

}  // namespace

absl::StatusOr<std::unique_ptr<NrtLibrary>> NrtLibrary::Open(absl::string_view path) {
  std::vector<std::string> candidates;
  if (path.empty()) {
    for (absl::string_view name : kDefaultNames) candidates.emplace_back(name);
  } else {
    candidates.emplace_back(path);
  }
  std::vector<std::string> failures;
  for (const std::string& candidate : candidates) {
    // RTLD_NOW: an unresolvable dependency of the runtime fails here, not mid-request.
    // RTLD_LOCAL: the runtime's symbols stay out of the global namespace.
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      failures.push_back(LastDlError());
      continue;
    }
    std::unique_ptr<NrtLibrary> library(new NrtLibrary(handle, candidate));
    if (absl::Status resolved = library->ResolveSymbols(); !resolved.ok()) return resolved;
    return library;
  }
  std::string hint = path.empty() ? "; pass --nrt-library=PATH to name the runtime library" : "";
  return absl::NotFoundError(absl::StrCat("cannot load the Neuron runtime library (tried ",
                                          absl::StrJoin(candidates, ", "),
                                          "): ", absl::StrJoin(failures, "; "), hint));
}

NrtLibrary::~NrtLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

absl::Status NrtLibrary::ResolveSymbols() {
  std::vector<std::string> missing;
  auto require = [&](auto& slot, const char* name) {
    slot = Lookup<std::remove_reference_t<decltype(slot)>>(handle_, name);
    if (slot == nullptr) missing.emplace_back(name);
  };
  auto require_either = [&](auto& slot, const char* old_name, const char* new_name) {
    using Fn = std::remove_reference_t<decltype(slot)>;
    slot = Lookup<Fn>(handle_, old_name);
    if (slot == nullptr) slot = Lookup<Fn>(handle_, new_name);
    if (slot == nullptr) missing.push_back(absl::StrCat(old_name, " (or ", new_name, ")"));
  };
  require(api_.init, "nrt_init");
  require(api_.close, "nrt_close");
  require(api_.get_version, "nrt_get_version");
  require(api_.get_instance_info, "nrt_get_instance_info");
  require_either(api_.get_total_nc_count, "nrt_get_total_nc_count", "nrt_get_total_vnc_count");
  require_either(api_.get_visible_nc_count, "nrt_get_visible_nc_count",
                 "nrt_get_visible_vnc_count");
  require(api_.load, "nrt_load");
  require(api_.unload, "nrt_unload");
  require(api_.get_model_tensor_info, "nrt_get_model_tensor_info");
  require(api_.free_model_tensor_info, "nrt_free_model_tensor_info");
  require(api_.tensor_allocate, "nrt_tensor_allocate");
  require(api_.tensor_free, "nrt_tensor_free");
  require(api_.tensor_read, "nrt_tensor_read");
  require(api_.tensor_write, "nrt_tensor_write");
  require(api_.tensor_memset, "nrt_tensor_memset");
  require(api_.tensor_get_size, "nrt_tensor_get_size");
  require(api_.allocate_tensor_set, "nrt_allocate_tensor_set");
  require(api_.destroy_tensor_set, "nrt_destroy_tensor_set");
  require(api_.add_tensor_to_tensor_set, "nrt_add_tensor_to_tensor_set");
  require(api_.get_tensor_from_tensor_set, "nrt_get_tensor_from_tensor_set");
  require(api_.execute, "nrt_execute");

  api_.get_vnc_memory_stats =
      Lookup<decltype(api_.get_vnc_memory_stats)>(handle_, "nrt_get_vnc_memory_stats");
  api_.get_status_as_str =
      Lookup<decltype(api_.get_status_as_str)>(handle_, "nrt_get_status_as_str");
  // Deprecated in 2.30 and left out by some builds: a model's core count has fallbacks.
  for (const char* name : {"nrt_get_model_nc_count", "nrt_get_model_vnc_count"}) {
    api_.get_model_nc_count = Lookup<decltype(api_.get_model_nc_count)>(handle_, name);
    if (api_.get_model_nc_count != nullptr) {
      api_.model_nc_count_symbol = name;
      break;
    }
  }
  api_.get_model_info = Lookup<decltype(api_.get_model_info)>(handle_, "nrt_get_model_info");

  if (missing.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("the Neuron runtime library '", path_, "' does not export ",
                   missing.size() == 1 ? "the required symbol " : "the required symbols ",
                   absl::StrJoin(missing, ", "), " (is it libnrt from Neuron runtime 2.x?)"));
}

}  // namespace neuronserve
