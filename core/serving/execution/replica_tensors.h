// ReplicaTensors: one set of the device tensors a replica executes with, allocated on its core
// and bound into an input set and an output set once, at load. A request then costs one
// nrt_tensor_write per input and one nrt_tensor_read per wanted output, with no allocation or
// binding. A replica binds several (its pipeline depth), so that one unit's copies can run while
// another executes.
//
// Only the replica's own worker uses them, one unit per set at a time.
//
// `inputs` and `outputs` are the per-request tensors, in the order of the model's request
// inputs and outputs (ServedModel::inputs/outputs): the write and read stages copy exactly
// these. A tensor that stays on the device across executions (a weight, a state slot, a slice
// of one) is bound into `input_set`/`output_set` by reference beside them, owned by the replica
// (ModelReplica) and never copied per request; an output aliased to an input binds the same
// device tensor in both sets.
#ifndef NEURON_SERVE_CORE_SERVING_EXECUTION_REPLICA_TENSORS_H_
#define NEURON_SERVE_CORE_SERVING_EXECUTION_REPLICA_TENSORS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/nrt/nrt_handles.h"
#include "core/nrt/nrt_runtime.h"

namespace neuronserve {

struct ReplicaTensors {
  // Allocates a device tensor on `core` for each of `inputs` and `outputs` (same order) and
  // binds them by name. RESOURCE_EXHAUSTED (naming the model and tensor) when memory runs out.
  static absl::StatusOr<ReplicaTensors> Allocate(const NrtRuntime& runtime,
                                                 const std::string& model, uint32_t core,
                                                 const std::vector<TensorSpec>& inputs,
                                                 const std::vector<TensorSpec>& outputs);

  // `count` sets, as Allocate makes one.
  static absl::StatusOr<std::vector<ReplicaTensors>> AllocateSets(
      const NrtRuntime& runtime, const std::string& model, uint32_t core,
      const std::vector<TensorSpec>& inputs, const std::vector<TensorSpec>& outputs,
      uint32_t count);

  // Declared before the sets so that the sets, which refer to them, are destroyed first.
  std::vector<NrtTensor> inputs;
  std::vector<NrtTensor> outputs;
  // Their sizes in bytes (the specs' byte_size), kept so the hot path asks the runtime nothing.
  std::vector<size_t> input_bytes;
  std::vector<size_t> output_bytes;
  NrtTensorSet input_set;
  NrtTensorSet output_set;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_EXECUTION_REPLICA_TENSORS_H_
