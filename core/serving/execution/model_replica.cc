#include "core/serving/execution/model_replica.h"

namespace neuronserve {

uint64_t ModelReplica::TensorBytes() const {
  uint64_t total = 0;
  for (const ReplicaVariant& variant : variants) {
    for (const ReplicaTensors& set : variant.tensor_sets) {
      for (size_t bytes : set.input_bytes) total += bytes;
      for (size_t bytes : set.output_bytes) total += bytes;
    }
  }
  return total;
}

}  // namespace neuronserve
