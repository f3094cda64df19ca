// NrtRuntime: the process-wide Neuron runtime, initialized (nrt_init) when created and closed
// (nrt_close) when destroyed.
//
// libnrt holds process-global state, so at most one NrtRuntime exists at a time; creating a
// second while one is alive fails. The daemon creates it once at start and destroys it last,
// after every model and tensor made through it is gone.
//
// Thread safety: the object has no mutable state (every method is const), so any thread may
// call it; what must not overlap is the runtime calls themselves. The binding adds no lock of its
// own around libnrt: it would serialize executions on different cores, which is the whole point
// of one worker per core. Which calls the daemon makes at the same time, and why it may:
//
//   Concurrent, by design:
//   - nrt_execute from the core workers (core/serving/execution/core_worker.h): each worker executes the
//     replicas whose core range starts on its core, one job at a time, with nrt_tensor_write
//     before and nrt_tensor_read after on the same thread. Replicas that start on different
//     cores therefore execute at the same time, and where placements overlap (models placed as
//     shared, or the old and new version of a model during a replacement; see
//     core/lifecycle/core_allocator.h) two executions may share a core. Every replica is its own
//     nrt_load, so no nrt_model_t and no tensor is ever used by two threads at once. (The
//     developer guide documents more than this: nrt_execute on one model from several threads,
//     to pipeline host and device work. The daemon does not do that.)
//   - The loader (the model registry's one thread, core/lifecycle/model_registry.h) calls
//     nrt_load, the model queries (core count, nrt_get_model_tensor_info), nrt_tensor_allocate,
//     nrt_allocate_tensor_set, nrt_add_tensor_to_tensor_set and, for a version it retires,
//     nrt_destroy_tensor_set, nrt_tensor_free and nrt_unload, while the workers execute other
//     models, on the same cores or others. It never touches a model a worker may use: a version is detached from the
//     workers and has no request in flight (VersionLoader::Detach) before its handles are freed,
//     and is attached to them only after all its handles exist. Before attaching a batched
//     version it also warms it up: nrt_tensor_write and nrt_execute on that version's own, not
//     yet attached handles, which may share a core with a worker's execution of another model
//     (as two workers' executions may, below).
//   - nrt_get_vnc_memory_stats (MemoryStats) from gRPC handlers (Enumerate) and the gauge
//     refresher (before each /metrics scrape), at any time beside all of the above.
//
//   Serialized:
//   - Loads and unloads among themselves: one at a time on the registry thread (and, at
//     shutdown, on the thread that destroys the registry once that thread has stopped). The
//     allocator also relies on it: a load probes a core, then places the replicas.
//   - nrt_init and nrt_close: Start and the destructor run when no other runtime call can
//     (before the workers and the registry exist, and after they are gone).
//   - nrt_get_version (Start), nrt_get_instance_info and the core counts (EnumerateDevices,
//     core/device): at start only, before the workers and the registry exist.
//
// What the runtime documents: the public headers and the reference this binding was written
// from (nrt-api.md) say nothing about which calls are thread-safe, apart from the developer
// guide's note on nrt_execute above. The daemon therefore assumes what a runtime embedded in
// multi-threaded frameworks must provide: calls on distinct handles (models, tensors, sets) may
// run concurrently, including loads and allocations beside executions, and two executions on
// one core are serialized by the runtime or refused with NRT_EXEC_NC_BUSY (which the workers
// retry once on another replica, core/serving/execution/execution_failure.h); and it never makes two
// calls on the same handle at once, nor frees a handle another thread may use. The simulator
// (sim/) implements that contract, every entry point thread-safe and executions serialized per
// core, so the tests exercise it (under TSAN too).
//
// Ownership: owns the NrtLibrary (dlclose'd after nrt_close). The handles it makes (NrtModel,
// NrtTensor, NrtTensorSet) belong to the caller and point into its function table, so they must
// be destroyed before it.
#ifndef NEURON_SERVE_CORE_NRT_NRT_RUNTIME_H_
#define NEURON_SERVE_CORE_NRT_NRT_RUNTIME_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/dtype.h"
#include "core/nrt/nrt_handles.h"
#include "core/nrt/nrt_library.h"

namespace neuronserve {

struct RuntimeVersion {
  uint64_t major = 0;
  uint64_t minor = 0;
  uint64_t patch = 0;
  uint64_t maintenance = 0;
  std::string detail;
  std::string git_hash;

  std::string ToString() const;  // "2.30.0.0"
};

struct CoreMemoryStats {
  uint64_t bytes_used = 0;
  uint64_t bytes_limit = 0;
};

class NrtRuntime {
 public:
  // nrt_init(NO_FW), then reads the runtime version to pick the dtype numbering.
  static absl::StatusOr<std::unique_ptr<NrtRuntime>> Start(std::unique_ptr<NrtLibrary> library);

  NrtRuntime(const NrtRuntime&) = delete;
  NrtRuntime& operator=(const NrtRuntime&) = delete;
  ~NrtRuntime();  // nrt_close

  const NrtApi& api() const { return library_->api(); }
  const std::string& library_path() const { return library_->path(); }
  const RuntimeVersion& version() const { return version_; }
  DtypeNumbering dtype_numbering() const { return numbering_; }

  // nrt_load on `start_core` (-1: the runtime's choice).
  absl::StatusOr<NrtModel> LoadModel(absl::Span<const uint8_t> neff, int32_t start_core) const;
  absl::StatusOr<NrtTensor> AllocateTensor(nrt_tensor_placement_t placement, int core, size_t size,
                                           const std::string& name) const;
  absl::StatusOr<NrtTensorSet> AllocateTensorSet() const;

  // UNIMPLEMENTED when the runtime predates nrt_get_vnc_memory_stats.
  absl::StatusOr<CoreMemoryStats> MemoryStats(uint32_t core) const;

 private:
  NrtRuntime(std::unique_ptr<NrtLibrary> library, RuntimeVersion version);

  std::unique_ptr<NrtLibrary> library_;
  RuntimeVersion version_;
  DtypeNumbering numbering_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_NRT_NRT_RUNTIME_H_
