// A stand-in runtime library that exports every libnrt function the daemon needs except
// nrt_execute, so the binding's "missing symbol" error can be tested against a real dlopen.
// Every function fails: nothing should get far enough to call one.
#include "base/nrt_abi.h"

extern "C" {

NRT_STATUS nrt_init(nrt_framework_type_t, const char*, const char*) { return NRT_FAILURE; }
void nrt_close(void) {}
NRT_STATUS nrt_get_version(nrt_version_t*, size_t) { return NRT_FAILURE; }
NRT_STATUS nrt_get_instance_info(nrt_instance_info_t*, size_t) { return NRT_FAILURE; }
// Only the newer names of the core counts: the binding must accept them.
NRT_STATUS nrt_get_total_vnc_count(uint32_t*) { return NRT_FAILURE; }
NRT_STATUS nrt_get_visible_vnc_count(uint32_t*) { return NRT_FAILURE; }
NRT_STATUS nrt_load(const void*, size_t, int32_t, int32_t, nrt_model_t**) { return NRT_FAILURE; }
NRT_STATUS nrt_unload(nrt_model_t*) { return NRT_FAILURE; }
NRT_STATUS nrt_get_model_nc_count(const nrt_model_t*, uint32_t*) { return NRT_FAILURE; }
NRT_STATUS nrt_get_model_tensor_info(nrt_model_t*, nrt_tensor_info_array_t**) {
  return NRT_FAILURE;
}
NRT_STATUS nrt_free_model_tensor_info(nrt_tensor_info_array_t*) { return NRT_FAILURE; }
NRT_STATUS nrt_tensor_allocate(nrt_tensor_placement_t, int, size_t, const char*, nrt_tensor_t**) {
  return NRT_FAILURE;
}
void nrt_tensor_free(nrt_tensor_t**) {}
NRT_STATUS nrt_tensor_read(const nrt_tensor_t*, void*, size_t, size_t) { return NRT_FAILURE; }
NRT_STATUS nrt_tensor_write(nrt_tensor_t*, const void*, size_t, size_t) { return NRT_FAILURE; }
NRT_STATUS nrt_tensor_memset(nrt_tensor_t*, uint64_t, int, size_t) { return NRT_FAILURE; }
size_t nrt_tensor_get_size(const nrt_tensor_t*) { return 0; }
NRT_STATUS nrt_allocate_tensor_set(nrt_tensor_set_t**) { return NRT_FAILURE; }
void nrt_destroy_tensor_set(nrt_tensor_set_t**) {}
NRT_STATUS nrt_add_tensor_to_tensor_set(nrt_tensor_set_t*, const char*, nrt_tensor_t*) {
  return NRT_FAILURE;
}
NRT_STATUS nrt_get_tensor_from_tensor_set(nrt_tensor_set_t*, const char*, nrt_tensor_t**) {
  return NRT_FAILURE;
}

}  // extern "C"
