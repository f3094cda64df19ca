// The textual form of a fault, as given to `neuronctl sim-model --fault`:
//   on_execution=N:STATUS       fail the Nth execution (counting from 1)
//   every=N:STATUS              fail every Nth execution
//   probability=P:SEED:STATUS   fail each execution with probability P (0 < P <= 1)
// STATUS is an NRT_STATUS name ("NRT_HW_ERROR") or a number other than 0 (NRT_SUCCESS).
#ifndef NEURON_SERVE_CLIENT_SIMMODEL_FAULT_SPEC_H_
#define NEURON_SERVE_CLIENT_SIMMODEL_FAULT_SPEC_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/simmodel/sim_model.h"

namespace neuronserve::simmodel {

// InvalidArgument, quoting the spec and saying what is wrong, for anything else.
absl::StatusOr<Fault> ParseFaultSpec(absl::string_view spec);

}  // namespace neuronserve::simmodel

#endif  // NEURON_SERVE_CLIENT_SIMMODEL_FAULT_SPEC_H_
