// CheckBatchVariants: whether the compiled variants of a batched model are one network at
// different batch sizes, as the batching scheduler assumes when it packs requests' rows into any
// of them: the same tensors (names, usage, dtypes, in the runtime's order), each with the
// variant's batch size as its leading dimension and the same dimensions past it.
//
// Plain function of its arguments: thread-safe.
#ifndef NEURON_SERVE_CORE_LIFECYCLE_BATCH_VARIANTS_H_
#define NEURON_SERVE_CORE_LIFECYCLE_BATCH_VARIANTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/nrt/nrt_handles.h"

namespace neuronserve {

// The tensors one variant's NEFF declares, as the runtime lists them.
struct VariantTensors {
  uint32_t batch_size = 0;
  std::vector<TensorSpec> tensors;
};

// OK when every variant agrees with the first and each has its batch size as every tensor's
// leading dimension; else INVALID_ARGUMENT naming the model, the variant (by its batch size),
// the tensor and the difference, e.g. "model 'resnet': variant of batch 8: tensor 'input' has
// shape [8,3,224,225], but the variant of batch 1 has [1,3,224,224]: past the batch
// dimension the shapes must match".
absl::Status CheckBatchVariants(const std::string& model, const std::vector<VariantTensors>& variants);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_LIFECYCLE_BATCH_VARIANTS_H_
