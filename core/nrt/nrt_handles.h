// RAII owners of the runtime's handles: a loaded model, a tensor, a tensor set.
//
// Ownership: each is move-only and releases its handle exactly once (nrt_unload, nrt_tensor_free,
// nrt_destroy_tensor_set), through one NrtHandle (nrt_handle.h). They hold a pointer to the
// runtime's function table: the NrtRuntime that made them must outlive them, which the daemon
// guarantees by unloading every model before it closes the runtime. A tensor set refers to its
// tensors without owning them (the runtime's rule: a tensor must outlive every set it is in), so
// an owner declares the tensors before the sets (core/serving/execution/replica_tensors.h).
//
// Thread safety: an object is used by one thread at a time, and the daemon keeps it so: a
// replica's model and tensors are used by its core's worker thread only, one request at a time
// (Write, Execute, Read), and are made and freed by the loader thread only while no worker can
// reach them (nrt_runtime.h says when, and which runtime calls therefore overlap). The const
// methods do not make concurrent use safe: they are const because they do not change which
// handle is held, not because the runtime allows two calls on one handle at once, which its
// public documentation does not say (except nrt_execute on one model, which the daemon does not
// rely on).
#ifndef NEURON_SERVE_CORE_NRT_NRT_HANDLES_H_
#define NEURON_SERVE_CORE_NRT_NRT_HANDLES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/dtype.h"
#include "base/tensor_signature.h"
#include "core/nrt/nrt_handle.h"
#include "core/nrt/nrt_library.h"

namespace neuronserve {

enum class TensorUsage { kInput, kOutput };

// A model's input or output as the runtime describes it: its signature (name, dtype, shape;
// base/tensor_signature.h, shared with the simulator's model format) and what the runtime adds.
// A spec of a known dtype has ElementCount(shape) * DataTypeSize(dtype) == byte_size
// (TensorSpecFromInfo makes it so), so its element count cannot overflow.
struct TensorSpec : TensorSignature {
  TensorUsage usage = TensorUsage::kInput;
  size_t byte_size = 0;
};

// Decodes one entry of nrt_get_model_tensor_info in the runtime's dtype numbering. The runtime's
// `size` is the authority: it is always the spec's byte_size. A dtype the numbering does not
// define (void, 0, included: runtimes report some float outputs so), or one whose element size
// does not explain the size, is not guessed at: the spec gets DataType::kUnknown (served as raw
// bytes only) and `*note`, when given, says what the runtime reported, e.g.
// "tensor 'y': the runtime reports dtype 0 (void) and 16 bytes". `*note` is cleared otherwise.
TensorSpec TensorSpecFromInfo(const nrt_tensor_info_t& info, DtypeNumbering numbering,
                              std::string* note = nullptr);

// A loaded model's core count as the runtime reports it, and the function that reported it.
struct ReportedCoreCount {
  uint32_t count = 0;
  std::string
      source;  // "nrt_get_model_nc_count", "nrt_get_model_vnc_count" or "nrt_get_model_info"
};

class NrtTensor {
 public:
  NrtTensor() = default;
  NrtTensor(const NrtApi* api, nrt_tensor_t* handle) : handle_(handle, {api, "nrt_tensor_free"}) {}

  nrt_tensor_t* get() const { return handle_.get(); }
  explicit operator bool() const { return handle_ != nullptr; }
  size_t size() const;

  absl::Status Write(absl::Span<const uint8_t> bytes, size_t offset = 0);
  absl::Status Read(absl::Span<uint8_t> bytes, size_t offset = 0) const;
  absl::Status Memset(int value, size_t offset, size_t size);
  void Reset() { handle_.reset(); }

 private:
  const NrtApi& api() const { return *handle_.get_deleter().api; }

  NrtHandle<nrt_tensor_t, &NrtApi::tensor_free> handle_;
};

class NrtTensorSet {
 public:
  NrtTensorSet() = default;
  NrtTensorSet(const NrtApi* api, nrt_tensor_set_t* handle)
      : handle_(handle, {api, "nrt_destroy_tensor_set"}) {}

  nrt_tensor_set_t* get() const { return handle_.get(); }
  explicit operator bool() const { return handle_ != nullptr; }

  // The set refers to `tensor` without owning it: the tensor must outlive the set.
  absl::Status Add(const std::string& name, const NrtTensor& tensor);
  void Reset() { handle_.reset(); }

 private:
  const NrtApi& api() const { return *handle_.get_deleter().api; }

  NrtHandle<nrt_tensor_set_t, &NrtApi::destroy_tensor_set> handle_;
};

class NrtModel {
 public:
  NrtModel() = default;
  NrtModel(const NrtApi* api, nrt_model_t* handle, DtypeNumbering numbering)
      : handle_(handle, {api, "nrt_unload"}), numbering_(numbering) {}
  // The destructor and a move assignment unload the model held, logging (not throwing) a
  // failure.

  nrt_model_t* get() const { return handle_.get(); }
  explicit operator bool() const { return handle_ != nullptr; }

  // From the first the runtime exports of nrt_get_model_nc_count, its twin
  // nrt_get_model_vnc_count, and nrt_get_model_info (its `vnc` field). nullopt when the runtime
  // exports none of them, or nrt_get_model_info does not fill `vnc` or reports 0; an error when
  // the function asked fails.
  absl::StatusOr<std::optional<ReportedCoreCount>> CoreCount() const;
  // Inputs and outputs from nrt_get_model_tensor_info, decoded by TensorSpecFromInfo; `notes`
  // (optional) gets one note per tensor whose dtype is served as unknown.
  absl::StatusOr<std::vector<TensorSpec>> Tensors(std::vector<std::string>* notes = nullptr) const;
  absl::Status Execute(const NrtTensorSet& inputs, NrtTensorSet& outputs) const;
  // Unloads now and reports the result; the destructor does the same silently-but-logged.
  absl::Status Unload();

 private:
  const NrtApi& api() const { return *handle_.get_deleter().api; }

  NrtHandle<nrt_model_t, &NrtApi::unload> handle_;
  DtypeNumbering numbering_ = DtypeNumbering::kRuntime230;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_NRT_NRT_HANDLES_H_
