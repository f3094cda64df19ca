#include "client/simmodel/sim_neff.h"

#include "sim/simmodel/model_graph.h"
#include "sim/simmodel/sim_model_writer.h"

namespace neuronserve::simmodel {

absl::Status ValidateSimModel(const SimModel& model) {
  FormatResult<ModelGraph> graph = CompileModelGraph(model);
  if (!graph.ok()) return absl::InvalidArgumentError(graph.error());
  return absl::OkStatus();
}

absl::StatusOr<std::string> EncodeSimNeff(const SimModel& model) {
  FormatResult<std::string> bytes = WriteSimModel(model);
  if (!bytes.ok()) return absl::InvalidArgumentError(bytes.error());
  return std::move(bytes).value();
}

}  // namespace neuronserve::simmodel
