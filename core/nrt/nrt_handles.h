// RAII owners of the runtime's handles: a loaded model, a tensor, a tensor set.
//
// Each is move-only and releases its handle exactly once (nrt_unload, nrt_tensor_free,
// nrt_destroy_tensor_set). They hold a pointer to the runtime's function table: the NrtRuntime
// that made them must outlive them, which the daemon guarantees by unloading every model before
// it closes the runtime.
#ifndef NEURON_SERVE_CORE_NRT_NRT_HANDLES_H_
#define NEURON_SERVE_CORE_NRT_NRT_HANDLES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/nrt/dtype.h"
#include "core/nrt/nrt_library.h"

namespace neuronserve {

enum class TensorUsage { kInput, kOutput };

// A model's input or output as the runtime describes it.
struct TensorSpec {
  std::string name;
  TensorUsage usage = TensorUsage::kInput;
  DataType dtype = DataType::kUnknown;
  std::vector<uint32_t> shape;
  size_t byte_size = 0;

  uint64_t ElementCount() const;
};

// Decodes one entry of nrt_get_model_tensor_info in the runtime's dtype numbering, checking the
// dtype against the byte size: a dtype whose element size does not explain the byte size is an
// error naming the tensor, never a guess.
absl::StatusOr<TensorSpec> TensorSpecFromInfo(const nrt_tensor_info_t& info,
                                              DtypeNumbering numbering);

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

  absl::StatusOr<uint32_t> CoreCount() const;
  // Inputs and outputs from nrt_get_model_tensor_info, decoded by TensorSpecFromInfo.
  absl::StatusOr<std::vector<TensorSpec>> Tensors() const;
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
