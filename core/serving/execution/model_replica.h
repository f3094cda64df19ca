// ModelReplica: one replica of a model, every compiled variant of it loaded on the replica's
// cores with its bound tensor sets; ReplicaVariant: one of those variants.
//
// The replica is the unit the execution layer runs: a core worker claims one of its free tensor
// sets per execution. What stays bound on the device across executions belongs here, beside the
// per-execution sets: today each NEFF's own constants (inside its NrtModel); device-resident
// weights and state, bound once per replica and shared by every variant, join them here.
//
// Thread safety: built by the loader before the replica is attached to its worker; after that
// only `free_tensor_sets`, `healthy` and `executions` change (atomics), the rest is read-only.
#ifndef NEURON_SERVE_CORE_SERVING_EXECUTION_MODEL_REPLICA_H_
#define NEURON_SERVE_CORE_SERVING_EXECUTION_MODEL_REPLICA_H_

#include <atomic>
#include <cstdint>
#include <vector>

#include "core/metrics/serving_metrics.h"
#include "core/nrt/nrt_handles.h"
#include "core/serving/execution/core_range.h"
#include "core/serving/execution/replica_tensors.h"

namespace neuronserve {

// One compiled variant of the model on a replica's cores: its NEFF loaded there, and the device
// tensors bound for it. Used by the replica's worker only.
struct ReplicaVariant {
  // The rows of the variant's batch dimension (the leading one of every tensor); 0: the model
  // has no batch dimension, and each execution runs one request's whole tensors.
  uint32_t batch_size = 0;
  NrtModel model;
  // The bound tensor sets, one per pipeline stage (ModelReplica::pipeline_depth of them); an
  // ExecutionUnit names the one it uses, which no other unit uses until it ends. Declared after
  // the model so they are freed before it is unloaded.
  std::vector<ReplicaTensors> tensor_sets;
  // A batched model's per-variant metrics (owned by ServingMetrics, valid while the model holds
  // its request metrics); null when unbatched or when the daemon keeps no metrics. Set at
  // load, before the replica is attached.
  const VariantMetrics* metrics = nullptr;
};

// The most tensor sets a replica binds per variant (ModelConfig.pipeline_depth's limit).
inline constexpr uint32_t kMaxPipelineDepth = 8;

struct ModelReplica {
  // Every variant of the model, loaded on `cores` (an ExecutionUnit names one by index); never
  // empty once the replica is loaded.
  std::vector<ReplicaVariant> variants;
  CoreRange cores;
  // How many of the replica's units may be in flight on its core at once (1..kMaxPipelineDepth):
  // one executing while the next one's inputs are written and the last one's outputs read, each
  // in a tensor set of its own. Every variant binds this many sets. Set at load.
  uint32_t pipeline_depth = 1;
  // Bit i set: tensor set i (of every variant) is free. Only the replica's worker touches it:
  // it claims a set when it takes a unit (under its bindings lock, so claims never race), and
  // gives it back when the unit ends, from whichever of its threads ends it.
  std::atomic<uint32_t> free_tensor_sets{1};
  // The device memory the replica's tensor sets take (every variant's, every set's).
  uint64_t TensorBytes() const;
  // Sets pipeline_depth, every set free. Before the replica is attached to its worker.
  void SetPipelineDepth(uint32_t depth) {
    pipeline_depth = depth;
    free_tensor_sets.store((uint32_t{1} << depth) - 1, std::memory_order_relaxed);
  }
  // False once an execution failed in hardware: the replica is out of rotation for good.
  std::atomic<bool> healthy{true};
  std::atomic<uint64_t> executions{0};
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_EXECUTION_MODEL_REPLICA_H_
