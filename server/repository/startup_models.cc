#include "server/repository/startup_models.h"

#include <memory>
#include <utility>

#include "absl/strings/str_split.h"
#include "absl/synchronization/blocking_counter.h"
#include "google/protobuf/text_format.h"
#include "server/repository/load_spec.h"
#include "spdlog/spdlog.h"
#include "util/fmt_absl.h"
#include "util/posix_file.h"

namespace neuronserve {
namespace {

// Loads every spec and waits until each has answered.
void LoadAndWait(ModelRegistry& registry, std::vector<LoadSpec> specs) {
  absl::BlockingCounter remaining(static_cast<int>(specs.size()));
  for (LoadSpec& spec : specs) {
    // Failures are logged by the registry and leave the model FAILED, except a load refused up
    // front for --max-models: that one is recorded FAILED here, so it shows why it is missing.
    const ModelIdentity identity = spec.identity;
    registry.Load(std::move(spec), [&remaining, &registry,
                                    identity](const absl::StatusOr<ModelInfo>& result) {
      if (absl::IsResourceExhausted(result.status()) && !registry.Get(identity.name).ok()) {
        spdlog::error("model '{}' not loaded: {}", identity.name, result.status().message());
        registry.RecordFailure(identity, result.status());
      }
      remaining.DecrementCount();
    });
  }
  remaining.Wait();
}

}  // namespace

std::vector<LoadSpec> RepositoryLoadSpecs(const ModelRepository& repository,
                                          const std::string& load_models,
                                          std::vector<StartupFailure>* failures) {
  std::vector<std::string> names;
  if (load_models == "all") {
    absl::StatusOr<std::vector<std::string>> folders = repository.ModelFolders();
    if (folders.ok()) {
      names = *std::move(folders);
    } else {
      spdlog::error("{}", folders.status().message());
    }
  } else {
    names = absl::StrSplit(load_models, ',', absl::SkipEmpty());
  }
  std::vector<LoadSpec> specs;
  for (const std::string& name : names) {
    absl::StatusOr<RepositoryModel> model = repository.Resolve(name);
    absl::StatusOr<LoadSpec> spec =
        model.ok() ? RepositoryModelLoadSpec(*model, model->config, /*persist=*/false)
                   : absl::StatusOr<LoadSpec>(model.status());
    if (!spec.ok()) {
      failures->push_back(
          StartupFailure{ModelIdentity{name, "", ModelSource::kRepository}, spec.status()});
      continue;
    }
    specs.push_back(*std::move(spec));
  }
  return specs;
}

std::vector<LoadSpec> StateDirectoryLoadSpecs(const ModelStore& store) {
  std::vector<std::string> problems;
  absl::StatusOr<std::vector<StoredModel>> stored = store.List(&problems);
  if (!stored.ok()) {
    spdlog::error("cannot read the state directory: {}", stored.status().message());
    return {};
  }
  std::vector<LoadSpec> specs;
  for (const StoredModel& model : *stored) {
    v1::ModelConfig config;
    if (!google::protobuf::TextFormat::ParseFromString(model.config_text, &config)) {
      spdlog::error("model '{}' in the state directory has an unreadable config; skipped",
                    model.name);
      continue;
    }
    absl::StatusOr<std::vector<std::string>> bytes = store.ReadNeffs(model);
    if (!bytes.ok()) {
      spdlog::error("model '{}' in the state directory: {}", model.name, bytes.status().message());
      continue;
    }
    // The record's NEFFs are the config's: the one NEFF, or its variants in order.
    bool matches = bytes->size() == (config.variant().empty() ? 1u : config.variant().size());
    for (size_t i = 0; matches && i < model.neffs.size(); ++i) {
      matches = model.neffs[i].batch_size ==
                (config.variant().empty() ? 0u : config.variant(static_cast<int>(i)).batch_size());
    }
    if (!matches) {
      spdlog::error(
          "model '{}' in the state directory: its record's NEFFs are not its config's "
          "variants; skipped",
          model.name);
      continue;
    }
    ModelNeffs neffs;
    for (std::string& neff : *bytes) {
      neffs.push_back(std::make_shared<const std::string>(std::move(neff)));
    }
    absl::StatusOr<LoadSpec> spec =
        LoadSpecFromConfig(config, std::move(neffs), ModelSource::kState, /*persist=*/false);
    if (!spec.ok()) {
      spdlog::error("model '{}' in the state directory: {}", model.name, spec.status().message());
      continue;
    }
    specs.push_back(*std::move(spec));
  }
  return specs;
}

void LoadStartupModels(ModelRegistry& registry, const ModelRepository* repository,
                       const std::string& load_models, const ModelStore* store,
                       const RepositoryModel* model_dir_model) {
  std::vector<LoadSpec> repository_specs;
  std::vector<StartupFailure> failures;
  if (model_dir_model != nullptr) {
    absl::StatusOr<LoadSpec> spec =
        RepositoryModelLoadSpec(*model_dir_model, model_dir_model->config, /*persist=*/false);
    if (spec.ok()) {
      repository_specs.push_back(*std::move(spec));
    } else {
      failures.push_back(StartupFailure{
          ModelIdentity{model_dir_model->config.name(), "", ModelSource::kRepository},
          spec.status()});
    }
  }
  if (repository != nullptr && !load_models.empty()) {
    std::vector<LoadSpec> specs = RepositoryLoadSpecs(*repository, load_models, &failures);
    for (LoadSpec& spec : specs) repository_specs.push_back(std::move(spec));
  }
  // Visible as FAILED, like a model the runtime refused; the others still load.
  for (const StartupFailure& failure : failures) {
    registry.RecordFailure(failure.identity, failure.error);
  }
  LoadAndWait(registry, std::move(repository_specs));

  if (store == nullptr) return;
  std::vector<LoadSpec> state_specs = StateDirectoryLoadSpecs(*store);
  if (!state_specs.empty()) {
    spdlog::info("restoring {} model(s) from the state directory {}", state_specs.size(),
                 store->dir());
  }
  LoadAndWait(registry, std::move(state_specs));
}

}  // namespace neuronserve
