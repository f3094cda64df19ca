// Encodes a SimModel as the bytes of a sim NEFF file: the magic "NRTSIM1\n", then one JSON
// object with the keys nc_count, latency_us, load_latency_ms, inputs, outputs, constants, ops
// and faults (the format core/nrtsim reads).
#ifndef NEURON_SERVE_CLIENT_SIMMODEL_SIM_NEFF_WRITER_H_
#define NEURON_SERVE_CLIENT_SIMMODEL_SIM_NEFF_WRITER_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "client/simmodel/sim_model.h"

namespace neuronserve::simmodel {

inline constexpr absl::string_view kSimNeffMagic = "NRTSIM1\n";

// Validates the model (sim_model_validation.h) and encodes it. The encoding is deterministic:
// keys in sorted order, each float32 written as the shortest decimal that reads back as the
// same float32, so equal models give equal bytes on every machine.
absl::StatusOr<std::string> EncodeSimNeff(const SimModel& model);

}  // namespace neuronserve::simmodel

#endif  // NEURON_SERVE_CLIENT_SIMMODEL_SIM_NEFF_WRITER_H_
