// A model whose single output is its single input: the cheapest model to serve, for tests of
// everything around the device (queues, batching, byte paths).
#ifndef NEURON_SERVE_CLIENT_SIMMODEL_IDENTITY_MODEL_H_
#define NEURON_SERVE_CLIENT_SIMMODEL_IDENTITY_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/simmodel/sim_model.h"

namespace neuronserve::simmodel {

struct IdentityOptions {
  // Of both input and output, batch dimension included; each from 1 to 2^32-1.
  std::vector<int64_t> shape;
  std::string input_name = "input";
  std::string output_name = "output";
  DataType dtype = DataType::kFloat32;  // of both input and output
};

// InvalidArgument for an empty shape, a dimension out of range, equal names or no dtype.
absl::StatusOr<SimModel> BuildIdentityModel(const IdentityOptions& options);

}  // namespace neuronserve::simmodel

#endif  // NEURON_SERVE_CLIENT_SIMMODEL_IDENTITY_MODEL_H_
