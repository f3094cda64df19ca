// Reads a sim NEFF: the magic "NRTSIM1\n", then one JSON object (format in
// sim/README.md). Checks the form of every field: unknown keys, keys given twice, wrong
// JSON types and out-of-range numbers are errors. Whether the graph makes sense (names, dtypes,
// shapes) is CompileModelGraph's job.
#ifndef NEURON_SERVE_SIM_SIMMODEL_SIM_MODEL_READER_H_
#define NEURON_SERVE_SIM_SIMMODEL_SIM_MODEL_READER_H_

#include <cstddef>
#include <string_view>

#include "sim/simmodel/format_result.h"
#include "sim/simmodel/sim_model.h"

namespace neuronserve::simmodel {

// The error says where and what, e.g. "op 2 (cast).dtype: \"float33\" is not a dtype name".
FormatResult<SimModel> ReadSimModel(std::string_view file);

}  // namespace neuronserve::simmodel

#endif  // NEURON_SERVE_SIM_SIMMODEL_SIM_MODEL_READER_H_
