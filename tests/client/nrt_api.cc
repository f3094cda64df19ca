#include "tests/client/nrt_api.h"

#include <dlfcn.h>

namespace neuronserve::testing {
namespace {

template <typename Function>
bool Resolve(void* handle, const char* name, Function* function, std::string* error) {
  *function = reinterpret_cast<Function>(::dlsym(handle, name));
  if (*function == nullptr) *error = std::string("symbol ") + name + " is missing";
  return *function != nullptr;
}

}  // namespace

std::unique_ptr<NrtLibrary> NrtLibrary::Open(const std::string& path, std::string* error) {
  // RTLD_LOCAL: the simulator's symbols must not satisfy anything else in the test binary.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    *error = ::dlerror();
    return nullptr;
  }
  std::unique_ptr<NrtLibrary> library(new NrtLibrary(handle));
  NrtApi& api = library->api_;
  const bool resolved =
      Resolve(handle, "nrt_init", &api.init, error) &&
      Resolve(handle, "nrt_close", &api.close, error) &&
      Resolve(handle, "nrt_load", &api.load, error) &&
      Resolve(handle, "nrt_unload", &api.unload, error) &&
      Resolve(handle, "nrt_get_model_tensor_info", &api.get_model_tensor_info, error) &&
      Resolve(handle, "nrt_free_model_tensor_info", &api.free_model_tensor_info, error) &&
      Resolve(handle, "nrt_tensor_allocate", &api.tensor_allocate, error) &&
      Resolve(handle, "nrt_tensor_free", &api.tensor_free, error) &&
      Resolve(handle, "nrt_tensor_read", &api.tensor_read, error) &&
      Resolve(handle, "nrt_tensor_write", &api.tensor_write, error) &&
      Resolve(handle, "nrt_allocate_tensor_set", &api.allocate_tensor_set, error) &&
      Resolve(handle, "nrt_destroy_tensor_set", &api.destroy_tensor_set, error) &&
      Resolve(handle, "nrt_add_tensor_to_tensor_set", &api.add_tensor_to_tensor_set, error) &&
      Resolve(handle, "nrt_execute", &api.execute, error);
  if (!resolved) return nullptr;
  return library;
}

NrtLibrary::~NrtLibrary() { ::dlclose(handle_); }

}  // namespace neuronserve::testing
