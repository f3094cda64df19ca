// The sim NEFF in memory: the model file format of the simulated Neuron runtime, shared by the
// simulator (sim), which reads and runs it, and by the tools that write it
// (client/simmodel, neuronctl sim-model). The file is the 8 bytes "NRTSIM1\n" and one JSON object
// (sim_model_reader.h, sim_model_writer.h); the graph rules live in model_graph.h. A new op or
// dtype is added here and in model_graph.cc once, and both sides know it.
//
// Plain values: no thread safety beyond that of standard containers.
#ifndef NEURON_SERVE_SIM_SIMMODEL_SIM_MODEL_H_
#define NEURON_SERVE_SIM_SIMMODEL_SIM_MODEL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/dtype.h"
#include "base/shape.h"
#include "base/tensor_signature.h"

namespace neuronserve::simmodel {

inline constexpr std::string_view kSimNeffMagic = "NRTSIM1\n";

// Row-major dimensions, each from 1 to 2^32-1, and their text form "[4,8]" (base/shape.h).
using ::neuronserve::Shape;
using ::neuronserve::ShapeToString;

// A model input or output, as nrt_get_model_tensor_info reports it (base/tensor_signature.h).
using ::neuronserve::TensorSignature;

// A tensor embedded in the model (weights, tables). `data` is flat and row-major, one number per
// element; the simulator rounds each to `dtype` (round to nearest even for the float types).
// Integer constants must be whole numbers in the dtype's range and, being doubles, exact only up
// to 2^53 in magnitude. Members are in this order so that {shape, data} makes a float32 constant.
struct Constant {
  Shape shape;
  std::vector<double> data;
  DataType dtype = DataType::kFloat32;
};

enum class OpKind {
  kIdentity,
  kReshape,
  kCast,
  kMatMul,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kRelu,
  kTanh,
  kSigmoid,
  kSoftmax,
  kReduceSum,
  kReduceMean,
  kGather,
};

// The op's name in the file: "identity", "matmul", "reduce_sum", ...
std::string_view OpKindName(OpKind kind);
std::optional<OpKind> OpKindFromName(std::string_view name);
// "identity, reshape, cast, ...": every op name, for messages.
std::string AllOpKindNames();

// One step of the graph, evaluated in order. The attributes are those of the op (model_graph.h
// lists which op takes which); an op never carries one it does not take.
struct Op {
  OpKind kind = OpKind::kIdentity;
  std::vector<std::string> inputs;
  std::string output;
  std::optional<DataType> dtype = std::nullopt;  // cast: the result's dtype
  std::optional<Shape> shape = std::nullopt;     // reshape: the result's shape
  std::optional<uint32_t> axis = std::nullopt;   // reduce_sum, reduce_mean: the axis reduced
  bool keepdims = false;          // reduce_sum, reduce_mean: keep the axis as a 1
};

// A status the simulator's nrt_execute returns instead of running the model: an NRT_STATUS name
// ("NRT_HW_ERROR" or "HW_ERROR") or any non-zero number, kept as written.
using FaultStatus = std::variant<std::string, int32_t>;

// Fails exactly the Nth execution (counting from 1).
struct FaultOnExecution {
  uint64_t execution = 1;
};
// Fails every Nth execution.
struct FaultEvery {
  uint64_t period = 1;
};
// Fails each execution with a probability, drawn from a generator seeded with `seed`.
struct FaultWithProbability {
  double probability = 0;
  uint64_t seed = 0;
};

struct Fault {
  std::variant<FaultOnExecution, FaultEvery, FaultWithProbability> trigger;
  // What a firing rule does: return `status` without running, or, when `latency_us` is set (and
  // `status` is ignored), run slowly: the execution takes latency_us of device time instead of
  // the model's, so that NEURON_RT_EXEC_TIMEOUT can make it a hang (NRT_TIMEOUT).
  FaultStatus status;
  std::optional<uint64_t> latency_us = std::nullopt;
  // Only the copy of the model loaded with this start core fails (all copies when absent), so a
  // test can break one replica of a model and not the others.
  std::optional<uint32_t> core = std::nullopt;
};

struct SimModel {
  std::string name;         // optional, ignored by the simulator
  std::string description;  // optional, ignored by the simulator
  uint32_t nc_count = 1;         // NeuronCores the model occupies
  uint64_t latency_us = 0;       // simulated device time of one execution
  uint64_t load_latency_ms = 0;  // simulated time nrt_load takes
  std::vector<TensorSignature> inputs;
  std::vector<TensorSignature> outputs;
  std::map<std::string, Constant> constants;
  std::vector<Op> ops;
  std::vector<Fault> faults;
};

// Limits of the format, checked by both the reader and the graph rules.
inline constexpr uint32_t kMaxNcCount = 4096;
// An hour: far beyond any test, short enough that a typo cannot hang a process forever.
inline constexpr uint64_t kMaxLatencyUs = uint64_t{3600} * 1000 * 1000;
inline constexpr uint64_t kMaxLoadLatencyMs = uint64_t{3600} * 1000;
// The CPU materializes every value of the graph, so one value may not exceed 4 GiB.
inline constexpr uint64_t kMaxValueBytes = uint64_t{4} << 30;
inline constexpr uint32_t kMaxFaultCore = 4095;

}  // namespace neuronserve::simmodel

#endif  // NEURON_SERVE_SIM_SIMMODEL_SIM_MODEL_H_
