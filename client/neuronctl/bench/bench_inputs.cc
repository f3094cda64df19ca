#include "client/neuronctl/bench/bench_inputs.h"

#include <random>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace neuronserve::neuronctl {
namespace {

// One request's input larger than this (4 GiB of float32) cannot be sent over gRPC anyway.
constexpr uint64_t kMaxElements = uint64_t{1} << 30;

}  // namespace

absl::StatusOr<std::unique_ptr<BenchInputs>> BenchInputs::Generate(const v1::ModelStatus& model,
                                                                   uint64_t seed) {
  if (model.inputs().empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("model '", model.name(), "' reports no inputs (state ",
                     v1::ModelState_Name(model.state()), "); is it READY?"));
  }
  std::unique_ptr<BenchInputs> inputs(new BenchInputs());
  inputs->buffers_.reserve(model.inputs_size());
  inputs->tensors_.reserve(model.inputs_size());
  // std::mt19937_64 is fully specified by the standard, so a seed gives the same stream on
  // every platform; the distribution on top may differ between standard libraries, which only
  // matters for comparing runs across them.
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (const v1::TensorInfo& info : model.inputs()) {
    if (info.dtype() != "float32") {
      return absl::FailedPreconditionError(
          absl::StrCat("input '", info.name(), "' of model '", model.name(), "' is ", info.dtype(),
                       "; neuronctl bench can only send float32 inputs"));
    }
    uint64_t elements = 1;
    for (uint32_t dimension : info.shape()) {
      elements *= dimension;
      if (elements > kMaxElements) break;
    }
    if (info.shape().empty() || elements == 0 || elements > kMaxElements) {
      return absl::FailedPreconditionError(
          absl::StrCat("input '", info.name(), "' of model '", model.name(), "' has shape [",
                       absl::StrJoin(info.shape(), ","), "], which neuronctl bench cannot fill"));
    }
    std::vector<float>& values = inputs->buffers_.emplace_back(elements);
    for (float& value : values) value = uniform(engine);
    inputs->tensors_.push_back(client::NamedTensor{
        info.name(), std::vector<uint32_t>(info.shape().begin(), info.shape().end()), values});
  }
  return inputs;
}

uint64_t BenchInputs::bytes() const {
  uint64_t total = 0;
  for (const std::vector<float>& buffer : buffers_) total += buffer.size() * sizeof(float);
  return total;
}

}  // namespace neuronserve::neuronctl
