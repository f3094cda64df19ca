// Startup model loading: the models the daemon loads before it reports SERVING. First the
// model repository's (--load-models: "all" or "NAME,NAME", or what --model-dir holds), then the
// state directory's (what was loaded through the API before a restart: the newer intent, so it
// replaces a repository model of the same name). Each model ends READY or FAILED; a failure never
// stops the others.
//
// A repository model that cannot be resolved or read is recorded FAILED in the registry (so
// ListModels shows it, like a model the runtime refused); a state-directory model that cannot
// be read is logged and skipped (it is not the operator's current intent for this start).
//
// Thread safety: call once, from the starting thread; LoadStartupModels blocks until every
// load has answered. Ownership: borrows everything passed in, for the call only.
#ifndef NEURON_SERVE_SERVER_REPOSITORY_STARTUP_MODELS_H_
#define NEURON_SERVE_SERVER_REPOSITORY_STARTUP_MODELS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/lifecycle/model_registry.h"
#include "core/lifecycle/model_store.h"
#include "server/repository/model_repository.h"

namespace neuronserve {

// A repository model named at startup that could not be resolved or read.
struct StartupFailure {
  ModelIdentity identity;  // {name, "", ModelSource::kRepository}
  absl::Status error;
};

// The load specs of the repository models `load_models` names ("all": every model folder;
// else "NAME,NAME"), in that order. Each one that cannot be resolved or read goes to
// `failures` instead. A repository that cannot be listed for "all" is logged and yields none.
std::vector<LoadSpec> RepositoryLoadSpecs(const ModelRepository& repository,
                                          const std::string& load_models,
                                          std::vector<StartupFailure>* failures);

// The load specs of the models the state directory holds; each one whose config or NEFF
// cannot be read is logged and skipped, and an unreadable directory is logged and yields none.
std::vector<LoadSpec> StateDirectoryLoadSpecs(const ModelStore& store);

// Loads `model_dir_model` (--model-dir holding one model; none when null) and the repository's
// models (none when `repository` is null or `load_models` is empty), waits for them, then the
// state directory's (none when `store` is null), and waits again.
void LoadStartupModels(ModelRegistry& registry, const ModelRepository* repository,
                       const std::string& load_models, const ModelStore* store,
                       const RepositoryModel* model_dir_model = nullptr);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REPOSITORY_STARTUP_MODELS_H_
