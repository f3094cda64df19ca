// Runs a checked graph once: views the inputs and constants, evaluates the steps in order with
// the kernels of sim/compute, and copies the outputs out. Stateless; concurrent runs of
// one graph are safe (each has its own values).
#ifndef NEURON_SERVE_SIM_GRAPH_EXECUTOR_H_
#define NEURON_SERVE_SIM_GRAPH_EXECUTOR_H_

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/simmodel/model_graph.h"

namespace neuronserve::nrtsim {

// `constants` is parallel to graph.constants, `inputs` to graph.input_values and `outputs` to
// graph.output_values, each exactly the value's byte size (the caller checked). Returns nullopt,
// or a sentence naming the op that could not run and why ("op 1 (gather): index 7 at position 2
// is outside the table's 5 rows"); the outputs are then unspecified.
std::optional<std::string> RunGraph(const simmodel::ModelGraph& graph,
                                    const std::vector<std::vector<std::byte>>& constants,
                                    const std::vector<std::span<const std::byte>>& inputs,
                                    const std::vector<std::span<std::byte>>& outputs);

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_GRAPH_EXECUTOR_H_
