// The sim model format (sim/simmodel) for the tools, with absl::Status: the format
// library itself returns FormatResult because libnrtsim.so, which shares it, cannot depend on
// Abseil.
#ifndef NEURON_SERVE_CLIENT_SIMMODEL_SIM_NEFF_H_
#define NEURON_SERVE_CLIENT_SIMMODEL_SIM_NEFF_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sim/simmodel/sim_model.h"

namespace neuronserve::simmodel {

// OK, or InvalidArgument naming the first tensor, op or fault that breaks a rule of
// sim/simmodel/model_graph.h (the rules the simulator applies at nrt_load).
absl::Status ValidateSimModel(const SimModel& model);

// Validates and encodes the model as the bytes of a sim NEFF file (WriteSimModel).
absl::StatusOr<std::string> EncodeSimNeff(const SimModel& model);

}  // namespace neuronserve::simmodel

#endif  // NEURON_SERVE_CLIENT_SIMMODEL_SIM_NEFF_H_
