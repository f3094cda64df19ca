// A multi-layer perceptron with seeded random weights, as a SimModel.
//
// For layer sizes [s0, s1, ..., sn] the graph is
//   input [batch, s0]
//   -> matmul w0 [s0, s1] -> add b0 [s1] -> relu
//   -> ...
//   -> matmul w{n-1} [s{n-1}, sn] -> add b{n-1} [sn]    (no relu after the last layer)
//   -> softmax (optional)
//   = output [batch, sn]
// Weights and biases of layer i are uniform in [-1/sqrt(s_i), 1/sqrt(s_i)] (s_i the layer's
// fan-in), drawn from SplitMix64(seed) in the order w0 (row-major), b0, w1, b1, ...
#ifndef NEURON_SERVE_CLIENT_SIMMODEL_MLP_MODEL_H_
#define NEURON_SERVE_CLIENT_SIMMODEL_MLP_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/simmodel/sim_model.h"

namespace neuronserve::simmodel {

// Keeps a model (and the process building it) to a sane size: 2^24 float32 parameters is 64 MiB
// in memory and about 170 MB of JSON.
inline constexpr int64_t kMaxMlpParameters = int64_t{1} << 24;

struct MlpOptions {
  std::vector<int64_t> layer_sizes;  // at least two, all positive
  bool softmax = false;
  uint64_t seed = 0;
  int64_t batch = 1;
  std::string input_name = "input";
  std::string output_name = "output";
};

// InvalidArgument for fewer than two sizes, a non-positive size or batch, too many parameters,
// or input/output names that clash with each other or with the model's internal tensors.
absl::StatusOr<SimModel> BuildMlpModel(const MlpOptions& options);

// Name of the weight and bias constants of layer `layer` ("w0", "b0", ...), so tests and tools
// can find them in the file.
std::string MlpWeightName(size_t layer);
std::string MlpBiasName(size_t layer);

}  // namespace neuronserve::simmodel

#endif  // NEURON_SERVE_CLIENT_SIMMODEL_MLP_MODEL_H_
