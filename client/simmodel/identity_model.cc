#include "client/simmodel/identity_model.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "client/simmodel/sim_neff.h"

namespace neuronserve::simmodel {

absl::StatusOr<SimModel> BuildIdentityModel(const IdentityOptions& options) {
  if (options.shape.empty()) {
    return absl::InvalidArgumentError(
        "an identity model needs a shape with at least one dimension");
  }
  if (options.input_name == options.output_name) {
    return absl::InvalidArgumentError(absl::StrCat("input and output are both named '",
                                                   options.input_name, "'; names must differ"));
  }
  Shape shape;
  for (int64_t dim : options.shape) {
    if (dim < 1 || dim > std::numeric_limits<uint32_t>::max()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "identity model: dimension ", dim, " is not from 1 to 4294967295"));
    }
    shape.push_back(static_cast<uint32_t>(dim));
  }
  SimModel model;
  model.inputs.push_back({options.input_name, options.dtype, shape});
  model.outputs.push_back({options.output_name, options.dtype, shape});
  model.ops.push_back({OpKind::kIdentity, {options.input_name}, options.output_name});
  if (absl::Status status = ValidateSimModel(model); !status.ok()) return status;
  return model;
}

}  // namespace neuronserve::simmodel
