#include "client/neuronctl/bench/bench_inputs.h"

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/neuronctl/model_status_text.h"
#include "client/neuronctl/random_inputs.h"

namespace neuronserve::neuronctl {

absl::StatusOr<std::unique_ptr<BenchInputs>> BenchInputs::Generate(const v1::ModelStatus& model,
                                                                   uint64_t seed,
                                                                   uint64_t integer_max) {
  if (model.inputs().empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("model '", model.name(), "' reports no inputs (state ",
                     v1::ModelState_Name(model.state()), "); is it READY?"));
  }
  std::unique_ptr<BenchInputs> inputs(new BenchInputs());
  inputs->buffers_.reserve(model.inputs_size());
  inputs->tensors_.reserve(model.inputs_size());
  RandomInputs random(seed, integer_max);
  for (const v1::TensorInfo& info : model.inputs()) {
    absl::StatusOr<RandomTensor> values = random.TensorFor(model, info);
    if (!values.ok()) return values.status();
    // No declared dimensions, or one of size 0: nothing of the model's real load to send.
    if (info.shape().empty() || (values->values.empty() && values->bytes.empty())) {
      return absl::FailedPreconditionError(
          absl::StrCat("input '", info.name(), "' of model '", model.name(), "' has shape ",
                       ShapeText(info.shape()), ", which neuronctl bench cannot fill"));
    }
    const RandomTensor& buffer = inputs->buffers_.emplace_back(*std::move(values));
    // float32 inputs as numbers without a dtype, as before dtypes; the others name theirs.
    inputs->tensors_.push_back(client::NamedTensor{
        info.name(), std::vector<uint32_t>(info.shape().begin(), info.shape().end()), buffer.values,
        buffer.values.empty() ? buffer.dtype : "", buffer.bytes, std::nullopt});
  }
  return inputs;
}

uint64_t BenchInputs::bytes() const {
  uint64_t total = 0;
  for (const RandomTensor& buffer : buffers_) {
    total += buffer.values.size() * sizeof(float) + buffer.bytes.size();
  }
  return total;
}

}  // namespace neuronserve::neuronctl
