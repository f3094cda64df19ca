// libnrtsim.so as the daemon sees it: opened with dlopen, every function resolved with dlsym
// into a pointer typed from the prototype in base/nrt_abi.h (so a signature drift between
// the header and what the tests call is a compile error).
#ifndef NEURON_SERVE_TESTS_SIM_NRT_API_H_
#define NEURON_SERVE_TESTS_SIM_NRT_API_H_

#include "base/nrt_abi.h"
#include "sim/nrtsim_stats.h"

namespace nrtsim_test {

#define NRTSIM_TEST_FOR_EACH_FUNCTION(X) \
  X(nrt_init)                            \
  X(nrt_close)                           \
  X(nrt_get_version)                     \
  X(nrt_get_instance_info)               \
  X(nrt_get_total_nc_count)              \
  X(nrt_get_visible_nc_count)            \
  X(nrt_get_total_vnc_count)             \
  X(nrt_get_visible_vnc_count)           \
  X(nrt_load)                            \
  X(nrt_unload)                          \
  X(nrt_get_model_nc_count)              \
  X(nrt_get_model_vnc_count)             \
  X(nrt_get_model_info)                  \
  X(nrt_get_model_tensor_info)           \
  X(nrt_free_model_tensor_info)          \
  X(nrt_tensor_allocate)                 \
  X(nrt_tensor_free)                     \
  X(nrt_tensor_read)                     \
  X(nrt_tensor_write)                    \
  X(nrt_tensor_memset)                   \
  X(nrt_tensor_get_size)                 \
  X(nrt_allocate_tensor_set)             \
  X(nrt_destroy_tensor_set)              \
  X(nrt_add_tensor_to_tensor_set)        \
  X(nrt_get_tensor_from_tensor_set)      \
  X(nrt_execute)                         \
  X(nrt_get_vnc_memory_stats)            \
  X(nrt_get_status_as_str)               \
  X(nrtsim_get_stats)                    \
  X(nrtsim_reset_peak)                   \
  X(nrtsim_get_core_busy)

struct NrtApi {
  void* library = nullptr;
#define NRTSIM_TEST_DECLARE_POINTER(name) decltype(&::name) name = nullptr;
  NRTSIM_TEST_FOR_EACH_FUNCTION(NRTSIM_TEST_DECLARE_POINTER)
#undef NRTSIM_TEST_DECLARE_POINTER
};

// Opens NRTSIM_LIBRARY_PATH once per process and resolves every function; aborts the test
// program with a message if the library or a symbol is missing.
const NrtApi& Api();

}  // namespace nrtsim_test

#endif  // NEURON_SERVE_TESTS_SIM_NRT_API_H_
