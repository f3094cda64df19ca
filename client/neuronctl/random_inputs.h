// Made-up input values for a model's declared inputs: what `infer --random` and `bench` send.
// Seeded, so that a run can be repeated.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_RANDOM_INPUTS_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_RANDOM_INPUTS_H_

#include <cstdint>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "neuronserve/v1/neuron_serving.pb.h"

namespace neuronserve::neuronctl {

class RandomInputs {
 public:
  explicit RandomInputs(uint64_t seed) : engine_(seed) {}

  // Values uniform in [-1, 1) for every element of `input` (one of `model`'s inputs), drawn
  // from this generator's stream: the same seed and calls give the same values. A shape
  // without dimensions is a scalar (one value). FAILED_PRECONDITION naming the model and input
  // when the input is not float32 (the only dtype the client library sends) or has more
  // elements than one request can carry.
  absl::StatusOr<std::vector<float>> ValuesFor(const v1::ModelStatus& model,
                                               const v1::TensorInfo& input);

 private:
  // std::mt19937_64 is fully specified by the standard, so a seed gives the same stream on
  // every platform; the distribution on top may differ between standard libraries, which only
  // matters for comparing runs across them.
  std::mt19937_64 engine_;
  std::uniform_real_distribution<float> uniform_{-1.0f, 1.0f};
};

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_RANDOM_INPUTS_H_
