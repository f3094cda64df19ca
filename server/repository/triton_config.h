// Triton's model configuration (inference.ModelConfig, proto/inference/model_config.proto) as
// neuron-serve loads it: a model folder laid out as Triton lays it out, with a config.pbtxt in
// Triton's schema, loads unchanged. Which of the two schemas a configuration is in is told by
// model_config_schema.h; Triton's data types map to neuron-serve's by triton_data_type.h.
//
// What a Triton configuration means here (FromTritonConfig):
//   - `backend`/`platform`/`runtime`: empty or "neuron"; anything else refuses the load.
//   - version folders `1/`, `2/`, ... hold the NEFF (`default_model_filename`, default
//     model.neff); `version_policy` picks one (latest 1 by default, or `specific` with one
//     version, or `all` with one folder): neuron-serve serves one version of a name at a time.
//     A folder without version folders holds the NEFF itself (version 1, no label).
//   - `max_batch_size` > 0: the NEFF is compiled for that many rows (one variant), or the
//     parameter "neuron_batch_variants" lists the compiled variants as "SIZE:FILE,SIZE:FILE"
//     (files in the version folder); `dynamic_batching` configures the batcher.
//   - `instance_group`: the replicas, the sum of the groups' counts (kind KIND_MODEL or
//     KIND_AUTO); parameter "neuron_start_cores" ("0,2") places them explicitly.
//   - `input`/`output`: checked against the NEFF's tensors once loaded (name, data type, dims).
//   - parameters "neuron_pipeline_depth", "neuron_core_count", "neuron_max_queue",
//     "neuron_shared" ("true") set what neuron-serve's schema calls pipeline_depth, core_count,
//     max_queue and shared; "neuron_cores" and "neuron_version_label", which ModelConfig reports,
//     are accepted and not read.
//   - Refused, naming the field: sequence_batching, ensemble_scheduling, decoupled transactions,
//     batch_input/batch_output, reshape, optional or shape-tensor or ragged inputs, GPU or CPU
//     instance kinds, passive instances.
//   - Accepted without effect, named in one warning when the model loads: every other field
//     (optimization, model_warmup, response_cache, metric_tags, rate limiters, other
//     parameters, ...).
//
// Thread safety: pure functions, apart from reading the model folder's listing.
#ifndef NEURON_SERVE_SERVER_REPOSITORY_TRITON_CONFIG_H_
#define NEURON_SERVE_SERVER_REPOSITORY_TRITON_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/lifecycle/declared_tensors.h"
#include "inference/model_config.pb.h"
#include "neuronserve/v1/model_config.pb.h"

namespace neuronserve {

// The parameter that lists a Triton configuration's compiled variants, "SIZE:FILE,SIZE:FILE".
inline constexpr char kTritonBatchVariantsParameter[] = "neuron_batch_variants";

// Triton's version folders of the model folder `folder`: its numeric subfolders, ascending.
std::vector<int64_t> VersionFolders(const std::string& folder);

struct TritonModelConfig {
  // What neuron-serve loads: name, version (the version folder's number), file or variants
  // (relative to the model folder, e.g. "3/model.neff"), placement, batching.
  v1::ModelConfig config;
  std::vector<DeclaredTensor> declared_tensors;
  // The fields accepted without effect, as "optimization", "parameters 'x'", ...
  std::vector<std::string> ignored_fields;
};

// `triton` for the model folder `folder` (absolute); `where` names the configuration in errors.
// INVALID_ARGUMENT naming the field for what neuron-serve refuses; NOT_FOUND when the version
// the policy picks has no folder.
absl::StatusOr<TritonModelConfig> FromTritonConfig(const inference::ModelConfig& triton,
                                                   const std::string& folder,
                                                   const std::string& where);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REPOSITORY_TRITON_CONFIG_H_
