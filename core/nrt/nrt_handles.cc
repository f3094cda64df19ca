#include "core/nrt/nrt_handles.h"

#include <cstddef>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/shape.h"
#include "core/nrt/nrt_status.h"
#include "spdlog/spdlog.h"
#include "util/fmt_absl.h"

namespace neuronserve {

void LogNrtFreeFailure(absl::string_view operation, NRT_STATUS status) {
  if (absl::Status error = NrtError(operation, status); !error.ok()) {
    spdlog::warn("{}", error.message());
  }
}

// ---- NrtTensor ----

size_t NrtTensor::size() const { return handle_ == nullptr ? 0 : api().tensor_get_size(get()); }

absl::Status NrtTensor::Write(absl::Span<const uint8_t> bytes, size_t offset) {
  return NrtError("nrt_tensor_write",
                  api().tensor_write(get(), bytes.data(), offset, bytes.size()));
}

absl::Status NrtTensor::Read(absl::Span<uint8_t> bytes, size_t offset) const {
  return NrtError("nrt_tensor_read", api().tensor_read(get(), bytes.data(), offset, bytes.size()));
}

absl::Status NrtTensor::Memset(int value, size_t offset, size_t size) {
  return NrtError("nrt_tensor_memset", api().tensor_memset(get(), offset, value, size));
}

// ---- NrtTensorSet ----

absl::Status NrtTensorSet::Add(const std::string& name, const NrtTensor& tensor) {
  return NrtError("nrt_add_tensor_to_tensor_set",
                  api().add_tensor_to_tensor_set(get(), name.c_str(), tensor.get()),
                  absl::StrCat("tensor '", name, "'"));
}

// ---- NrtModel ----

absl::Status NrtModel::Unload() {
  if (handle_ == nullptr) return absl::OkStatus();
  // Released first: the handle is the runtime's to dispose of even when the call fails.
  return NrtError("nrt_unload", api().unload(handle_.release()));
}

absl::StatusOr<std::optional<ReportedCoreCount>> NrtModel::CoreCount() const {
  if (api().get_model_nc_count != nullptr) {
    uint32_t count = 0;
    if (absl::Status status =
            NrtError(api().model_nc_count_symbol, api().get_model_nc_count(get(), &count));
        !status.ok()) {
      return status;
    }
    return ReportedCoreCount{count, api().model_nc_count_symbol};
  }
  if (api().get_model_info != nullptr) {
    nrt_model_info_t info{};
    size_t written = 0;
    if (absl::Status status = NrtError("nrt_get_model_info",
                                       api().get_model_info(get(), &info, sizeof(info), &written));
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
          NrtError("nrt_get_model_tensor_info", api().get_model_tensor_info(get(), &infos));
      !status.ok()) {
    return status;
  }
  std::vector<TensorSpec> specs;
  std::string note;
  for (uint64_t i = 0; i < infos->tensor_count; ++i) {
    specs.push_back(TensorSpecFromInfo(infos->tensor_array[i], numbering_, &note));
    if (!note.empty() && notes != nullptr) notes->push_back(note);
  }
  api().free_model_tensor_info(infos);
  return specs;
}

absl::Status NrtModel::Execute(const NrtTensorSet& inputs, NrtTensorSet& outputs) const {
  return NrtError("nrt_execute", api().execute(get(), inputs.get(), outputs.get()));
}

}  // namespace neuronserve
