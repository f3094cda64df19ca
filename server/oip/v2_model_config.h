// The model configuration as Triton's ModelConfig RPC and GET /v2/models/{name}/config report
// it (inference.ModelConfig, proto/inference/model_config.proto), built from the serving
// version: what perf_analyzer and tritonclient read, agreeing with ModelMetadata.
//
//   name, platform and backend        the model's name; "neuron" (ModelMetadata's platform)
//   max_batch_size                    0 without a batch dimension; else the most rows a request
//                                     may carry, and every tensor's dims leave the batch out
//                                     (ModelMetadata reports dim 0 as -1 then)
//   input, output                     name, data_type (TritonDataType, triton_data_type.h: fp8,
//                                     fp32r and unknown dtypes are TYPE_INVALID), dims
//   dynamic_batching                  for a model with batch variants: its preferred sizes,
//                                     delay and queue policy
//   instance_group                    one group of kind KIND_MODEL, count = the replicas
//   version_policy                    latest { num_versions: 1 }: one version serves at a time
//   model_transaction_policy          decoupled false (one answer per request)
//   response_cache                    enable false
//   parameters                        what Triton has no field for: "neuron_cores" (each
//                                     replica's cores, "0-1;2-3"), "neuron_pipeline_depth",
//                                     "neuron_batch_variants" ("1,4,8"), "neuron_version_label"
//
// Thread safety: pure functions over a leased model; callable from any thread.
#ifndef NEURON_SERVE_SERVER_OIP_V2_MODEL_CONFIG_H_
#define NEURON_SERVE_SERVER_OIP_V2_MODEL_CONFIG_H_

#include <string>

#include "absl/status/status.h"
#include "core/lifecycle/model_registry.h"
#include "inference/model_config.pb.h"

namespace neuronserve {

// The configuration of `name`'s serving version: NOT_FOUND naming the model when it has none,
// FAILED_PRECONDITION when `version` is given and names another (ModelMetadata's errors).
absl::Status V2ModelConfig(const ModelRegistry& registry, const std::string& name,
                           const std::string& version, inference::ModelConfig& out);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_OIP_V2_MODEL_CONFIG_H_
