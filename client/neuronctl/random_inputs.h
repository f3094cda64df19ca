// Made-up input values for a model's declared inputs: what `infer --random` and `bench` send.
// Seeded, so that a run can be repeated.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_RANDOM_INPUTS_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_RANDOM_INPUTS_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/neuronctl/args.h"
#include "neuronserve/v1/neuron_serving.pb.h"

namespace neuronserve::neuronctl {

// Integer inputs are made up below this by default: 0 and 1 are a valid token id of any
// vocabulary and both values of an attention mask.
inline constexpr uint64_t kDefaultRandomMax = 2;

// The --random-max flag of infer and bench, and its value: a positive integer (a usage error
// naming the flag otherwise).
inline constexpr FlagSpec kRandomMaxFlag = {
    "random-max", FlagType::kValue, "N", "2",
    "made-up integer inputs are uniform in [0, N), so token ids and masks stay valid"};
absl::StatusOr<uint64_t> GetRandomMax(const ParsedArgs& args);

// A made-up tensor of one input: float32 inputs as numbers, every other dtype as the
// little-endian bytes of its elements.
struct RandomTensor {
  std::string dtype;           // the input's, as GetModel reports it
  std::vector<float> values;   // float32 inputs
  std::vector<uint8_t> bytes;  // any other dtype
};

class RandomInputs {
 public:
  explicit RandomInputs(uint64_t seed, uint64_t integer_max = kDefaultRandomMax)
      : engine_(seed), integer_max_(integer_max) {}

  // Values uniform in [-1, 1) for every element of `input` (one of `model`'s inputs), drawn
  // from this generator's stream: the same seed and calls give the same values. A shape
  // without dimensions is a scalar (one value). FAILED_PRECONDITION naming the model and input
  // when the input is not float32 (TensorFor makes up the others) or has more elements than one
  // request can carry.
  absl::StatusOr<std::vector<float>> ValuesFor(const v1::ModelStatus& model,
                                               const v1::TensorInfo& input);

  // Elements for an input of any dtype neuron-serve names: float32 as ValuesFor (the same
  // stream); float16, bfloat16, fp32r and fp8 from the same uniform floats, rounded to the
  // format; integer dtypes uniform in [0, integer_max). FAILED_PRECONDITION naming the model and
  // input for the "unknown" dtype (nothing is known of its elements), an integer_max the dtype
  // cannot hold, or too many elements.
  absl::StatusOr<RandomTensor> TensorFor(const v1::ModelStatus& model,
                                         const v1::TensorInfo& input);

 private:
  // std::mt19937_64 is fully specified by the standard, so a seed gives the same stream on
  // every platform; the distributions on top may differ between standard libraries, which only
  // matters for comparing runs across them.
  std::mt19937_64 engine_;
  std::uniform_real_distribution<float> uniform_{-1.0f, 1.0f};
  uint64_t integer_max_;
};

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_RANDOM_INPUTS_H_
