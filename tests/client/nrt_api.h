// The simulated runtime libnrtsim.so, opened with dlopen the way the daemon opens libnrt: a
// table of function pointers typed from core/nrt/nrt_abi.h, so a signature drift between the
// ABI header and this test is a compile error.
#ifndef NEURON_SERVE_TESTS_CLIENT_NRT_API_H_
#define NEURON_SERVE_TESTS_CLIENT_NRT_API_H_

#include <memory>
#include <string>

#include "core/nrt/nrt_abi.h"

namespace neuronserve::testing {

struct NrtApi {
  decltype(&::nrt_init) init = nullptr;
  decltype(&::nrt_close) close = nullptr;
  decltype(&::nrt_load) load = nullptr;
  decltype(&::nrt_unload) unload = nullptr;
  decltype(&::nrt_get_model_tensor_info) get_model_tensor_info = nullptr;
  decltype(&::nrt_free_model_tensor_info) free_model_tensor_info = nullptr;
  decltype(&::nrt_tensor_allocate) tensor_allocate = nullptr;
  decltype(&::nrt_tensor_free) tensor_free = nullptr;
  decltype(&::nrt_tensor_read) tensor_read = nullptr;
  decltype(&::nrt_tensor_write) tensor_write = nullptr;
  decltype(&::nrt_allocate_tensor_set) allocate_tensor_set = nullptr;
  decltype(&::nrt_destroy_tensor_set) destroy_tensor_set = nullptr;
  decltype(&::nrt_add_tensor_to_tensor_set) add_tensor_to_tensor_set = nullptr;
  decltype(&::nrt_execute) execute = nullptr;
};

// Owns the dlopen handle; the function table is valid while this lives.
class NrtLibrary {
 public:
  // nullptr, with *error set to dlerror()'s message or the missing symbol, on failure.
  static std::unique_ptr<NrtLibrary> Open(const std::string& path, std::string* error);
  NrtLibrary(const NrtLibrary&) = delete;
  NrtLibrary& operator=(const NrtLibrary&) = delete;
  ~NrtLibrary();

  const NrtApi& api() const { return api_; }

 private:
  explicit NrtLibrary(void* handle) : handle_(handle) {}

  void* handle_;
  NrtApi api_;
};

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_CLIENT_NRT_API_H_
