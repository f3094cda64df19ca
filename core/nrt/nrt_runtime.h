// NrtRuntime: the process-wide Neuron runtime, initialized (nrt_init) when created and closed
// (nrt_close) when destroyed.
//
// libnrt holds process-global state, so at most one NrtRuntime exists at a time; creating a
// second while one is alive fails. The daemon creates it once at start and destroys it last,
// after every model and tensor made through it is gone.
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
