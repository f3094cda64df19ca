#include "client/neuronctl/bench/bench_inputs.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/neuronctl/random_inputs.h"

namespace neuronserve::neuronctl {

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
  RandomInputs random(seed);
  for (const v1::TensorInfo& info : model.inputs()) {
    absl::StatusOr<std::vector<float>> values = random.ValuesFor(model, info);
    if (!values.ok()) return values.status();
    // No declared dimensions, or one of size 0: nothing of the model's real load to send.
    if (info.shape().empty() || values->empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("input '", info.name(), "' of model '", model.name(), "' has shape [",
                       absl::StrJoin(info.shape(), ","), "], which neuronctl bench cannot fill"));
    }
    std::vector<float>& buffer = inputs->buffers_.emplace_back(*std::move(values));
    inputs->tensors_.push_back(client::NamedTensor{
        info.name(), std::vector<uint32_t>(info.shape().begin(), info.shape().end()), buffer});
  }
  return inputs;
}

uint64_t BenchInputs::bytes() const {
  uint64_t total = 0;
  for (const std::vector<float>& buffer : buffers_) total += buffer.size() * sizeof(float);
  return total;
}

}  // namespace neuronserve::neuronctl
