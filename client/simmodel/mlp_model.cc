#include "client/simmodel/mlp_model.h"

#include <cmath>
#include <limits>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/simmodel/prng.h"
#include "client/simmodel/sim_neff.h"

namespace neuronserve::simmodel {
namespace {

absl::Status CheckOptions(const MlpOptions& options) {
  const std::vector<int64_t>& sizes = options.layer_sizes;
  if (sizes.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an MLP needs at least two layer sizes (input and output), got ", sizes.size()));
  }
  int64_t parameters = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("MLP layer sizes must be positive, got ", absl::StrJoin(sizes, ",")));
    }
    if (sizes[i] > kMaxMlpParameters) {
      return absl::InvalidArgumentError(
          absl::StrCat("MLP layer size ", sizes[i], " is above ", kMaxMlpParameters));
    }
    if (i > 0) parameters += sizes[i - 1] * sizes[i] + sizes[i];  // no overflow: each < 2^24
    if (parameters > kMaxMlpParameters) {
      return absl::InvalidArgumentError(absl::StrCat(
          "MLP ", absl::StrJoin(sizes, ","), " has more than ", kMaxMlpParameters, " parameters"));
    }
  }
  if (options.batch <= 0 || options.batch > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch must be from 1 to 4294967295, got ", options.batch));
  }
  return absl::OkStatus();
}

// "dense0.matmul": the intermediates of a layer, named so a reader of the file can follow it.
std::string LayerTensorName(size_t layer, absl::string_view step) {
  return absl::StrCat("dense", layer, ".", step);
}

}  // namespace

std::string MlpWeightName(size_t layer) { return absl::StrCat("w", layer); }
std::string MlpBiasName(size_t layer) { return absl::StrCat("b", layer); }

absl::StatusOr<SimModel> BuildMlpModel(const MlpOptions& options) {
  if (absl::Status status = CheckOptions(options); !status.ok()) return status;
  const std::vector<int64_t>& sizes = options.layer_sizes;
  const size_t layers = sizes.size() - 1;

  SimModel model;
  // Sizes and batch were checked to fit the format's uint32 dimensions.
  const auto dim = [](int64_t size) { return static_cast<uint32_t>(size); };
  model.inputs.push_back(
      {options.input_name, DataType::kFloat32, {dim(options.batch), dim(sizes.front())}});
  model.outputs.push_back(
      {options.output_name, DataType::kFloat32, {dim(options.batch), dim(sizes.back())}});

  SplitMix64 rng(options.seed);
  std::string activation = options.input_name;
  for (size_t layer = 0; layer < layers; ++layer) {
    const int64_t fan_in = sizes[layer];
    const int64_t fan_out = sizes[layer + 1];
    const double limit = 1.0 / std::sqrt(static_cast<double>(fan_in));
    const std::string weight = MlpWeightName(layer);
    const std::string bias = MlpBiasName(layer);
    // Drawn in this order (weight, then bias) so the sequence is part of the documented format.
    model.constants[weight] = RandomConstant({dim(fan_in), dim(fan_out)}, limit, rng);
    model.constants[bias] = RandomConstant({dim(fan_out)}, limit, rng);

    const bool last = layer + 1 == layers;
    const std::string product = LayerTensorName(layer, "matmul");
    const std::string biased = (last && !options.softmax) ? options.output_name
                               : last                     ? std::string("logits")
                                                          : LayerTensorName(layer, "bias_add");
    model.ops.push_back({OpKind::kMatMul, {activation, weight}, product});
    model.ops.push_back({OpKind::kAdd, {product, bias}, biased});
    activation = biased;
    if (!last) {
      const std::string relu = LayerTensorName(layer, "relu");
      model.ops.push_back({OpKind::kRelu, {activation}, relu});
      activation = relu;
    }
  }
  if (options.softmax) {
    model.ops.push_back({OpKind::kSoftmax, {activation}, options.output_name});
  }

  // A user name that collides with an internal one would make the graph ambiguous; say which.
  if (options.input_name == options.output_name) {
    return absl::InvalidArgumentError(absl::StrCat("input and output are both named '",
                                                   options.input_name, "'; names must differ"));
  }
  absl::flat_hash_set<std::string> internal;
  for (const auto& [name, constant] : model.constants) internal.insert(name);
  // Every op output but the last, which is the model's output.
  for (size_t i = 0; i + 1 < model.ops.size(); ++i) internal.insert(model.ops[i].output);
  for (const std::string* name : {&options.input_name, &options.output_name}) {
    if (internal.contains(*name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("the name '", *name, "' is used by a tensor inside the MLP (",
                       "weights are w<i>/b<i>, intermediates dense<i>.* and logits); choose "
                       "another"));
    }
  }
  if (absl::Status status = ValidateSimModel(model); !status.ok()) return status;
  return model;
}

}  // namespace neuronserve::simmodel
