// Encodes a SimModel as the bytes of a sim NEFF: the magic "NRTSIM1\n", then one JSON object
// that ReadSimModel reads back into an equal model.
#ifndef NEURON_SERVE_SIM_SIMMODEL_SIM_MODEL_WRITER_H_
#define NEURON_SERVE_SIM_SIMMODEL_SIM_MODEL_WRITER_H_

#include <string>

#include "sim/simmodel/format_result.h"
#include "sim/simmodel/sim_model.h"

namespace neuronserve::simmodel {

// Checks the model (CompileModelGraph) and encodes it, so a file written here always loads. The
// encoding is deterministic: keys in sorted order, each float written as the shortest decimal
// that reads back as the same float32, integers as integers, so equal models give equal bytes on
// every machine.
FormatResult<std::string> WriteSimModel(const SimModel& model);

}  // namespace neuronserve::simmodel

#endif  // NEURON_SERVE_SIM_SIMMODEL_SIM_MODEL_WRITER_H_
