#include "client/simmodel/classifier_model.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "client/simmodel/mlp_model.h"
#include "client/simmodel/prng.h"
#include "client/simmodel/sim_neff.h"

namespace neuronserve::simmodel {
namespace {

absl::Status CheckOptions(const ClassifierOptions& options) {
  const int64_t sizes[] = {options.vocab, options.sequence, options.hidden, options.classes};
  for (int64_t size : sizes) {
    // Each below 2^24, so the products below cannot overflow.
    if (size <= 0 || size > kMaxMlpParameters) {
      return absl::InvalidArgumentError(absl::StrCat(
          "classifier sizes (vocab, sequence, hidden, classes) must be from 1 to ",
          kMaxMlpParameters, ", got ", options.vocab, ",", options.sequence, ",", options.hidden,
          ",", options.classes));
    }
  }
  const int64_t parameters =
      options.vocab * options.hidden + options.hidden * options.classes + options.classes;
  if (options.vocab * options.hidden > kMaxMlpParameters || parameters > kMaxMlpParameters) {
    return absl::InvalidArgumentError(absl::StrCat("a classifier of vocab ", options.vocab,
                                                   ", hidden ", options.hidden, " and ",
                                                   options.classes, " classes has more than ",
                                                   kMaxMlpParameters, " parameters"));
  }
  return absl::OkStatus();
}

Op Step(OpKind kind, std::vector<std::string> inputs, std::string output) {
  Op op;
  op.kind = kind;
  op.inputs = std::move(inputs);
  op.output = std::move(output);
  return op;
}

}  // namespace

absl::StatusOr<SimModel> BuildClassifierModel(const ClassifierOptions& options) {
  if (absl::Status status = CheckOptions(options); !status.ok()) return status;
  const auto vocab = static_cast<uint32_t>(options.vocab);
  const auto sequence = static_cast<uint32_t>(options.sequence);
  const auto hidden = static_cast<uint32_t>(options.hidden);
  const auto classes = static_cast<uint32_t>(options.classes);

  SimModel model;
  model.inputs = {{kClassifierIds, DataType::kInt64, {1, sequence}},
                  {kClassifierMask, DataType::kInt64, {1, sequence}}};
  model.outputs = {{kClassifierLogits, DataType::kFloat32, {1, classes}},
                   {kClassifierLogitsFp16, DataType::kFloat16, {1, classes}}};

  // Drawn in this order so the sequence is part of the documented format.
  SplitMix64 rng(options.seed);
  const double dense_limit = 1.0 / std::sqrt(static_cast<double>(hidden));
  model.constants[kClassifierEmbeddings] = RandomConstant({vocab, hidden}, 1.0, rng);
  model.constants[kClassifierWeight] = RandomConstant({hidden, classes}, dense_limit, rng);
  model.constants[kClassifierBias] = RandomConstant({classes}, dense_limit, rng);

  Op to_float = Step(OpKind::kCast, {kClassifierMask}, "mask");
  to_float.dtype = DataType::kFloat32;
  Op column = Step(OpKind::kReshape, {"mask"}, "mask.column");
  column.shape = Shape{1, sequence, 1};
  Op summed = Step(OpKind::kReduceSum, {"masked"}, "summed");
  summed.axis = 1;
  Op kept = Step(OpKind::kReduceSum, {"mask"}, "kept");
  kept.axis = 1;
  kept.keepdims = true;
  Op to_half = Step(OpKind::kCast, {kClassifierLogits}, kClassifierLogitsFp16);
  to_half.dtype = DataType::kFloat16;
  model.ops = {
      Step(OpKind::kGather, {kClassifierEmbeddings, kClassifierIds}, "embedded"),
      to_float,
      column,
      Step(OpKind::kMul, {"embedded", "mask.column"}, "masked"),
      summed,
      kept,
      Step(OpKind::kDiv, {"summed", "kept"}, "pooled"),
      Step(OpKind::kMatMul, {"pooled", kClassifierWeight}, "dense"),
      Step(OpKind::kAdd, {"dense", kClassifierBias}, kClassifierLogits),
      to_half,
  };
  if (absl::Status status = ValidateSimModel(model); !status.ok()) return status;
  return model;
}

}  // namespace neuronserve::simmodel
