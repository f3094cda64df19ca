// A sim NEFF as written in the file (see README.md), before the graph is checked.
#ifndef NEURON_SERVE_CORE_NRTSIM_MODEL_SPEC_H_
#define NEURON_SERVE_CORE_NRTSIM_MODEL_SPEC_H_

#include <cstdint>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

#include "core/nrt/dtype.h"
#include "core/nrt/nrt_abi.h"
#include "core/nrtsim/shape.h"

namespace neuronserve::nrtsim {

// Why a model file was rejected. Thrown while reading or checking a model and caught in
// nrt_load, which logs the message and returns NRT_INVALID; it never crosses the C ABI.
class ModelFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class OpKind { kIdentity, kMatmul, kAdd, kMul, kRelu, kTanh, kSigmoid, kSoftmax };

struct TensorDecl {
  std::string name;
  DataType dtype = DataType::kUnknown;
  Shape shape;
};

struct ConstantDecl {
  std::string name;
  Shape shape;
  std::vector<float> data;
};

struct OpDecl {
  OpKind kind = OpKind::kIdentity;
  std::string kind_name;  // as written, for messages
  std::vector<std::string> inputs;
  std::string output;
};

struct FaultRule {
  enum class Trigger { kOnExecution, kEvery, kProbability };
  Trigger trigger = Trigger::kOnExecution;
  uint64_t execution = 0;  // kOnExecution: that execution (1-based); kEvery: the period
  double probability = 0;  // kProbability
  uint64_t seed = 0;       // kProbability
  NRT_STATUS status = NRT_FAILURE;
  // Only for the copy of the model loaded with this start core (all copies when absent), so a
  // test can break one replica of a model and not the others.
  std::optional<uint32_t> core;
};

struct ModelSpec {
  uint32_t nc_count = 1;
  uint64_t latency_us = 0;
  uint64_t load_latency_ms = 0;
  std::vector<TensorDecl> inputs;
  std::vector<TensorDecl> outputs;
  std::vector<ConstantDecl> constants;
  std::vector<OpDecl> ops;
  std::vector<FaultRule> faults;
};

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_CORE_NRTSIM_MODEL_SPEC_H_
