// Triton's model configuration (inference.ModelConfig, proto/inference/model_config.proto) as
// neuron-serve loads it: a model folder laid out as Triton lays it out, with a config.pbtxt in
// Triton's schema, loads unchanged; and the rule that tells Triton's schema from neuron-serve's
// own (neuronserve.v1.ModelConfig), for a config.pbtxt and for RepositoryModelLoad's `config`.
//
// The rule, exact (README, "Two configuration schemas"):
//   1. A configuration that parses as neuron-serve's schema is neuron-serve's, unless it (merged
//      with the folder's, for RepositoryModelLoad) sets `max_batch_size` or `dynamic_batching`
//      without `variant` - which neuron-serve's schema refuses and Triton's means.
//      A config.pbtxt is also Triton's when it names no `file` and no `variant`, no NEFF sits
//      beside it under the default name, and the folder has version folders (`1/`): Triton's
//      layout, with only fields both schemas have (a `name`).
//   2. Otherwise one that parses as Triton's schema is Triton's.
//   3. Otherwise it is refused, with each parser's first error.
// A field only Triton has (`backend`, `platform`, `input`, `instance_group`, ...) makes rule 1
// fail to parse; a field only neuron-serve has (`file`, `replicas`, `variant`, ...) rule 2.
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
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/dtype.h"
#include "core/lifecycle/declared_tensors.h"
#include "inference/model_config.pb.h"
#include "neuronserve/v1/model_config.pb.h"

namespace neuronserve {

// The parameter that lists a Triton configuration's compiled variants, "SIZE:FILE,SIZE:FILE".
inline constexpr char kTritonBatchVariantsParameter[] = "neuron_batch_variants";

// One configuration, read by the rule above: exactly one of the two is set.
struct ParsedModelConfig {
  std::optional<v1::ModelConfig> own;
  std::optional<inference::ModelConfig> triton;
};

// A config.pbtxt's text. `where` names it in errors ("'mlp/config.pbtxt'").
absl::StatusOr<ParsedModelConfig> ParseModelConfigText(const std::string& text,
                                                       const std::string& where);

// RepositoryModelLoad's `config` (JSON), to be merged over `base` (the folder's configuration as
// neuron-serve's schema, converted when the folder's is Triton's) when it is neuron-serve's.
absl::StatusOr<ParsedModelConfig> ParseModelConfigJson(const std::string& json,
                                                       const v1::ModelConfig& base,
                                                       const std::string& where);

// Triton's version folders of the model folder `folder`: its numeric subfolders, ascending.
std::vector<int64_t> VersionFolders(const std::string& folder);

// True when `config` sets max_batch_size or dynamic_batching without variant (rule 1).
bool BatchesWithoutVariants(const v1::ModelConfig& config);

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

// Triton's TYPE_ of a tensor dtype: TYPE_FP32, TYPE_FP16, TYPE_BF16, TYPE_INT8 .. TYPE_UINT64.
// The dtypes Triton has no type for (fp8_e3, fp8_e4, fp8_e5, fp32r, unknown) are TYPE_INVALID.
inference::DataType TritonDataType(DataType dtype);
// The inverse; nullopt for TYPE_INVALID and the types no NEFF tensor holds (BOOL, FP64, STRING).
std::optional<DataType> DataTypeFromTriton(inference::DataType type);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REPOSITORY_TRITON_CONFIG_H_
