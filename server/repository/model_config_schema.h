// The two schemas a model configuration may be written in, and the rule that tells them apart:
// neuron-serve's own (neuronserve.v1.ModelConfig) and Triton's (inference.ModelConfig, which
// triton_config.h converts), for a config.pbtxt and for RepositoryModelLoad's `config`.
//
// The rule, exact (README, "Two configuration schemas"):
//   1. A configuration that parses as neuron-serve's schema is neuron-serve's, unless it (merged
//      with the folder's, for RepositoryModelLoad) sets `max_batch_size` or `dynamic_batching`
//      without `variant` - which neuron-serve's schema refuses and Triton's means.
//      A config.pbtxt is also Triton's when it names no `file` and no `variant`, no NEFF sits
//      beside it under the default name, and the folder has version folders (`1/`): Triton's
//      layout, with only fields both schemas have (a `name`). That part needs the folder, so
//      model_repository.cc applies it, with VersionFolders (triton_config.h).
//   2. Otherwise one that parses as Triton's schema is Triton's.
//   3. Otherwise it is refused, with each parser's first error.
// A field only Triton has (`backend`, `platform`, `input`, `instance_group`, ...) makes rule 1
// fail to parse; a field only neuron-serve has (`file`, `replicas`, `variant`, ...) rule 2.
//
// Thread safety: pure functions.
#ifndef NEURON_SERVE_SERVER_REPOSITORY_MODEL_CONFIG_SCHEMA_H_
#define NEURON_SERVE_SERVER_REPOSITORY_MODEL_CONFIG_SCHEMA_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "inference/model_config.pb.h"
#include "neuronserve/v1/model_config.pb.h"

namespace neuronserve {

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

// True when `config` sets max_batch_size or dynamic_batching without variant (rule 1).
bool BatchesWithoutVariants(const v1::ModelConfig& config);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REPOSITORY_MODEL_CONFIG_SCHEMA_H_
