#include "core/serving/request/request_validation.h"

#include <algorithm>

#include "absl/status/statusor.h"
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

// `tensor`'s shape in a request of `rows` rows: its leading dimension times `rows` (a model
// without a batch dimension has rows 1, and its tensors as they are). For messages.
std::vector<uint32_t> ShapeOfRows(const TensorSpec& tensor, uint32_t rows) {
  std::vector<uint32_t> shape = tensor.shape;
  if (!shape.empty()) shape[0] *= rows;
  return shape;
}

bool ShapeMatches(absl::Span<const uint32_t> given, const TensorSpec& tensor, uint32_t rows) {
  if (given.size() != tensor.shape.size()) return false;
  if (given.empty()) return true;
  return uint64_t{given[0]} == uint64_t{tensor.shape[0]} * rows &&
         std::equal(given.begin() + 1, given.end(), tensor.shape.begin() + 1);
}

std::string Describe(const TensorSpec& tensor, uint32_t rows, const FieldNaming& naming) {
  return absl::StrCat("shape ", ShapeToString(ShapeOfRows(tensor, rows)), " ",
                      naming.dtype(tensor.dtype));
}

// "int64_data (16 values) or raw_data (128 bytes)": what a tensor may be sent as.
std::string AcceptedForms(const TensorSpec& tensor, uint32_t rows, const FieldNaming& naming) {
  const std::string raw = absl::StrCat(naming.field(ValueField::kRaw), " (",
                                       uint64_t{tensor.byte_size} * rows, " bytes)");
  const ValueField typed = TypedFieldOf(tensor.dtype);
  if (typed == ValueField::kRaw) return raw;
  return absl::StrCat(naming.field(typed), " (", ElementCount(tensor.shape) * rows, " values) or ",
                      raw);
}

// What carried `given`'s values, for an error message: its field, or its shared-memory region.
std::string GivenFieldName(const GivenInput& given, const FieldNaming& naming) {
  if (!given.shared_memory_region.empty()) {
    return absl::StrCat("shared memory region '", given.shared_memory_region, "'");
  }
  return naming.field(given.field);
}

// Binds `given` to `spec` at `rows` rows (1 for a model without a batch dimension).
absl::Status BindOne(absl::string_view model, const TensorSpec& spec, uint32_t rows,
                     const GivenInput& given, absl::Span<const uint8_t>& bytes,
                     std::vector<uint8_t>& converted, const FieldNaming& naming) {
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
  if (!given.shape.empty() && !ShapeMatches(given.shape, spec, rows)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": expected shape ", ShapeToString(ShapeOfRows(spec, rows)), ", got ",
                     ShapeToString({given.shape.data(), given.shape.size()})));
  }
  const uint64_t byte_size = uint64_t{spec.byte_size} * rows;
  if (given.field == ValueField::kNone) {
    if (byte_size == 0) {
      bytes = {};
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(absl::StrCat(where, " (", Describe(spec, rows, naming),
                                                   "): carries no values; send ",
                                                   AcceptedForms(spec, rows, naming)));
  }
  if (!FieldCarries(given.field, spec.dtype)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " is ", dtype, ": ", naming.field(given.field),
                     " cannot carry it; send ", AcceptedForms(spec, rows, naming)));
  }
  const auto* given_bytes = static_cast<const uint8_t*>(given.values);
  if (given.field == ValueField::kRaw) {
    if (given.count != byte_size) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": expected ", byte_size, " bytes of ", GivenFieldName(given, naming),
                       " (", Describe(spec, rows, naming), "), got ", given.count, " bytes"));
    }
    bytes = absl::MakeConstSpan(given_bytes, given.count);
    return absl::OkStatus();
  }
  const uint64_t elements = ElementCount(spec.shape) * rows;
  if (given.count != elements) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": expected ", elements, " ", dtype, " values in ", naming.field(given.field),
        " (shape ", ShapeToString(ShapeOfRows(spec, rows)), "), got ", given.count));
  }
  // A tensor of a known dtype has byte_size == elements * element size (the binding makes a
  // tensor whose reported size disagrees one of unknown dtype, which only raw_data carries).
  if (FieldIsElementLayout(given.field, spec.dtype)) {
    bytes = absl::MakeConstSpan(given_bytes, byte_size);
    return absl::OkStatus();
  }
  converted.resize(byte_size);
  if (std::optional<OutOfRangeValue> bad =
          NarrowToElements(spec.dtype, given.values, given.count, absl::MakeSpan(converted))) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, " is ", dtype, ": ", naming.field(given.field), "[", bad->index,
        "] = ", bad->value, " is outside its range [", bad->min, ", ", bad->max, "]"));
  }
  bytes = absl::MakeConstSpan(converted);
  return absl::OkStatus();
}

// The rows `given` carries of a batched model's input `spec` (a row spec: leading dimension 1):
// its leading dimension, or, when it gives no shape, how many rows its values make. Checks
// them against 1..max_rows. 0 when it carries neither.
absl::StatusOr<uint32_t> RowsGiven(absl::string_view model, const TensorSpec& spec,
                                   const GivenInput& given, uint32_t max_rows,
                                   const FieldNaming& naming) {
  const std::string where = absl::StrCat("model '", model, "' input '", spec.name, "'");
  uint64_t rows = 0;
  if (!given.shape.empty()) {
    rows = given.shape[0];
  } else if (given.field != ValueField::kNone) {
    const uint64_t per_row =
        given.field == ValueField::kRaw ? spec.byte_size : ElementCount(spec.shape);
    if (per_row == 0 || given.count % per_row != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": ", given.count, given.field == ValueField::kRaw ? " bytes" : " values", " of ",
          GivenFieldName(given, naming), " are not a whole number of rows of ", per_row, " (shape ",
          ShapeToString(spec.shape), " per row); give the input's shape"));
    }
    rows = given.count / per_row;
  } else {
    return uint32_t{0};  // no shape, no values: BindOne says what it lacks
  }
  if (rows == 0 || rows > max_rows) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", rows, " rows, but the model takes 1 to ", max_rows,
                     " rows per request (max_batch_size ", max_rows, ")"));
  }
  return static_cast<uint32_t>(rows);
}

}  // namespace

const FieldNaming& NativeFieldNaming() {
  static constexpr FieldNaming kNative{&NativeFieldName, &NativeDtypeName};
  return kNative;
}

absl::Status MatchInputs(absl::string_view model, const std::vector<TensorSpec>& inputs,
                         absl::Span<const GivenInput> given,
                         absl::Span<absl::Span<const uint8_t>> ordered,
                         absl::Span<std::vector<uint8_t>> converted, const FieldNaming& naming,
                         uint32_t max_rows, uint32_t* rows) {
  uint32_t request_rows = 1;
  const GivenInput* first_with_rows = nullptr;
  if (rows != nullptr) *rows = 1;
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
    if (max_rows > 0) {
      absl::StatusOr<uint32_t> input_rows =
          RowsGiven(model, inputs[index], input, max_rows, naming);
      if (!input_rows.ok()) return input_rows.status();
      if (*input_rows == 0) {
        // Nothing to tell the rows by: bound at the rows the others give (and refused there).
      } else if (first_with_rows == nullptr) {
        first_with_rows = &input;
        request_rows = *input_rows;
      } else if (*input_rows != request_rows) {
        return absl::InvalidArgumentError(
            absl::StrCat("model '", model, "' input '", input.name, "' has ", *input_rows,
                         " rows, but input '", first_with_rows->name, "' has ", request_rows,
                         ": the leading dimension of every input is the request's batch size"));
      }
    }
    if (absl::Status status = BindOne(model, inputs[index], request_rows, input, ordered[index],
                                      converted[index], naming);
        !status.ok()) {
      return status;
    }
  }
  for (size_t index = 0; index < inputs.size(); ++index) {
    if (!seen[index]) {
      return absl::InvalidArgumentError(
          absl::StrCat("model '", model, "': missing input '", inputs[index].name, "' (",
                       Describe(inputs[index], request_rows, naming), ")"));
    }
  }
  if (rows != nullptr) *rows = request_rows;
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
