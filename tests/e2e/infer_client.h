// Helpers for the inference end-to-end tests: building requests in either tensor form, reading
// outputs back, unary and streaming calls, and sim models (identity, MLP) with a reference.
#ifndef NEURON_SERVE_TESTS_E2E_INFER_CLIENT_H_
#define NEURON_SERVE_TESTS_E2E_INFER_CLIENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "grpcpp/support/status.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"
#include "sim/simmodel/sim_model.h"

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

// Encodes a SimModel as a sim NEFF (fails the test on an invalid model).
std::string EncodeNeff(const simmodel::SimModel& model);
// y = x over float32 `shape`, named "input" and "output", with the given latency (add faults
// with simmodel::ParseFaultSpec).
simmodel::SimModel IdentityModel(const std::vector<int64_t>& shape, uint64_t latency_us = 0);

// The MLP's output for one row of input, computed here in double precision from the model's
// own weights (not by the simulator).
std::vector<double> MlpReference(const simmodel::SimModel& mlp, const std::vector<float>& input,
                                 size_t layers);

// The example classifier of deploy/models (`neuronctl sim-model --classifier 512,16,32,4
// --seed 1`): int64 input_ids and attention_mask [1,16] in, float32 logits and float16
// logits_fp16 [1,4] out.
inline constexpr uint32_t kClassifierVocab = 512;
inline constexpr uint32_t kClassifierSequence = 16;
inline constexpr uint32_t kClassifierHidden = 32;
inline constexpr uint32_t kClassifierClasses = 4;
simmodel::SimModel ExampleClassifier();

// The classifier's logits for `ids` and `mask` (kClassifierSequence each), in double from the
// float32 weights the simulator holds: the mean of the embedding rows the mask keeps, times
// dense.weight, plus dense.bias. Computed here, not by the simulator.
std::vector<double> ClassifierReference(const simmodel::SimModel& model,
                                        const std::vector<int64_t>& ids,
                                        const std::vector<int64_t>& mask);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_E2E_INFER_CLIENT_H_
