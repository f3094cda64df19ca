// RAII owners of the runtime's handles: a loaded model, a tensor, a tensor set.
//
// Each is move-only and releases its handle exactly once (nrt_unload, nrt_tensor_free,
// nrt_destroy_tensor_set). They hold a pointer to the runtime's function table: the NrtRuntime
// that made them must outlive them, which the daemon guarantees by unloading every model before
// it closes the runtime.
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
  std::string source;  // "nrt_get_model_nc_count", "nrt_get_model_vnc_count" or "nrt_get_model_info"
};

class NrtTensor {
 public:
  NrtTensor() = default;
  NrtTensor(const NrtApi* api, nrt_tensor_t* handle) : api_(api), handle_(handle) {}
  NrtTensor(NrtTensor&& other) noexcept;
  NrtTensor& operator=(NrtTensor&& other) noexcept;
  ~NrtTensor() { Reset(); }

  nrt_tensor_t* get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }
  size_t size() const;

  absl::Status Write(absl::Span<const uint8_t> bytes, size_t offset = 0);
  absl::Status Read(absl::Span<uint8_t> bytes, size_t offset = 0) const;
  absl::Status Memset(int value, size_t offset, size_t size);
  void Reset();

 private:
  const NrtApi* api_ = nullptr;
  nrt_tensor_t* handle_ = nullptr;
};

class NrtTensorSet {
 public:
  NrtTensorSet() = default;
  NrtTensorSet(const NrtApi* api, nrt_tensor_set_t* handle) : api_(api), handle_(handle) {}
  NrtTensorSet(NrtTensorSet&& other) noexcept;
  NrtTensorSet& operator=(NrtTensorSet&& other) noexcept;
  ~NrtTensorSet() { Reset(); }

  nrt_tensor_set_t* get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

  // The set refers to `tensor` without owning it: the tensor must outlive the set.
  absl::Status Add(const std::string& name, const NrtTensor& tensor);
  void Reset();

 private:
  const NrtApi* api_ = nullptr;
  nrt_tensor_set_t* handle_ = nullptr;
};

class NrtModel {
 public:
  NrtModel() = default;
  NrtModel(const NrtApi* api, nrt_model_t* handle, DtypeNumbering numbering)
      : api_(api), handle_(handle), numbering_(numbering) {}
  NrtModel(NrtModel&& other) noexcept;
  NrtModel& operator=(NrtModel&& other) noexcept;
  ~NrtModel();  // unloads, logging (not throwing) a failure

  nrt_model_t* get() const { return handle_; }
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
  const NrtApi* api_ = nullptr;
  nrt_model_t* handle_ = nullptr;
  DtypeNumbering numbering_ = DtypeNumbering::kRuntime230;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_NRT_NRT_HANDLES_H_
