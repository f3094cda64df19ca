// The C ABI of the Neuron runtime (libnrt), declared from the facts of the public headers
// (runtime 2.30: nrt/nrt.h, nrt/nrt_status.h, nrt/nrt_experimental.h, nrt/nrt_version.h).
//
// Two parties use this file and nothing else to agree on the ABI:
//   - core/nrt/nrt_library.cc resolves every function below with dlsym into a table of
//     pointers typed from these prototypes (decltype), so a signature drift is a compile error;
//   - sim/ defines every function below, so the simulator implements exactly the ABI the
//     daemon calls.
// Field order, types and enum values must match the real headers exactly; do not add fields.
#ifndef NEURON_SERVE_BASE_NRT_ABI_H_
#define NEURON_SERVE_BASE_NRT_ABI_H_

#include <stddef.h>
#include <stdint.h>

extern "C" {

// Enums are declared with a fixed 32-bit underlying type: that is what a C compiler gives the
// real header's plain enums on every ABI the runtime ships for (x86_64, aarch64).

typedef enum NRT_STATUS : int32_t {
  NRT_SUCCESS = 0,
  NRT_FAILURE = 1,
  NRT_INVALID = 2,
  NRT_INVALID_HANDLE = 3,
  NRT_RESOURCE = 4,
  NRT_TIMEOUT = 5,
  NRT_HW_ERROR = 6,
  NRT_QUEUE_FULL = 7,
  NRT_LOAD_NOT_ENOUGH_NC = 9,
  NRT_UNSUPPORTED_NEFF_VERSION = 10,
  NRT_FAIL_HOST_MEM_ALLOC = 11,
  NRT_UNINITIALIZED = 13,
  NRT_CLOSED = 14,
  NRT_QUEUE_EMPTY = 15,
  NRT_EXEC_UNIT_UNRECOVERABLE = 101,
  NRT_EXEC_BAD_INPUT = 1002,
  NRT_EXEC_COMPLETED_WITH_NUM_ERR = 1003,
  NRT_EXEC_COMPLETED_WITH_ERR = 1004,
  NRT_EXEC_NC_BUSY = 1005,
  NRT_EXEC_OOB = 1006,
  NRT_COLL_PENDING = 1100,
  NRT_EXEC_HW_ERR_COLLECTIVES = 1200,
  NRT_EXEC_HW_ERR_HBM_UE = 1201,
  NRT_EXEC_HW_ERR_NC_UE = 1202,
  NRT_EXEC_HW_ERR_DMA_ABORT = 1203,
  NRT_EXEC_SW_NQ_OVERFLOW = 1204,
  NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE = 1205,
  NRT_NETWORK_PROXY_FAILURE = 1206,
} NRT_STATUS;

typedef enum nrt_framework_type : int32_t {
  NRT_FRAMEWORK_TYPE_INVALID = 0,
  NRT_FRAMEWORK_TYPE_NO_FW = 1,
  NRT_FRAMEWORK_TYPE_TENSORFLOW = 2,
  NRT_FRAMEWORK_TYPE_PYTORCH = 3,
  NRT_FRAMEWORK_TYPE_MXNET = 4,
  NRT_FRAMEWORK_TYPE_PRECHECK = 5,
} nrt_framework_type_t;

typedef enum nrt_tensor_placement : int32_t {
  NRT_TENSOR_PLACEMENT_DEVICE = 0,
  NRT_TENSOR_PLACEMENT_HOST = 1,
  NRT_TENSOR_PLACEMENT_VIRTUAL = 2,
} nrt_tensor_placement_t;

typedef enum nrt_tensor_usage : int32_t {
  NRT_TENSOR_USAGE_INPUT = 0,
  NRT_TENSOR_USAGE_OUTPUT = 1,
} nrt_tensor_usage_t;

// The numbering of nrt_dtype_t changed between runtime versions (see base/dtype.h, which
// holds both tables); the ABI only fixes its width.
typedef uint32_t nrt_dtype_t;

// Values of nrt_instance_info_t::family.
enum : uint32_t {
  NRT_INSTANCE_UNKNOWN = 0,
  NRT_INSTANCE_INF1 = 1,
  NRT_INSTANCE_TRN1 = 2,
  NRT_INSTANCE_TRN1N = 3,
  NRT_INSTANCE_INF2 = 4,
  NRT_INSTANCE_TRN2 = 5,
  NRT_INSTANCE_TRN2N = 6,
  NRT_INSTANCE_INF2E = 7,
  NRT_INSTANCE_TRN2P = 8,
  NRT_INSTANCE_TRN2U = 9,
  NRT_INSTANCE_TRN2E = 10,
  NRT_INSTANCE_TRN2EU = 11,
  NRT_INSTANCE_TRN2AC = 12,
  NRT_INSTANCE_TRN2UAC = 13,
  NRT_INSTANCE_TRN3 = 14,
  NRT_INSTANCE_TRN3PDS98 = 15,
};

// Values of nrt_instance_info_t::size.
enum : uint32_t {
  NRT_INSTANCE_SIZE_1XL = 0,
  NRT_INSTANCE_SIZE_2XL = 1,
  NRT_INSTANCE_SIZE_4XL = 2,
  NRT_INSTANCE_SIZE_6XL = 3,
  NRT_INSTANCE_SIZE_8XL = 4,
  NRT_INSTANCE_SIZE_24XL = 5,
  NRT_INSTANCE_SIZE_32XL = 6,
  NRT_INSTANCE_SIZE_48XL = 7,
  NRT_INSTANCE_SIZE_3XL = 8,
  NRT_INSTANCE_SIZE_UNKNOWN = 9,
};

#define NRT_TENSOR_NAME_MAX 256

typedef struct nrt_model nrt_model_t;
typedef struct nrt_tensor nrt_tensor_t;
typedef void nrt_tensor_set_t;

typedef struct nrt_instance_info {
  uint32_t family;
  uint32_t size;
  char arch_name[16];
  char device_revision[8];
} nrt_instance_info_t;

typedef struct nrt_version {
  uint64_t rt_major;
  uint64_t rt_minor;
  uint64_t rt_patch;
  uint64_t rt_maintenance;
  char rt_detail[128];
  char git_hash[64];
} nrt_version_t;

typedef struct nrt_tensor_info {
  char name[NRT_TENSOR_NAME_MAX];
  nrt_tensor_usage_t usage;
  size_t size;
  nrt_dtype_t dtype;
  uint32_t *shape;
  uint32_t ndim;
} nrt_tensor_info_t;

typedef struct nrt_tensor_info_array {
  uint64_t tensor_count;
  nrt_tensor_info_t tensor_array[];  // flexible array member, as in nrt_experimental.h
} nrt_tensor_info_array_t;

// nrt_experimental.h: "additional fields can be added here in the future"; the caller passes the
// size it knows (info_size_in) and the runtime says how much it wrote (info_size_out).
typedef struct nrt_model_info {
  uint32_t vnc;
} nrt_model_info_t;

typedef struct nrt_vnc_memory_stats {
  size_t bytes_used;
  size_t bytes_limit;
} nrt_vnc_memory_stats_t;

NRT_STATUS nrt_init(nrt_framework_type_t framework, const char *fw_version,
                    const char *fal_version);
void nrt_close(void);

NRT_STATUS nrt_get_version(nrt_version_t *ver, size_t size);
NRT_STATUS nrt_get_instance_info(nrt_instance_info_t *info, size_t instance_info_len);
NRT_STATUS nrt_get_total_nc_count(uint32_t *vnc_count);
NRT_STATUS nrt_get_visible_nc_count(uint32_t *vnc_count);
NRT_STATUS nrt_get_total_vnc_count(uint32_t *vnc_count);
NRT_STATUS nrt_get_visible_vnc_count(uint32_t *vnc_count);

NRT_STATUS nrt_load(const void *neff_bytes, size_t size, int32_t vnc, int32_t vnc_count,
                    nrt_model_t **model);
NRT_STATUS nrt_unload(nrt_model_t *model);
// nrt_get_model_nc_count and its twin nrt_get_model_vnc_count are marked deprecated in the 2.30
// headers, beside nrt_get_model_info: the binding resolves all three optionally.
NRT_STATUS nrt_get_model_nc_count(const nrt_model_t *model, uint32_t *vnc_count);
NRT_STATUS nrt_get_model_vnc_count(const nrt_model_t *model, uint32_t *vnc_count);
NRT_STATUS nrt_get_model_info(const nrt_model_t *model, nrt_model_info_t *info,
                              size_t info_size_in, size_t *info_size_out);
NRT_STATUS nrt_get_model_tensor_info(nrt_model_t *model, nrt_tensor_info_array_t **tensor_info);
NRT_STATUS nrt_free_model_tensor_info(nrt_tensor_info_array_t *tensor_info);

NRT_STATUS nrt_tensor_allocate(nrt_tensor_placement_t placement, int vnc, size_t size,
                               const char *name, nrt_tensor_t **tensor);
void nrt_tensor_free(nrt_tensor_t **tensor);
NRT_STATUS nrt_tensor_read(const nrt_tensor_t *tensor, void *buf, size_t offset, size_t size);
NRT_STATUS nrt_tensor_write(nrt_tensor_t *tensor, const void *buf, size_t offset, size_t size);
NRT_STATUS nrt_tensor_memset(nrt_tensor_t *tensor, uint64_t offset, int value, size_t size);
size_t nrt_tensor_get_size(const nrt_tensor_t *tensor);

NRT_STATUS nrt_allocate_tensor_set(nrt_tensor_set_t **result);
void nrt_destroy_tensor_set(nrt_tensor_set_t **tensor_set);
NRT_STATUS nrt_add_tensor_to_tensor_set(nrt_tensor_set_t *tensor_set, const char *tensor_name,
                                        nrt_tensor_t *tensor);
NRT_STATUS nrt_get_tensor_from_tensor_set(nrt_tensor_set_t *tensor_set, const char *tensor_name,
                                          nrt_tensor_t **tensor);

NRT_STATUS nrt_execute(nrt_model_t *model, const nrt_tensor_set_t *input_set,
                       nrt_tensor_set_t *output_set);

// Newer runtimes only: the binding resolves these optionally.
NRT_STATUS nrt_get_vnc_memory_stats(uint32_t vnc, nrt_vnc_memory_stats_t *stats,
                                    size_t stats_size_in, size_t *stats_size_out);
const char *nrt_get_status_as_str(NRT_STATUS status);

}  // extern "C"

static_assert(sizeof(nrt_instance_info_t) == 32, "nrt_instance_info_t layout");
static_assert(sizeof(nrt_version_t) == 4 * 8 + 128 + 64, "nrt_version_t layout");
static_assert(sizeof(nrt_model_info_t) == 4, "nrt_model_info_t layout");
static_assert(sizeof(NRT_STATUS) == 4, "NRT_STATUS is a 32-bit C enum");

#endif  // NEURON_SERVE_BASE_NRT_ABI_H_
