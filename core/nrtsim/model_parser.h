// Reads a sim NEFF: the magic "NRTSIM1\n", then one JSON object (format in README.md). Checks
// the form of every field; the graph's names and shapes are checked by CompileGraph.
#ifndef NEURON_SERVE_CORE_NRTSIM_MODEL_PARSER_H_
#define NEURON_SERVE_CORE_NRTSIM_MODEL_PARSER_H_

#include <cstddef>

#include "core/nrtsim/model_spec.h"

namespace neuronserve::nrtsim {

// Throws ModelFormatError saying what is wrong.
ModelSpec ParseModelFile(const void* bytes, size_t size);

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_CORE_NRTSIM_MODEL_PARSER_H_
