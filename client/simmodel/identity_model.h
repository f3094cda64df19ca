// A model whose single output is its single input: the cheapest model to serve, for tests of
// everything around the device (queues, batching, byte paths).
#ifndef NEURON_SERVE_CLIENT_SIMMODEL_IDENTITY_MODEL_H_
#define NEURON_SERVE_CLIENT_SIMMODEL_IDENTITY_MODEL_H_

#include <string>

#include "absl/status/statusor.h"
#include "client/simmodel/sim_model.h"

namespace neuronserve::simmodel {

struct IdentityOptions {
  Shape shape;  // of both input and output, batch dimension included
  std::string input_name = "input";
  std::string output_name = "output";
};

// InvalidArgument for an empty shape, a non-positive dimension or equal names.
absl::StatusOr<SimModel> BuildIdentityModel(const IdentityOptions& options);

}  // namespace neuronserve::simmodel

#endif  // NEURON_SERVE_CLIENT_SIMMODEL_IDENTITY_MODEL_H_
