// A model's graph after static checking: every named value with its dtype and shape, and the
// ops as steps over value indices, ready to run without any name lookups.
#ifndef NEURON_SERVE_CORE_NRTSIM_COMPILED_GRAPH_H_
#define NEURON_SERVE_CORE_NRTSIM_COMPILED_GRAPH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/nrtsim/model_spec.h"

namespace neuronserve::nrtsim {

struct GraphValue {
  std::string name;
  DataType dtype = DataType::kFloat32;
  Shape shape;
  uint64_t element_count = 0;
  uint64_t byte_size = 0;
};

struct GraphStep {
  OpKind kind = OpKind::kIdentity;
  std::vector<size_t> inputs;  // value indices
  size_t output = 0;           // value index
};

struct GraphConstant {
  size_t value = 0;  // value index
  std::vector<float> data;
};

struct CompiledGraph {
  std::vector<GraphValue> values;
  std::vector<size_t> input_values;   // parallel to ModelSpec::inputs
  std::vector<size_t> output_values;  // parallel to ModelSpec::outputs
  std::vector<GraphConstant> constants;
  std::vector<GraphStep> steps;
  uint64_t constant_bytes = 0;  // what the constants occupy in HBM
};

// Checks names, definition order, arity, dtypes and shapes (README.md lists the rules) and
// throws ModelFormatError with the first violation. Moves the constants' data out of `spec`.
CompiledGraph CompileGraph(ModelSpec& spec);

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_CORE_NRTSIM_COMPILED_GRAPH_H_
