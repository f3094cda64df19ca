// Helpers for the inference end-to-end tests: building requests in either tensor form, reading
// outputs back, unary and streaming calls, and the outputs the sim models (MLP, classifier;
// built with tests/support/sim_model_files.h) should give, computed independently.
#ifndef NEURON_SERVE_TESTS_E2E_INFER_CLIENT_H_
#define NEURON_SERVE_TESTS_E2E_INFER_CLIENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "grpcpp/support/status.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"
#include "sim/simmodel/sim_model.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {

enum class TensorForm { kFloat, kRaw };

// Adds an input; `shape` may be empty (the request then gives no shape).
void AddInput(v1::InferRequest& request, const std::string& name,
              const std::vector<uint32_t>& shape, const std::vector<float>& values,
              TensorForm form);
// The values of an output in whichever form it came.
std::vector<float> OutputValues(const v1::OutputTensor& output);

grpc::Status Infer(v1::NeuronServing::Stub& stub, const v1::InferRequest& request,
                   v1::InferResponse* response,
                   absl::Duration deadline = absl::Seconds(60));

// Sends every request on one InferStream (without waiting for answers), half-closes, and
// collects every response; *status is the stream's final status.
std::vector<v1::InferResponse> RunStream(v1::NeuronServing::Stub& stub,
                                         const std::vector<v1::InferRequest>& requests,
                                         grpc::Status* status,
                                         absl::Duration deadline = absl::Seconds(120));

// The MLP's output for one row of input, computed here in double precision from the model's
// own weights (not by the simulator).
std::vector<double> MlpReference(const simmodel::SimModel& mlp, const std::vector<float>& input,
                                 size_t layers);

// The logits of ExampleClassifier() (tests/support/sim_model_files.h) for `ids` and `mask`
// (kClassifierSequence each), in double from the float32 weights the simulator holds: the mean
// of the embedding rows the mask keeps, times dense.weight, plus dense.bias. Computed here, not
// by the simulator.
std::vector<double> ClassifierReference(const simmodel::SimModel& model,
                                        const std::vector<int64_t>& ids,
                                        const std::vector<int64_t>& mask);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_E2E_INFER_CLIENT_H_
