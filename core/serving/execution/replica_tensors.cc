#include "core/serving/execution/replica_tensors.h"

#include "absl/strings/str_cat.h"
#include "core/nrt/nrt_status.h"

namespace neuronserve {
namespace {

absl::Status AllocateAll(const NrtRuntime& runtime, const std::string& model, uint32_t core,
                         const std::vector<TensorSpec>& specs, std::vector<NrtTensor>& tensors,
                         std::vector<size_t>& sizes, NrtTensorSet& set) {
  tensors.reserve(specs.size());
  sizes.reserve(specs.size());
  for (const TensorSpec& spec : specs) {
    absl::StatusOr<NrtTensor> tensor = runtime.AllocateTensor(
        NRT_TENSOR_PLACEMENT_DEVICE, static_cast<int>(core), spec.byte_size,
        absl::StrCat(model, ".", spec.name));
    if (!tensor.ok()) {
      return WithContext(tensor.status(),
                         absl::StrCat("model '", model, "' tensor '", spec.name, "' (",
                                      spec.byte_size, " bytes) on core ", core));
    }
    tensors.push_back(*std::move(tensor));
    sizes.push_back(spec.byte_size);
    if (absl::Status added = set.Add(spec.name, tensors.back()); !added.ok()) {
      return WithContext(added, absl::StrCat("model '", model, "' on core ", core));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ReplicaTensors> ReplicaTensors::Allocate(const NrtRuntime& runtime,
                                                        const std::string& model, uint32_t core,
                                                        const std::vector<TensorSpec>& inputs,
                                                        const std::vector<TensorSpec>& outputs) {
  ReplicaTensors result;
  absl::StatusOr<NrtTensorSet> input_set = runtime.AllocateTensorSet();
  if (!input_set.ok()) {
    return WithContext(input_set.status(), absl::StrCat("model '", model, "' on core ", core));
  }
  result.input_set = *std::move(input_set);
  absl::StatusOr<NrtTensorSet> output_set = runtime.AllocateTensorSet();
  if (!output_set.ok()) {
    return WithContext(output_set.status(), absl::StrCat("model '", model, "' on core ", core));
  }
  result.output_set = *std::move(output_set);
  if (absl::Status status = AllocateAll(runtime, model, core, inputs, result.inputs, result.input_bytes,
                                        result.input_set);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = AllocateAll(runtime, model, core, outputs, result.outputs, result.output_bytes,
                                        result.output_set);
      !status.ok()) {
    return status;
  }
  return result;
}

absl::StatusOr<std::vector<ReplicaTensors>> ReplicaTensors::AllocateSets(
    const NrtRuntime& runtime, const std::string& model, uint32_t core,
    const std::vector<TensorSpec>& inputs, const std::vector<TensorSpec>& outputs, uint32_t count) {
  std::vector<ReplicaTensors> sets;
  sets.reserve(count);
  for (uint32_t set = 0; set < count; ++set) {
    absl::StatusOr<ReplicaTensors> bound = Allocate(runtime, model, core, inputs, outputs);
    if (!bound.ok()) return bound.status();
    sets.push_back(*std::move(bound));
  }
  return sets;
}

}  // namespace neuronserve
