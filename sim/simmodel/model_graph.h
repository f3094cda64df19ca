// The rules a sim model obeys, and the checked graph they produce. Both the simulator (at
// nrt_load) and the tools that write models (before writing) run the same check, so a tool can
// never write a file the simulator refuses.
//
// The rules:
//   - nc_count 1..4096, latency_us up to an hour, load_latency_ms up to an hour;
//   - names (inputs, constants, op outputs) are non-empty, shorter than NRT_TENSOR_NAME_MAX
//     bytes, without NUL, and defined once: nothing is ever redefined;
//   - shapes have at least one dimension, each from 1 to 2^32-1; no value exceeds 4 GiB;
//   - a constant has exactly as many numbers as elements, each finite as a float32 (float
//     dtypes) or a whole number in the dtype's range and within 2^53 (integer dtypes);
//   - every op reads only values defined before it, takes exactly its attributes, and accepts its
//     operands' dtypes and shapes (the op table in sim/README.md);
//   - there is at least one output; each is produced by an op, declared once, with exactly the
//     op's dtype and shape;
//   - faults have one trigger in range, a failing status (a known name or a non-zero number)
//     and, when given, a core up to 4095.
#ifndef NEURON_SERVE_SIM_SIMMODEL_MODEL_GRAPH_H_
#define NEURON_SERVE_SIM_SIMMODEL_MODEL_GRAPH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/simmodel/format_result.h"
#include "sim/simmodel/sim_model.h"

namespace neuronserve::simmodel {

// One named value of the graph: an input, a constant or an op's result.
struct GraphValue {
  std::string name;
  DataType dtype = DataType::kFloat32;
  Shape shape;
  uint64_t element_count = 0;
  uint64_t byte_size = 0;
};

// One op over value indices, ready to run without name lookups.
struct GraphStep {
  size_t op_index = 0;  // position in SimModel::ops, for messages ("op 3 (gather)")
  OpKind kind = OpKind::kIdentity;
  std::vector<size_t> inputs;  // value indices
  size_t output = 0;           // value index
  uint32_t axis = 0;           // reduce_sum, reduce_mean
};

struct GraphConstant {
  size_t value = 0;  // value index
  std::string name;  // key of SimModel::constants
};

struct ModelGraph {
  std::vector<GraphValue> values;
  std::vector<size_t> input_values;   // parallel to SimModel::inputs
  std::vector<size_t> output_values;  // parallel to SimModel::outputs
  std::vector<GraphConstant> constants;
  std::vector<GraphStep> steps;
  uint64_t constant_bytes = 0;  // what the constants occupy on the device
};

// Checks every rule above; the error names the first tensor, constant, op or fault that breaks
// one, e.g. "op 2 (matmul): inner dimensions differ: [4,8] x [7,3]".
FormatResult<ModelGraph> CompileModelGraph(const SimModel& model);

// "op 3 (gather)": how messages name a step.
std::string DescribeStep(const GraphStep& step);

// The float types: float32, fp32r, float16, bfloat16 and the fp8 types.
bool IsFloatingPoint(DataType dtype);

}  // namespace neuronserve::simmodel

#endif  // NEURON_SERVE_SIM_SIMMODEL_MODEL_GRAPH_H_
