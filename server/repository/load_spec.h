// ModelConfig (proto) -> LoadSpec (core/): what to load, where to place it, and how to schedule
// its requests (one per execution, or batched over its compiled variants).
//
// Plain functions of their arguments: thread-safe.
#ifndef NEURON_SERVE_SERVER_REPOSITORY_LOAD_SPEC_H_
#define NEURON_SERVE_SERVER_REPOSITORY_LOAD_SPEC_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/lifecycle/model_registry.h"
#include "neuronserve/v1/model_config.pb.h"
#include "server/repository/model_repository.h"

namespace neuronserve {

// The NEFF bytes of one model: the one NEFF of a model without `variant`, or one per
// config.variant(), in its order.
using ModelNeffs = std::vector<std::shared_ptr<const std::string>>;

// OK, or INVALID_ARGUMENT naming the model and the field, for a config whose batching fields
// (`variant`, `max_batch_size`, `dynamic_batching`) contradict each other or ask for what this
// daemon does not implement (several priority levels, preserve_ordering, timeout_action DELAY).
// Reads no file: a variant's `file` is the repository's to check, its digest whoever reads the
// bytes'.
absl::Status CheckBatchingConfig(const v1::ModelConfig& config);

// CheckBatchingConfig, and INVALID_ARGUMENT naming the model and the field for a pipeline_depth
// past kMaxPipelineDepth (core/serving/model/loaded_model.h). What every path that loads a config
// checks before it reads or receives a NEFF byte.
absl::Status CheckModelConfig(const v1::ModelConfig& config);

// `neffs` as ModelNeffs says; `source`: where the bytes came from; `persist` records the model
// in the state directory once READY (the config travels with it in text format). Errors are
// CheckModelConfig's, and INVALID_ARGUMENT when `neffs` does not match the variants.
// Queue bound: default_queue_policy.max_queue_size when set, else max_queue (0: the daemon's
// --max-queue). Pipeline depth: pipeline_depth as given (0: the daemon's --pipeline-depth).
absl::StatusOr<LoadSpec> LoadSpecFromConfig(const v1::ModelConfig& config, ModelNeffs neffs,
                                            ModelSource source, bool persist);

// A resolved repository model's spec with `config` (the model's own, or merged with a LoadModel
// header's overrides): reads its NEFF, or each variant's, now, and checks a variant's bytes
// against the sha256 its config states (INVALID_ARGUMENT naming the variant and both digests).
// Errors otherwise are the reads' and LoadSpecFromConfig's.
absl::StatusOr<LoadSpec> RepositoryModelLoadSpec(const RepositoryModel& model,
                                                 const v1::ModelConfig& config, bool persist);

// `base` with every field `overrides` sets (name, version, placement, queue, core count,
// pipeline_depth, max_batch_size, dynamic_batching) replaced. The NEFFs (`file`, `variant`)
// stay `base`'s.
v1::ModelConfig MergeConfig(v1::ModelConfig base, const v1::ModelConfig& overrides);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REPOSITORY_LOAD_SPEC_H_
