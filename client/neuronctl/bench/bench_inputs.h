// The request inputs of `neuronctl bench`: random float32 values for every input of a model,
// shaped by the model's metadata and generated once, before any request is sent, so that the
// measured loop allocates nothing for inputs.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_INPUTS_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_INPUTS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "client/lib/infer_types.h"
#include "neuronserve/v1/neuron_serving.pb.h"

namespace neuronserve::neuronctl {

class BenchInputs {
 public:
  // Values uniform in [-1, 1), the same for the same `seed` and model. FAILED_PRECONDITION
  // naming the model and input when the model has no inputs, an input is not float32 (the only
  // dtype the client library sends) or has an empty or zero-sized shape.
  static absl::StatusOr<std::unique_ptr<BenchInputs>> Generate(const v1::ModelStatus& model,
                                                               uint64_t seed);

  // Each tensor's values point into this object's buffers, which is why it is neither copied
  // nor moved.
  BenchInputs(const BenchInputs&) = delete;
  BenchInputs& operator=(const BenchInputs&) = delete;

  const std::vector<client::NamedTensor>& tensors() const { return tensors_; }
  // Bytes of one request's input values.
  uint64_t bytes() const;

 private:
  BenchInputs() = default;

  std::vector<std::vector<float>> buffers_;
  std::vector<client::NamedTensor> tensors_;
};

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_BENCH_BENCH_INPUTS_H_
