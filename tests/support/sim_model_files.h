// The sim model files the tests load (the simulator's model format, sim/simmodel): encoding a
// SimModel through the format's writer, wrapping JSON text the tests write by hand (malformed or
// unusual files no SimModel can express), and the example models more than one test uses.
//
// gRPC-free, so the simulator's and the core's tests use it in the ThreadSanitizer build too.
// Plain functions of their arguments: thread-safe. On a model the format refuses they fail the
// calling test (gtest's ADD_FAILURE) and return an empty value.
#ifndef NEURON_SERVE_TESTS_SUPPORT_SIM_MODEL_FILES_H_
#define NEURON_SERVE_TESTS_SUPPORT_SIM_MODEL_FILES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "client/simmodel/mlp_model.h"
#include "sim/simmodel/sim_model.h"

namespace neuronserve::testing {

// The bytes of a sim NEFF for `model`, written by simmodel::WriteSimModel (which checks the
// graph rules first); "" and a test failure for a model it refuses.
std::string EncodeNeff(const simmodel::SimModel& model);

// simmodel::kSimNeffMagic followed by `json` exactly as given.
std::string SimNeffFromJson(std::string_view json);

// y = x over float32 [1,4] ("input" to "output"), 2 ms per execution (so that a burst of
// requests keeps the replicas busy), with the fault rules `faults_json` (a JSON list,
// sim/README.md) as written: SimNeffFromJson, so a test may write rules as odd as it likes.
std::string FaultyIdentityNeff(std::string_view faults_json);

// y = x over float32 `shape`, named "input" and "output", with the given latency (add faults
// with simmodel::ParseFaultSpec).
simmodel::SimModel IdentityModel(const std::vector<int64_t>& shape, uint64_t latency_us = 0);

// simmodel::BuildMlpModel(options); an empty model and a test failure when it refuses them.
simmodel::SimModel MlpModel(const simmodel::MlpOptions& options);
// The small MLP several e2e tests serve as "mlp": float32 "input" [1,8] -> "output" [1,4]
// through one hidden layer of 16, its weights drawn from `seed`.
simmodel::SimModel SmallMlp(uint64_t seed);

// The example classifier of deploy/models (`neuronctl sim-model --classifier 512,16,32,4
// --seed 1`): int64 input_ids and attention_mask [1,16] in, float32 logits and float16
// logits_fp16 [1,4] out.
inline constexpr uint32_t kClassifierVocab = 512;
inline constexpr uint32_t kClassifierSequence = 16;
inline constexpr uint32_t kClassifierHidden = 32;
inline constexpr uint32_t kClassifierClasses = 4;
simmodel::SimModel ExampleClassifier();

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_SIM_MODEL_FILES_H_
