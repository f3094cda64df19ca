// NrtLibrary: the Neuron runtime shared library, opened with dlopen, with every function the
// daemon calls resolved up front into a table of typed pointers.
//
// Resolving everything at start turns "the runtime is too old / not the runtime at all" into one
// clear startup error naming the library and the missing symbol, instead of a failure on the
// first request. The same binary runs on hardware (libnrt.so.1) and on the simulator
// (libnrtsim.so); nothing here knows which one it got.
//
// Thread safety: Open is called once, at start, by the daemon's main thread (dlopen itself is
// thread-safe, but nothing needs it to be). After Open the table never changes, so any thread
// may read it and call through it; which of those calls may overlap is the runtime's contract,
// written down in nrt_runtime.h.
//
// Ownership: NrtLibrary owns the dlopen handle and dlcloses it when destroyed. NrtApi is a plain
// table of pointers into the library: every copy of it and every handle that keeps a pointer to
// it (nrt_handle.h) must be gone before the NrtLibrary is destroyed, which NrtRuntime ensures by
// owning the library and outliving the handles.
#ifndef NEURON_SERVE_CORE_NRT_NRT_LIBRARY_H_
#define NEURON_SERVE_CORE_NRT_NRT_LIBRARY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/nrt_abi.h"

namespace neuronserve {

// The runtime's functions. Pointer types come from the prototypes in nrt_abi.h, so the table and
// the simulator's definitions cannot drift from the declared ABI.
struct NrtApi {
  decltype(&::nrt_init) init = nullptr;
  decltype(&::nrt_close) close = nullptr;
  decltype(&::nrt_get_version) get_version = nullptr;
  decltype(&::nrt_get_instance_info) get_instance_info = nullptr;
  // Resolved from nrt_get_total_nc_count, or from its newer name nrt_get_total_vnc_count.
  decltype(&::nrt_get_total_nc_count) get_total_nc_count = nullptr;
  // Resolved from nrt_get_visible_nc_count, or from nrt_get_visible_vnc_count.
  decltype(&::nrt_get_visible_nc_count) get_visible_nc_count = nullptr;
  decltype(&::nrt_load) load = nullptr;
  decltype(&::nrt_unload) unload = nullptr;
  decltype(&::nrt_get_model_tensor_info) get_model_tensor_info = nullptr;
  decltype(&::nrt_free_model_tensor_info) free_model_tensor_info = nullptr;
  decltype(&::nrt_tensor_allocate) tensor_allocate = nullptr;
  decltype(&::nrt_tensor_free) tensor_free = nullptr;
  decltype(&::nrt_tensor_read) tensor_read = nullptr;
  decltype(&::nrt_tensor_write) tensor_write = nullptr;
  decltype(&::nrt_tensor_memset) tensor_memset = nullptr;
  decltype(&::nrt_tensor_get_size) tensor_get_size = nullptr;
  decltype(&::nrt_allocate_tensor_set) allocate_tensor_set = nullptr;
  decltype(&::nrt_destroy_tensor_set) destroy_tensor_set = nullptr;
  decltype(&::nrt_add_tensor_to_tensor_set) add_tensor_to_tensor_set = nullptr;
  decltype(&::nrt_get_tensor_from_tensor_set) get_tensor_from_tensor_set = nullptr;
  decltype(&::nrt_execute) execute = nullptr;

  // Optional: only newer runtimes export these; nullptr when absent.
  decltype(&::nrt_get_vnc_memory_stats) get_vnc_memory_stats = nullptr;
  decltype(&::nrt_get_status_as_str) get_status_as_str = nullptr;

  // Optional, the ways to ask for a loaded model's core count (see NrtModel::CoreCount), each
  // nullptr when absent. Resolved from nrt_get_model_nc_count, or from its twin
  // nrt_get_model_vnc_count; `model_nc_count_symbol` names the one found (nullptr: neither).
  decltype(&::nrt_get_model_nc_count) get_model_nc_count = nullptr;
  const char* model_nc_count_symbol = nullptr;
  decltype(&::nrt_get_model_info) get_model_info = nullptr;
};

class NrtLibrary {
 public:
  // The names tried, in order, when no path is given.
  static constexpr absl::string_view kDefaultNames[] = {"libnrt.so.1", "libnrt.so"};

  // Opens `path` (or, when empty, the first of kDefaultNames that dlopen finds) and resolves
  // every required symbol. NOT_FOUND when the library cannot be opened, FAILED_PRECONDITION when
  // it lacks a required symbol; both messages name the library and what is missing.
  static absl::StatusOr<std::unique_ptr<NrtLibrary>> Open(absl::string_view path);

  NrtLibrary(const NrtLibrary&) = delete;
  NrtLibrary& operator=(const NrtLibrary&) = delete;
  ~NrtLibrary();  // dlclose

  const NrtApi& api() const { return api_; }
  // The path or name that was opened, as given to dlopen.
  const std::string& path() const { return path_; }

 private:
  NrtLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  absl::Status ResolveSymbols();

  void* handle_;
  std::string path_;
  NrtApi api_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_NRT_NRT_LIBRARY_H_
