// The request inputs of `neuronctl bench`: random values for every input of a model, of its dtype,
// shaped by the model's metadata and generated once, before any request is sent, so that the
// measured loop allocates nothing for inputs.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_INPUTS_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_INPUTS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "client/lib/infer_types.h"
#include "client/neuronctl/random_inputs.h"
#include "neuronserve/v1/neuron_serving.pb.h"

namespace neuronserve::neuronctl {

class BenchInputs {
 public:
  // Values as RandomInputs::TensorFor makes them (float32 inputs uniform in [-1, 1), integer
  // inputs uniform in [0, integer_max), ...), the same for the same `seed` and model.
  // FAILED_PRECONDITION naming the model and input when the model has no inputs, an input's
  // values cannot be made up (TensorFor) or it has an empty or zero-sized shape.
  static absl::StatusOr<std::unique_ptr<BenchInputs>> Generate(
      const v1::ModelStatus& model, uint64_t seed, uint64_t integer_max = kDefaultRandomMax);

  // Each tensor's values point into this object's buffers, which is why it is neither copied
  // nor moved.
  BenchInputs(const BenchInputs&) = delete;
  BenchInputs& operator=(const BenchInputs&) = delete;

  const std::vector<client::NamedTensor>& tensors() const { return tensors_; }
  // Bytes of one request's input values.
  uint64_t bytes() const;

 private:
  BenchInputs() = default;

  std::vector<RandomTensor> buffers_;
  std::vector<client::NamedTensor> tensors_;
};

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_INPUTS_H_
