// A BERT-shaped text classifier with seeded random weights, as a SimModel: what a model compiled
// with torch-neuronx from a sequence classifier looks like from outside (int64 token ids and
// attention mask in, float logits out), small enough for the simulator.
//
// For ClassifierOptions {vocab V, sequence S, hidden H, classes C} the graph is
//   input_ids       int64 [1,S]  --gather rows of embeddings [V,H]-->  embedded [1,S,H]
//   attention_mask  int64 [1,S]  --cast float32--> mask [1,S] --reshape--> mask.column [1,S,1]
//   embedded * mask.column = masked [1,S,H]
//   reduce_sum(masked, axis 1) = summed [1,H];  reduce_sum(mask, axis 1, keepdims) = kept [1,1]
//   summed / kept = pooled [1,H]     (the mean over the positions the mask keeps)
//   pooled x dense.weight [H,C] + dense.bias [C] = logits   float32 [1,C]
//   cast(logits, float16)                        = logits_fp16 float16 [1,C]
// A mask that keeps no position divides 0 by 0, and the logits are NaN, as in float arithmetic.
// Weights are drawn from SplitMix64(seed) in the order embeddings (row-major, uniform in
// [-1, 1]), dense.weight, dense.bias (uniform in [-1/sqrt(H), 1/sqrt(H)]).
#ifndef NEURON_SERVE_CLIENT_SIMMODEL_CLASSIFIER_MODEL_H_
#define NEURON_SERVE_CLIENT_SIMMODEL_CLASSIFIER_MODEL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "sim/simmodel/sim_model.h"

namespace neuronserve::simmodel {

struct ClassifierOptions {
  int64_t vocab = 0;    // rows of the embedding table; token ids must be below it
  int64_t sequence = 0;  // tokens per request
  int64_t hidden = 0;   // embedding width
  int64_t classes = 0;  // logits per request
  uint64_t seed = 0;
};

// The tensor and constant names, so tests and tools can find them.
inline constexpr char kClassifierIds[] = "input_ids";
inline constexpr char kClassifierMask[] = "attention_mask";
inline constexpr char kClassifierLogits[] = "logits";
inline constexpr char kClassifierLogitsFp16[] = "logits_fp16";
inline constexpr char kClassifierEmbeddings[] = "embeddings";
inline constexpr char kClassifierWeight[] = "dense.weight";
inline constexpr char kClassifierBias[] = "dense.bias";

// InvalidArgument for a size that is not positive or, with the others, makes more than
// kMaxMlpParameters parameters (the same bound as the MLP's).
absl::StatusOr<SimModel> BuildClassifierModel(const ClassifierOptions& options);

}  // namespace neuronserve::simmodel

#endif  // NEURON_SERVE_CLIENT_SIMMODEL_CLASSIFIER_MODEL_H_
