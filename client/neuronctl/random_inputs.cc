#include "client/neuronctl/random_inputs.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace neuronserve::neuronctl {
namespace {

// One request's input larger than this (4 GiB of float32) cannot be sent over gRPC anyway.
constexpr uint64_t kMaxElements = uint64_t{1} << 30;

}  // namespace

absl::StatusOr<std::vector<float>> RandomInputs::ValuesFor(const v1::ModelStatus& model,
                                                           const v1::TensorInfo& input) {
  if (input.dtype() != "float32") {
    return absl::FailedPreconditionError(
        absl::StrCat("input '", input.name(), "' of model '", model.name(), "' is ",
                     input.dtype(), "; only float32 inputs can be made up"));
  }
  uint64_t elements = 1;
  for (uint32_t dimension : input.shape()) {
    elements *= dimension;
    if (elements > kMaxElements) {
      return absl::FailedPreconditionError(
          absl::StrCat("input '", input.name(), "' of model '", model.name(), "' has shape [",
                       absl::StrJoin(input.shape(), ","), "], more than one request can carry"));
    }
  }
  std::vector<float> values(elements);
  for (float& value : values) value = uniform_(engine_);
  return values;
}

}  // namespace neuronserve::neuronctl
