#include "core/serving/request_validation.h"

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

std::string NativeDtypeName(DataType dtype) { return std::string(DataTypeName(dtype)); }
std::string NativeFieldName(ValueField field) { return std::string(ValueFieldName(field)); }

std::string Describe(const TensorSpec& tensor, const FieldNaming& naming) {
  return absl::StrCat("shape ", ShapeToString(tensor.shape), " ", naming.dtype(tensor.dtype));
}

// "int64_data (16 values) or raw_data (128 bytes)": what a tensor may be sent as.
std::string AcceptedForms(const TensorSpec& tensor, const FieldNaming& naming) {
  const std::string raw =
      absl::StrCat(naming.field(ValueField::kRaw), " (", tensor.byte_size, " bytes)");
  const ValueField typed = TypedFieldOf(tensor.dtype);
  if (typed == ValueField::kRaw) return raw;
  return absl::StrCat(naming.field(typed), " (", ElementCount(tensor.shape),
                      " values) or ", raw);
}

absl::Status BindOne(absl::string_view model, const TensorSpec& spec, const GivenInput& given,
                     absl::Span<const uint8_t>& bytes, std::vector<uint8_t>& converted,
                     const FieldNaming& naming) {
  const std::string dtype = naming.dtype(spec.dtype);
  const std::string where = absl::StrCat("model '", model, "' input '", spec.name, "'");
  if (!given.dtype.empty() && given.dtype != dtype) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " is ", dtype, ", but the request says ", given.dtype));
  }
  if (given.second_field != ValueField::kNone) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": carries both ", naming.field(given.field), " and ",
        naming.field(given.second_field), "; send one"));
  }
  if (!given.shape.empty() &&
      !std::equal(given.shape.begin(), given.shape.end(), spec.shape.begin(), spec.shape.end())) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": expected shape ",
                                                   ShapeToString(spec.shape), ", got ",
                                                   ShapeToString({given.shape.data(), given.shape.size()})));
  }
  if (given.field == ValueField::kNone) {
    if (spec.byte_size == 0) {
      bytes = {};
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(absl::StrCat(where, " (", Describe(spec, naming),
                                                   "): carries no values; send ",
                                                   AcceptedForms(spec, naming)));
  }
  if (!FieldCarries(given.field, spec.dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, " is ", dtype, ": ", naming.field(given.field), " cannot carry it; send ",
        AcceptedForms(spec, naming)));
  }
  const auto* given_bytes = static_cast<const uint8_t*>(given.values);
  if (given.field == ValueField::kRaw) {
    if (given.count != spec.byte_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": expected ", spec.byte_size, " bytes of ", naming.field(ValueField::kRaw), " (",
          Describe(spec, naming), "), got ", given.count, " bytes"));
    }
    bytes = absl::MakeConstSpan(given_bytes, given.count);
    return absl::OkStatus();
  }
  const uint64_t elements = ElementCount(spec.shape);
  if (given.count != elements) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": expected ", elements, " ", dtype, " values in ", naming.field(given.field),
        " (shape ", ShapeToString(spec.shape),
        "), got ", given.count));
  }
  // A tensor of a known dtype has byte_size == elements * element size (the binding makes a
  // tensor whose reported size disagrees one of unknown dtype, which only raw_data carries).
  if (FieldIsElementLayout(given.field, spec.dtype)) {
    bytes = absl::MakeConstSpan(given_bytes, spec.byte_size);
    return absl::OkStatus();
  }
  converted.resize(spec.byte_size);
  if (std::optional<OutOfRangeValue> bad =
          NarrowToElements(spec.dtype, given.values, given.count, absl::MakeSpan(converted))) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, " is ", dtype, ": ", naming.field(given.field), "[", bad->index,
        "] = ", bad->value, " is outside its range [", bad->min, ", ", bad->max, "]"));
  }
  bytes = absl::MakeConstSpan(converted);
  return absl::OkStatus();
}

}  // namespace

const FieldNaming& NativeFieldNaming() {
  static constexpr FieldNaming kNative{&NativeFieldName, &NativeDtypeName};
  return kNative;
}

absl::Status MatchInputs(absl::string_view model, const std::vector<TensorSpec>& inputs,
                         absl::Span<const GivenInput> given,
                         absl::Span<absl::Span<const uint8_t>> ordered,
                         absl::Span<std::vector<uint8_t>> converted, const FieldNaming& naming) {
  // Tracks which model inputs were seen; models have a handful of inputs, so a linear search
  // per given input beats building a map on every request.
  std::fill(ordered.begin(), ordered.end(), absl::Span<const uint8_t>());
  std::vector<bool> seen(inputs.size(), false);
  for (const GivenInput& input : given) {
    size_t index = 0;
    while (index < inputs.size() && inputs[index].name != input.name) ++index;
    if (index == inputs.size()) {
      // A request with more inputs than the model has (a hostile one may carry 100,000) says
      // so, so that the sender sees the count is wrong, not only the first name.
      const std::string count =
          given.size() > inputs.size()
              ? absl::StrCat("; the request gives ", given.size(), " inputs for ", inputs.size())
              : "";
      return absl::InvalidArgumentError(
          absl::StrCat("model '", model, "' has no input '", input.name,
                       "' (its inputs: ", NameList(inputs), count, ")"));
    }
    if (seen[index]) {
      return absl::InvalidArgumentError(
          absl::StrCat("model '", model, "' input '", input.name, "' is given more than once"));
    }
    seen[index] = true;
    if (absl::Status status =
            BindOne(model, inputs[index], input, ordered[index], converted[index], naming);
        !status.ok()) {
      return status;
    }
  }
  for (size_t index = 0; index < inputs.size(); ++index) {
    if (!seen[index]) {
      return absl::InvalidArgumentError(absl::StrCat("model '", model, "': missing input '",
                                                     inputs[index].name, "' (",
                                                     Describe(inputs[index], naming), ")"));
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


absl::Status ChooseOutputFields(absl::string_view model, const std::vector<TensorSpec>& outputs,
                                absl::Span<const bool> selected, OutputForm form,
                                absl::Span<ValueField> fields) {
  for (size_t j = 0; j < outputs.size(); ++j) {
    const ValueField typed = TypedFieldOf(outputs[j].dtype);
    switch (form) {
      case OutputForm::kRaw:
        fields[j] = ValueField::kRaw;
        break;
      case OutputForm::kTyped:
        fields[j] = typed;
        break;
      case OutputForm::kFloat:
        if (selected[j] && typed != ValueField::kFloat) {
          return absl::InvalidArgumentError(absl::StrCat(
              "model '", model, "' output '", outputs[j].name, "' is ",
              std::string(DataTypeName(outputs[j].dtype)),
              ": float_data cannot carry it; ask for the typed form (",
              std::string(ValueFieldName(typed)), ") or for raw_data"));
        }
        fields[j] = ValueField::kFloat;
        break;
    }
  }
  return absl::OkStatus();
}

}  // namespace neuronserve
