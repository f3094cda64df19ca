#include "core/nrt/nrt_handles.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/nrt/nrt_status.h"
#include "core/util/fmt_absl.h"
#include "spdlog/spdlog.h"

namespace neuronserve {

uint64_t TensorSpec::ElementCount() const {
  uint64_t count = 1;
  for (uint32_t dim : shape) count *= dim;
  return count;
}

// ---- NrtTensor ----

NrtTensor::NrtTensor(NrtTensor&& other) noexcept
    : api_(other.api_), handle_(std::exchange(other.handle_, nullptr)) {}

NrtTensor& NrtTensor::operator=(NrtTensor&& other) noexcept {
  if (this != &other) {
    Reset();
    api_ = other.api_;
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

void NrtTensor::Reset() {
  if (handle_ != nullptr) api_->tensor_free(&handle_);
  handle_ = nullptr;
}

size_t NrtTensor::size() const { return handle_ == nullptr ? 0 : api_->tensor_get_size(handle_); }

absl::Status NrtTensor::Write(absl::Span<const uint8_t> bytes, size_t offset) {
  return NrtError("nrt_tensor_write",
                  api_->tensor_write(handle_, bytes.data(), offset, bytes.size()));
}

absl::Status NrtTensor::Read(absl::Span<uint8_t> bytes, size_t offset) const {
  return NrtError("nrt_tensor_read",
                  api_->tensor_read(handle_, bytes.data(), offset, bytes.size()));
}

absl::Status NrtTensor::Memset(int value, size_t offset, size_t size) {
  return NrtError("nrt_tensor_memset", api_->tensor_memset(handle_, offset, value, size));
}

// ---- NrtTensorSet ----

NrtTensorSet::NrtTensorSet(NrtTensorSet&& other) noexcept
    : api_(other.api_), handle_(std::exchange(other.handle_, nullptr)) {}

NrtTensorSet& NrtTensorSet::operator=(NrtTensorSet&& other) noexcept {
  if (this != &other) {
    Reset();
    api_ = other.api_;
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

void NrtTensorSet::Reset() {
  if (handle_ != nullptr) api_->destroy_tensor_set(&handle_);
  handle_ = nullptr;
}

absl::Status NrtTensorSet::Add(const std::string& name, const NrtTensor& tensor) {
  return NrtError("nrt_add_tensor_to_tensor_set",
                  api_->add_tensor_to_tensor_set(handle_, name.c_str(), tensor.get()),
                  absl::StrCat("tensor '", name, "'"));
}

// ---- NrtModel ----

NrtModel::NrtModel(NrtModel&& other) noexcept
    : api_(other.api_),
      handle_(std::exchange(other.handle_, nullptr)),
      numbering_(other.numbering_) {}

NrtModel& NrtModel::operator=(NrtModel&& other) noexcept {
  if (this != &other) {
    if (absl::Status status = Unload(); !status.ok()) spdlog::warn("{}", status.message());
    api_ = other.api_;
    handle_ = std::exchange(other.handle_, nullptr);
    numbering_ = other.numbering_;
  }
  return *this;
}

NrtModel::~NrtModel() {
  if (absl::Status status = Unload(); !status.ok()) spdlog::warn("{}", status.message());
}

absl::Status NrtModel::Unload() {
  if (handle_ == nullptr) return absl::OkStatus();
  nrt_model_t* handle = std::exchange(handle_, nullptr);
  return NrtError("nrt_unload", api_->unload(handle));
}

absl::StatusOr<uint32_t> NrtModel::CoreCount() const {
  uint32_t count = 0;
  if (absl::Status status =
          NrtError("nrt_get_model_nc_count", api_->get_model_nc_count(handle_, &count));
      !status.ok()) {
    return status;
  }
  return count;
}

absl::StatusOr<TensorSpec> TensorSpecFromInfo(const nrt_tensor_info_t& info,
                                              DtypeNumbering numbering) {
  TensorSpec spec;
  // The runtime NUL-terminates names; bound the read anyway in case it fills all 256 bytes.
  spec.name.assign(info.name, strnlen(info.name, sizeof(info.name)));
  spec.usage = info.usage == NRT_TENSOR_USAGE_OUTPUT ? TensorUsage::kOutput : TensorUsage::kInput;
  spec.byte_size = info.size;
  spec.shape.assign(info.shape, info.shape + info.ndim);
  std::optional<DataType> dtype = FromNrtDtype(info.dtype, numbering);
  if (!dtype.has_value()) {
    return absl::InternalError(absl::StrCat(
        "tensor '", spec.name, "': the runtime reports dtype ", info.dtype, ", which the ",
        std::string(DtypeNumberingName(numbering)), " dtype numbering does not define"));
  }
  spec.dtype = *dtype;
  const uint64_t expected = spec.ElementCount() * DataTypeSize(spec.dtype);
  if (expected != spec.byte_size) {
    return absl::InternalError(
        absl::StrCat("tensor '", spec.name, "': the runtime reports dtype ", info.dtype, " (",
                     std::string(DataTypeName(spec.dtype)), " in the ",
                     std::string(DtypeNumberingName(numbering)), " numbering) and shape [",
                     absl::StrJoin(spec.shape, ","), "], which make ", expected,
                     " bytes, but a size of ", spec.byte_size,
                     " bytes: the runtime's dtype numbering does not match its reported version"));
  }
  return spec;
}

absl::StatusOr<std::vector<TensorSpec>> NrtModel::Tensors() const {
  nrt_tensor_info_array_t* infos = nullptr;
  if (absl::Status status =
          NrtError("nrt_get_model_tensor_info", api_->get_model_tensor_info(handle_, &infos));
      !status.ok()) {
    return status;
  }
  std::vector<TensorSpec> specs;
  absl::Status decode_status;
  for (uint64_t i = 0; i < infos->tensor_count && decode_status.ok(); ++i) {
    absl::StatusOr<TensorSpec> spec = TensorSpecFromInfo(infos->tensor_array[i], numbering_);
    if (spec.ok()) {
      specs.push_back(*std::move(spec));
    } else {
      decode_status = spec.status();
    }
  }
  api_->free_model_tensor_info(infos);
  if (!decode_status.ok()) return decode_status;
  return specs;
}

absl::Status NrtModel::Execute(const NrtTensorSet& inputs, NrtTensorSet& outputs) const {
  return NrtError("nrt_execute", api_->execute(handle_, inputs.get(), outputs.get()));
}

}  // namespace neuronserve
