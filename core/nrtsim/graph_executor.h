// Runs a compiled graph once: copies the inputs in, evaluates the steps in order, copies the
// outputs out.
#ifndef NEURON_SERVE_CORE_NRTSIM_GRAPH_EXECUTOR_H_
#define NEURON_SERVE_CORE_NRTSIM_GRAPH_EXECUTOR_H_

#include <cstddef>
#include <span>
#include <vector>

#include "core/nrtsim/compiled_graph.h"

namespace neuronserve::nrtsim {

// `inputs` and `outputs` are parallel to graph.input_values / graph.output_values, each exactly
// the value's byte size (the caller checked).
void RunGraph(const CompiledGraph& graph, const std::vector<std::span<const std::byte>>& inputs,
              const std::vector<std::span<std::byte>>& outputs);

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_CORE_NRTSIM_GRAPH_EXECUTOR_H_
