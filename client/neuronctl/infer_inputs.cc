#include "client/neuronctl/infer_inputs.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "client/neuronctl/npy_file.h"
#include "client/neuronctl/random_inputs.h"
#include "client/neuronctl/usage_error.h"

namespace neuronserve::neuronctl {

absl::StatusOr<std::vector<InputSource>> ParseInputFlags(const ParsedArgs& args) {
  std::vector<InputSource> sources;
  for (const std::string& value : args.GetAll("input")) {
    const size_t equals = value.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == value.size()) {
      return UsageError(absl::StrCat("--input: '", value, "' is not NAME=FILE"));
    }
    InputSource source{value.substr(0, equals), value.substr(equals + 1)};
    for (const InputSource& earlier : sources) {
      if (earlier.name == source.name) {
        return UsageError(absl::StrCat("--input: input '", source.name, "' is given twice"));
      }
    }
    sources.push_back(std::move(source));
  }
  return sources;
}

absl::StatusOr<OwnedInput> FromNpy(const InputSource& source) {
  absl::StatusOr<NpyArray> array = ReadNpyFile(source.path);
  if (!array.ok()) return array.status();
  OwnedInput input{source.name,
                   {},
                   {},
                   std::string(DataTypeName(array->dtype)),
                   std::move(array->bytes),
                   source.path,
                   array->descr};
  for (uint64_t dimension : array->shape) {
    if (dimension > UINT32_MAX) {
      return absl::InvalidArgumentError(
          absl::StrCat(source.path, ": dimension ", dimension, " is larger than the API allows"));
    }
    input.shape.push_back(static_cast<uint32_t>(dimension));
  }
  return input;
}

absl::Status MatchModelDtype(const v1::ModelStatus& model, OwnedInput& input) {
  const auto tensor = std::find_if(model.inputs().begin(), model.inputs().end(),
                                   [&](const v1::TensorInfo& t) { return t.name() == input.name; });
  if (tensor == model.inputs().end()) return absl::OkStatus();
  const std::optional<DataType> type = DataTypeFromName(tensor->dtype());
  // A dtype neuron-serve does not know travels as bytes: any '|u1' file, the shape unchecked
  // here (its elements' size is unknown), the daemon checking the byte size.
  const std::string expected = type ? NpyDescrFor(*type).value_or("|u1") : "|u1";
  if (input.descr != expected) {
    std::string why = absl::StrCat(
        input.path, ": input '", input.name, "' of model '", model.name(), "' is ", tensor->dtype(),
        " ('", expected, "'), but the file holds ", input.dtype, " ('", input.descr, "')");
    if (type == DataType::kBFloat16) {
      absl::StrAppend(&why,
                      "; numpy has no bfloat16, so give its 16-bit patterns as '<u2' "
                      "(e.g. array.view(numpy.uint16) of an ml_dtypes.bfloat16 array)");
    }
    return absl::FailedPreconditionError(why);
  }
  if (!type) {
    input.dtype.clear();
    input.shape.clear();
  } else {
    input.dtype = tensor->dtype();
  }
  return absl::OkStatus();
}

absl::Status AddRandomInputs(const v1::ModelStatus& model, uint64_t seed, uint64_t random_max,
                             std::vector<OwnedInput>& inputs) {
  RandomInputs random(seed, random_max);
  for (const v1::TensorInfo& tensor : model.inputs()) {
    const bool given = std::any_of(inputs.begin(), inputs.end(), [&](const OwnedInput& input) {
      return input.name == tensor.name();
    });
    if (given) continue;
    absl::StatusOr<RandomTensor> made = random.TensorFor(model, tensor);
    if (!made.ok()) return made.status();
    inputs.push_back({tensor.name(),
                      {tensor.shape().begin(), tensor.shape().end()},
                      std::move(made->values),
                      made->dtype,
                      std::move(made->bytes),
                      /*path=*/"",
                      /*descr=*/""});
  }
  return absl::OkStatus();
}

}  // namespace neuronserve::neuronctl
