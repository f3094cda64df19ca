#include "client/neuronctl/random_inputs.h"

#include <bit>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/dtype.h"
#include "base/float_formats.h"
#include "client/lib/element_bytes.h"
#include "client/neuronctl/flag_values.h"
#include "client/neuronctl/model_status_text.h"

namespace neuronserve::neuronctl {
namespace {

using client::AppendLittleEndian;

// One request's input larger than this (4 GiB of float32) cannot be sent over gRPC anyway.
constexpr uint64_t kMaxElements = uint64_t{1} << 30;

absl::StatusOr<uint64_t> ElementsOf(const v1::ModelStatus& model, const v1::TensorInfo& input) {
  uint64_t elements = 1;
  for (uint32_t dimension : input.shape()) {
    elements *= dimension;
    if (elements > kMaxElements) {
      return absl::FailedPreconditionError(
          absl::StrCat("input '", input.name(), "' of model '", model.name(), "' has shape ",
                       ShapeText(input.shape()), ", more than one request can carry"));
    }
  }
  return elements;
}

// The largest value of an integer dtype of `size` bytes.
uint64_t IntegerMax(DataType type, size_t size) {
  const bool is_signed = DataTypeNumberKind(type) == NumberKind::kSigned;
  const unsigned bits = 8 * static_cast<unsigned>(size) - (is_signed ? 1 : 0);
  return bits >= 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
}

}  // namespace

absl::StatusOr<uint64_t> GetRandomMax(const ParsedArgs& args) {
  return GetPositiveFlag(args, kRandomMaxFlag.name);
}

absl::StatusOr<std::vector<float>> RandomInputs::ValuesFor(const v1::ModelStatus& model,
                                                           const v1::TensorInfo& input) {
  if (input.dtype() != "float32") {
    return absl::FailedPreconditionError(absl::StrCat("input '", input.name(), "' of model '",
                                                      model.name(), "' is ", input.dtype(),
                                                      ", not float32"));
  }
  absl::StatusOr<uint64_t> elements = ElementsOf(model, input);
  if (!elements.ok()) return elements.status();
  std::vector<float> values(*elements);
  for (float& value : values) value = uniform_(engine_);
  return values;
}

absl::StatusOr<RandomTensor> RandomInputs::TensorFor(const v1::ModelStatus& model,
                                                     const v1::TensorInfo& input) {
  RandomTensor tensor{input.dtype(), {}, {}};
  const std::optional<DataType> type = DataTypeFromName(input.dtype());
  if (!type) {
    return absl::FailedPreconditionError(absl::StrCat(
        "input '", input.name(), "' of model '", model.name(), "' is of dtype '", input.dtype(),
        "', whose elements cannot be made up; give it with --input (its bytes as a '|u1' .npy)"));
  }
  if (*type == DataType::kFloat32) {
    absl::StatusOr<std::vector<float>> values = ValuesFor(model, input);
    if (!values.ok()) return values.status();
    tensor.values = *std::move(values);
    return tensor;
  }
  absl::StatusOr<uint64_t> elements = ElementsOf(model, input);
  if (!elements.ok()) return elements.status();
  const size_t size = DataTypeSize(*type);
  tensor.bytes.reserve(*elements * size);
  if (*type == DataType::kFp32R) {
    for (uint64_t i = 0; i < *elements; ++i) {
      AppendLittleEndian(std::bit_cast<uint32_t>(uniform_(engine_)), 4, tensor.bytes);
    }
  } else if (std::optional<neuronserve::FloatFormat> format = DataTypeNarrowFloatFormat(*type)) {
    for (uint64_t i = 0; i < *elements; ++i) {
      AppendLittleEndian(neuronserve::EncodeFloat(*format, uniform_(engine_)), size, tensor.bytes);
    }
  } else {
    const uint64_t largest = IntegerMax(*type, size);
    if (integer_max_ == 0 || integer_max_ - 1 > largest) {
      return absl::FailedPreconditionError(
          absl::StrCat("--random-max=", integer_max_, " does not fit input '", input.name(),
                       "' of model '", model.name(), "', which is ", input.dtype(), " (at most ",
                       largest, "); give at most ", largest == UINT64_MAX ? largest : largest + 1));
    }
    std::uniform_int_distribution<uint64_t> uniform(0, integer_max_ - 1);
    for (uint64_t i = 0; i < *elements; ++i)
      AppendLittleEndian(uniform(engine_), size, tensor.bytes);
  }
  return tensor;
}

}  // namespace neuronserve::neuronctl
