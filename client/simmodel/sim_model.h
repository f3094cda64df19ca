// The in-memory description of a sim NEFF: the model file format of the simulated Neuron
// runtime (core/nrtsim). A file is the 8 bytes "NRTSIM1\n" followed by one JSON object; see
// sim_neff_writer.h for the encoding and sim_model_validation.h for the rules a model obeys.
#ifndef NEURON_SERVE_CLIENT_SIMMODEL_SIM_MODEL_H_
#define NEURON_SERVE_CLIENT_SIMMODEL_SIM_MODEL_H_

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/nrt/dtype.h"

namespace neuronserve::simmodel {

using Shape = std::vector<int64_t>;

// Number of elements of a tensor of this shape (1 for a scalar shape []).
int64_t ElementCount(const Shape& shape);
// "[1,16]"
std::string FormatShape(const Shape& shape);

// A model input or output as the runtime reports it.
struct TensorSpec {
  std::string name;
  DataType dtype = DataType::kFloat32;
  Shape shape;
};

// A float32 tensor embedded in the model (weights, biases); data is flat, row-major.
struct Constant {
  Shape shape;
  std::vector<float> data;
};

enum class OpKind { kIdentity, kMatMul, kAdd, kMul, kRelu, kTanh, kSigmoid, kSoftmax };

// The op's name in the file: "identity", "matmul", ...
absl::string_view OpKindName(OpKind kind);

// One step of the graph: evaluated in order over named float32 tensors.
struct Op {
  OpKind kind;
  std::vector<std::string> inputs;
  std::string output;
};

// A status the simulator's nrt_execute returns instead of running the model. Either a status
// name ("NRT_HW_ERROR") or a raw number, kept as the user wrote it.
using FaultStatus = std::variant<std::string, int32_t>;

// Fails exactly the Nth execution (counting from 1).
struct FaultOnExecution {
  uint64_t execution = 1;
};
// Fails every Nth execution.
struct FaultEvery {
  uint64_t period = 1;
};
// Fails each execution with a probability, from a generator seeded with `seed`.
struct FaultWithProbability {
  double probability = 0;
  uint64_t seed = 0;
};

struct Fault {
  std::variant<FaultOnExecution, FaultEvery, FaultWithProbability> trigger;
  FaultStatus status;
};

struct SimModel {
  uint32_t nc_count = 1;         // NeuronCores the model occupies
  uint64_t latency_us = 0;       // simulated device time per execution
  uint64_t load_latency_ms = 0;  // simulated time nrt_load takes
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::map<std::string, Constant> constants;
  std::vector<Op> ops;
  std::vector<Fault> faults;
};

}  // namespace neuronserve::simmodel

#endif  // NEURON_SERVE_CLIENT_SIMMODEL_SIM_MODEL_H_
