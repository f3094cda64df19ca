// The tensors a model's configuration declares (a Triton config.pbtxt's `input` and `output`),
// checked against the ones the runtime lists once the NEFF is loaded: a configuration that
// disagrees with the compiled network refuses the load, naming the tensor, rather than serving a
// model whose clients were told something else.
//
// Thread safety: pure functions.
#ifndef NEURON_SERVE_CORE_LIFECYCLE_DECLARED_TENSORS_H_
#define NEURON_SERVE_CORE_LIFECYCLE_DECLARED_TENSORS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/nrt/nrt_handles.h"

namespace neuronserve {

struct DeclaredTensor {
  std::string name;
  TensorUsage usage = TensorUsage::kInput;
  // The dtype declared; nullopt for a type no NEFF tensor holds (then `type_name` says which).
  std::optional<DataType> dtype;
  std::string type_name;  // as the configuration spells it ("TYPE_FP32"), for messages
  // Past the batch dimension for a batched model; -1 matches any size.
  std::vector<int64_t> dims;
};

// OK when every declared tensor is one of `listed` (the runtime's, of the variant compiled for
// `batch_size` rows; 0 for a model without a batch dimension, whose shapes are compared whole),
// of the same usage, dtype and shape. INVALID_ARGUMENT naming the model, the tensor and the
// expected versus the declared value otherwise. Tensors the configuration leaves out are fine.
absl::Status CheckDeclaredTensors(const std::string& model,
                                  const std::vector<DeclaredTensor>& declared,
                                  const std::vector<TensorSpec>& listed, uint32_t batch_size);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_LIFECYCLE_DECLARED_TENSORS_H_
