#include "client/simmodel/identity_model.h"

#include "absl/strings/str_cat.h"
#include "client/simmodel/sim_model_validation.h"

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
  SimModel model;
  model.inputs.push_back({options.input_name, DataType::kFloat32, options.shape});
  model.outputs.push_back({options.output_name, DataType::kFloat32, options.shape});
  model.ops.push_back({OpKind::kIdentity, {options.input_name}, options.output_name});
  if (absl::Status status = ValidateSimModel(model); !status.ok()) return status;
  return model;
}

}  // namespace neuronserve::simmodel
