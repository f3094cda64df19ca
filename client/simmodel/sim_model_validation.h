// The rules every sim NEFF obeys, checked before a model is written so that the tool never
// produces a file the simulator would reject:
//   - every name (input, constant, op output) is defined once; op outputs never redefine one;
//   - every dimension is positive and fits the runtime's uint32 shape entries;
//   - a constant's data has exactly as many values as its shape has elements;
//   - ops read only names defined before them, with operand shapes the op accepts;
//   - every declared output is produced by an op with exactly its declared shape, as float32;
//   - fault triggers are in range and no fault "fails" with NRT_SUCCESS.
#ifndef NEURON_SERVE_CLIENT_SIMMODEL_SIM_MODEL_VALIDATION_H_
#define NEURON_SERVE_CLIENT_SIMMODEL_SIM_MODEL_VALIDATION_H_

#include "absl/status/status.h"
#include "client/simmodel/sim_model.h"

namespace neuronserve::simmodel {

// OK, or InvalidArgument naming the first tensor or op that breaks a rule.
absl::Status ValidateSimModel(const SimModel& model);

}  // namespace neuronserve::simmodel

#endif  // NEURON_SERVE_CLIENT_SIMMODEL_SIM_MODEL_VALIDATION_H_
