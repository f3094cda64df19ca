#include "core/infer/request_validation.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace neuronserve {
namespace {

std::string NameList(const std::vector<TensorSpec>& tensors) {
  std::vector<std::string> names;
  names.reserve(tensors.size());
  for (const TensorSpec& tensor : tensors) names.push_back(absl::StrCat("'", tensor.name, "'"));
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

std::string Describe(const TensorSpec& tensor) {
  return absl::StrCat("shape ", FormatTensorShape(tensor.shape), " ", std::string(DataTypeName(tensor.dtype)));
}

absl::Status CheckOne(absl::string_view model, const TensorSpec& spec, const GivenInput& given) {
  const std::string where = absl::StrCat("model '", model, "' input '", spec.name, "'");
  if (given.has_floats && given.has_raw) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": carries both float_data and raw_data; send one"));
  }
  if (!given.shape.empty() &&
      !std::equal(given.shape.begin(), given.shape.end(), spec.shape.begin(), spec.shape.end())) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": expected shape ",
                                                   FormatTensorShape(spec.shape), ", got ",
                                                   FormatTensorShape(given.shape)));
  }
  const uint64_t elements = spec.ElementCount();
  if (given.has_raw) {
    if (given.bytes.size() != spec.byte_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": expected ", spec.byte_size, " bytes of raw_data (", elements,
          " float32), got ", given.bytes.size(), " bytes"));
    }
    return absl::OkStatus();
  }
  if (given.float_count != elements) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": expected ", elements,
                                                   " float_data elements (",
                                                   FormatTensorShape(spec.shape), "), got ",
                                                   given.float_count));
  }
  return absl::OkStatus();
}

}  // namespace

std::string FormatTensorShape(absl::Span<const uint32_t> shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ","), "]");
}

absl::Status CheckServableDtypes(absl::string_view model, const std::vector<TensorSpec>& inputs,
                                 const std::vector<TensorSpec>& outputs) {
  for (const std::vector<TensorSpec>* tensors : {&inputs, &outputs}) {
    for (const TensorSpec& tensor : *tensors) {
      if (tensor.dtype == DataType::kFloat32) continue;
      return absl::FailedPreconditionError(absl::StrCat(
          "model '", model, "' ", tensor.usage == TensorUsage::kInput ? "input" : "output", " '",
          tensor.name, "' is ", std::string(DataTypeName(tensor.dtype)),
          "; neuron-serve serves float32 tensors only"));
    }
  }
  return absl::OkStatus();
}

absl::Status MatchInputs(absl::string_view model, const std::vector<TensorSpec>& inputs,
                         absl::Span<const GivenInput> given,
                         absl::Span<absl::Span<const uint8_t>> ordered) {
  // Tracks which model inputs were seen; models have a handful of inputs, so a linear search
  // per given input beats building a map on every request.
  std::fill(ordered.begin(), ordered.end(), absl::Span<const uint8_t>());
  std::vector<bool> seen(inputs.size(), false);
  for (const GivenInput& input : given) {
    size_t index = 0;
    while (index < inputs.size() && inputs[index].name != input.name) ++index;
    if (index == inputs.size()) {
      return absl::InvalidArgumentError(absl::StrCat("model '", model, "' has no input '",
                                                     input.name, "' (its inputs: ",
                                                     NameList(inputs), ")"));
    }
    if (seen[index]) {
      return absl::InvalidArgumentError(
          absl::StrCat("model '", model, "' input '", input.name, "' is given more than once"));
    }
    seen[index] = true;
    if (absl::Status status = CheckOne(model, inputs[index], input); !status.ok()) return status;
    ordered[index] = input.bytes;
  }
  for (size_t index = 0; index < inputs.size(); ++index) {
    if (!seen[index]) {
      return absl::InvalidArgumentError(absl::StrCat("model '", model, "': missing input '",
                                                     inputs[index].name, "' (",
                                                     Describe(inputs[index]), ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status SelectOutputs(absl::string_view model, const std::vector<TensorSpec>& outputs,
                           absl::Span<const absl::string_view> wanted, absl::Span<bool> selected) {
  std::fill(selected.begin(), selected.end(), wanted.empty());
  for (absl::string_view name : wanted) {
    size_t index = 0;
    while (index < outputs.size() && outputs[index].name != name) ++index;
    if (index == outputs.size()) {
      return absl::InvalidArgumentError(absl::StrCat("model '", model, "' has no output '", name,
                                                     "' (its outputs: ", NameList(outputs), ")"));
    }
    if (selected[index]) {
      return absl::InvalidArgumentError(
          absl::StrCat("model '", model, "': output '", name, "' is asked for more than once"));
    }
    selected[index] = true;
  }
  return absl::OkStatus();
}

}  // namespace neuronserve
