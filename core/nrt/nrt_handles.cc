#include "core/nrt/nrt_handles.h"

#include <cstddef>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/nrt/nrt_status.h"
#include "spdlog/spdlog.h"
#include "util/fmt_absl.h"
#include "base/shape.h"

namespace neuronserve {

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

absl::StatusOr<std::optional<ReportedCoreCount>> NrtModel::CoreCount() const {
  if (api_->get_model_nc_count != nullptr) {
    uint32_t count = 0;
    if (absl::Status status = NrtError(api_->model_nc_count_symbol,
                                       api_->get_model_nc_count(handle_, &count));
        !status.ok()) {
      return status;
    }
    return ReportedCoreCount{count, api_->model_nc_count_symbol};
  }
  if (api_->get_model_info != nullptr) {
    nrt_model_info_t info{};
    size_t written = 0;
    if (absl::Status status = NrtError(
            "nrt_get_model_info", api_->get_model_info(handle_, &info, sizeof(info), &written));
        !status.ok()) {
      return status;
    }
    constexpr size_t kVncEnd = offsetof(nrt_model_info_t, vnc) + sizeof(info.vnc);
    if (written >= kVncEnd && info.vnc > 0) {
      return ReportedCoreCount{info.vnc, "nrt_get_model_info"};
    }
  }
  return std::nullopt;
}

namespace {

std::string DescribeReportedDtype(nrt_dtype_t dtype, std::optional<DataType> decoded,
                                  DtypeNumbering numbering) {
  if (dtype == 0) return "dtype 0 (void)";
  if (!decoded.has_value()) {
    return absl::StrCat("dtype ", dtype, ", which the ", std::string(DtypeNumberingName(numbering)),
                        " numbering does not define");
  }
  return absl::StrCat("dtype ", dtype, " (", std::string(DataTypeName(*decoded)), " in the ",
                      std::string(DtypeNumberingName(numbering)), " numbering)");
}

}  // namespace

TensorSpec TensorSpecFromInfo(const nrt_tensor_info_t& info, DtypeNumbering numbering,
                              std::string* note) {
  TensorSpec spec;
  // The runtime NUL-terminates names; bound the read anyway in case it fills all 256 bytes.
  spec.name.assign(info.name, strnlen(info.name, sizeof(info.name)));
  spec.usage = info.usage == NRT_TENSOR_USAGE_OUTPUT ? TensorUsage::kOutput : TensorUsage::kInput;
  spec.byte_size = info.size;
  spec.shape.assign(info.shape, info.shape + info.ndim);
  if (note != nullptr) note->clear();
  const std::optional<DataType> dtype = FromNrtDtype(info.dtype, numbering);
  // Checked: the shape is the runtime's report, and a known dtype makes every later
  // ElementCount(spec.shape) (unchecked) trust it.
  const std::optional<uint64_t> elements = CheckedElementCount(spec.shape);
  if (dtype.has_value() && *dtype != DataType::kUnknown && elements.has_value() &&
      *elements * DataTypeSize(*dtype) == spec.byte_size) {
    spec.dtype = *dtype;
    return spec;
  }
  spec.dtype = DataType::kUnknown;
  if (note == nullptr) return spec;
  std::string what = DescribeReportedDtype(info.dtype, dtype, numbering);
  if (dtype.has_value() && *dtype != DataType::kUnknown) {
    *note = absl::StrCat("tensor '", spec.name, "': the runtime reports ", what, " and shape ",
                         ShapeToString(spec.shape), ", which make ",
                         ElementCount(spec.shape) * DataTypeSize(*dtype), " bytes, but a size of ",
                         spec.byte_size, " bytes");
  } else {
    *note = absl::StrCat("tensor '", spec.name, "': the runtime reports ", what, ", shape ",
                         ShapeToString(spec.shape), " and ", spec.byte_size, " bytes");
  }
  return spec;
}

absl::StatusOr<std::vector<TensorSpec>> NrtModel::Tensors(std::vector<std::string>* notes) const {
  nrt_tensor_info_array_t* infos = nullptr;
  if (absl::Status status =
          NrtError("nrt_get_model_tensor_info", api_->get_model_tensor_info(handle_, &infos));
      !status.ok()) {
    return status;
  }
  std::vector<TensorSpec> specs;
  std::string note;
  for (uint64_t i = 0; i < infos->tensor_count; ++i) {
    specs.push_back(TensorSpecFromInfo(infos->tensor_array[i], numbering_, &note));
    if (!note.empty() && notes != nullptr) notes->push_back(note);
  }
  api_->free_model_tensor_info(infos);
  return specs;
}

absl::Status NrtModel::Execute(const NrtTensorSet& inputs, NrtTensorSet& outputs) const {
  return NrtError("nrt_execute", api_->execute(handle_, inputs.get(), outputs.get()));
}

}  // namespace neuronserve
