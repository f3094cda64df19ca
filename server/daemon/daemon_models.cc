// Daemon's model sources (daemon.h): where models come from at start (the state directory, the
// model repository or --model-dir) and the startup loads themselves. Called by Daemon::Start on
// its one thread, before and after the listeners start.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/lifecycle/model_registry.h"
#include "core/lifecycle/model_store.h"
#include "server/daemon/daemon.h"
#include "server/repository/model_dir.h"
#include "server/repository/startup_models.h"

namespace neuronserve {

absl::Status Daemon::OpenModelSources(const DaemonOptions& options, std::string& load_models,
                                      std::optional<RepositoryModel>& model_dir_model) {
  if (!options.state_dir.empty()) {
    absl::StatusOr<std::unique_ptr<ModelStore>> store = ModelStore::Open(options.state_dir);
    if (!store.ok()) return store.status();
    store_ = *std::move(store);
  }
  load_models = options.load_models;
  model_dir_model.reset();
  if (!options.model_dir.empty()) {
    absl::StatusOr<ModelDirContents> contents =
        InspectModelDir(options.model_dir, options.model_name);
    if (!contents.ok()) return contents.status();
    model_dir_model = contents->model;
    if (!model_dir_model.has_value()) {  // a repository: served as --model-repository would be
      repository_ = contents->folder;
      load_models = absl::StrJoin(contents->model_folders, ",");
    }
  } else if (!options.model_repository.empty()) {
    absl::StatusOr<ModelRepository> repository = ModelRepository::Open(options.model_repository);
    if (!repository.ok()) return repository.status();
    repository_ = *std::move(repository);
  } else if (!options.load_models.empty()) {
    return absl::InvalidArgumentError("--load-models needs --model-repository");
  }
  return absl::OkStatus();
}

absl::Status Daemon::LoadStartup(const DaemonOptions& options, const std::string& load_models,
                                 const std::optional<RepositoryModel>& model_dir_model) {
  LoadStartupModels(*registry_, repository_.has_value() ? &*repository_ : nullptr, load_models,
                    store_.get(), model_dir_model.has_value() ? &*model_dir_model : nullptr);
  if (!options.model_dir.empty()) {
    // --model-dir is how KServe runs the daemon: a pod whose model cannot serve must not pass
    // its readiness probe (health counts a FAILED startup model as settled), so it fails to
    // start instead, with the reason in its log, and Kubernetes shows and retries it.
    std::vector<std::string> failed;
    for (const ModelInfo& info : registry_->List()) {
      if (info.state == ModelState::kFailed) {
        failed.push_back(absl::StrCat("'", info.identity.name, "' (", info.error, ")"));
      }
    }
    if (!failed.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "--model-dir '", options.model_dir, "' holds model ", absl::StrJoin(failed, " and "),
          ", which failed to load; every model of --model-dir must load"));
    }
  }
  return absl::OkStatus();
}

}  // namespace neuronserve
