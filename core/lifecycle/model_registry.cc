#include "core/lifecycle/model_registry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/lifecycle/model_name.h"
#include "core/lifecycle/model_store.h"
#include "core/nrt/nrt_runtime.h"
#include "core/serving/execution/core_range.h"
#include "core/serving/execution/worker_pool.h"
#include "spdlog/spdlog.h"
#include "util/crash_point.h"
#include "util/fmt_absl.h"

namespace neuronserve {

ModelRegistry::ModelRegistry(const NrtRuntime& runtime, WorkerPool& workers, ModelStore* store,
                             RegistryOptions options)
    : store_(store),
      options_(options),
      workers_(workers),
      allocator_(workers.core_count()),
      loader_(runtime, allocator_, workers,
              VersionLoaderOptions{options.unload_timeout, options.max_queue,
                                   options.pipeline_depth, options.metrics, options.queued_bytes}),
      executor_(std::make_unique<SerialExecutor>()) {}

ModelRegistry::~ModelRegistry() {
  // Let queued loads and unloads finish first: their callbacks are owed an answer.
  executor_.reset();
  std::map<std::string, Entry> entries;
  {
    MutexLock lock(&mutex_);
    entries.swap(entries_);
  }
  for (auto& [name, entry] : entries) {
    if (entry.serving == nullptr) continue;
    loader_.Retire(std::move(entry.serving));
    spdlog::info("model '{}' unloaded (shutdown; its state record, if any, is kept)", name);
  }
}

void ModelRegistry::Load(LoadSpec spec, Callback done) {
  if (absl::Status valid = ValidateModelName(spec.identity.name); !valid.ok()) {
    done(valid);
    return;
  }
  if (absl::Status valid = ValidateModelVersion(spec.identity.version); !valid.ok()) {
    done(valid);
    return;
  }
  absl::Status refused;
  {
    MutexLock lock(&mutex_);
    // Under the lock that inserts the entry, so two loads cannot both take the last place.
    refused = CheckModelLimit(spec.identity.name);
    if (refused.ok()) {
      auto [it, inserted] = entries_.try_emplace(spec.identity.name);
      Entry& entry = it->second;
      if (!inserted) {
        if (entry.state == ModelState::kUnloading || entry.state == ModelState::kLoading ||
            entry.loading_new_version) {
          const std::string busy = entry.state == ModelState::kUnloading ? "unloading" : "loading";
          done(absl::FailedPreconditionError(absl::StrCat("model '", spec.identity.name, "' is ",
                                                          busy, "; try again when it is done")));
          return;
        }
      }
      if (entry.state == ModelState::kReady) {
        entry.loading_new_version = true;  // the old version keeps serving meanwhile
      } else {
        entry.state = ModelState::kLoading;
        entry.error.clear();
      }
      entry.identity = spec.identity;
    }
  }
  if (!refused.ok()) {
    done(std::move(refused));  // no lock held: a caller may record the failure (startup)
    return;
  }
  AnnounceStateChange();
  spdlog::info("model {} loading ({}, {} bytes{})", QuotedModel(spec.identity),
               ModelSourceName(spec.identity.source), spec.TotalNeffBytes(),
               spec.variants.empty() ? std::string()
                                     : absl::StrCat(" in ", spec.variants.size(), " variants"));
  executor_->Submit([this, spec = std::move(spec), done = std::move(done)]() mutable {
    RunLoad(std::move(spec), std::move(done));
  });
}

absl::Status ModelRegistry::UnknownModel(const std::string& name) const {
  // The first few by name: enough to spot a typo, short enough for a log line.
  constexpr size_t kNamesShown = 10;
  std::string names;
  size_t shown = 0;
  for (const auto& [known, entry] : entries_) {
    if (shown++ == kNamesShown) {
      absl::StrAppend(&names, " and ", entries_.size() - kNamesShown, " more");
      break;
    }
    absl::StrAppend(&names, names.empty() ? "" : ", ", "'", known, "'");
  }
  return absl::NotFoundError(
      absl::StrCat("Request for unknown model: '", name, "' is not found (",
                   names.empty() ? "no model is loaded" : absl::StrCat("loaded: ", names), ")"));
}

absl::Status ModelRegistry::CheckModelLimit(const std::string& name) const {
  if (options_.max_models == 0) return absl::OkStatus();
  auto counts = [](const Entry& entry) { return entry.state != ModelState::kFailed; };
  if (auto it = entries_.find(name); it != entries_.end() && counts(it->second)) {
    return absl::OkStatus();  // a new version of a model that already counts
  }
  const size_t counted = static_cast<size_t>(std::count_if(
      entries_.begin(), entries_.end(), [&](const auto& named) { return counts(named.second); }));
  if (counted < options_.max_models) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrCat("cannot load model '", name, "': ", counted,
                   " models are loaded or loading, the most --max-models=", options_.max_models,
                   " allows; unload one first"));
}

void ModelRegistry::RunLoad(LoadSpec spec, Callback done) {
  const std::string name = spec.identity.name;
  absl::StatusOr<std::shared_ptr<LoadedModel>> loaded = loader_.Load(spec);
  // Whether this load replaces a serving version matters only to the test-only crash point:
  // a daemon without it armed takes no lock for it.
  if (loaded.ok() && ArmedCrashPoint().has_value()) {
    bool replacing = false;
    {
      MutexLock lock(&mutex_);
      auto it = entries_.find(name);
      replacing = it != entries_.end() && it->second.loading_new_version;
    }
    if (replacing) CrashPoint(kCrashReplaceNewVersionLoaded);
  }
  if (loaded.ok() && spec.persist && store_ != nullptr) {
    auto bytes = [](const std::string& neff) {
      return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(neff.data()), neff.size());
    };
    std::vector<NeffToSave> neffs;
    if (spec.variants.empty()) neffs.push_back({0, bytes(*spec.neff), spec.neff_sha256});
    for (const VariantSpec& variant : spec.variants) {
      neffs.push_back({variant.batch_size, bytes(*variant.neff), variant.neff_sha256});
    }
    absl::Status saved = store_->Save(name, spec.identity.version, neffs, spec.config_text);
    if (!saved.ok()) {
      loader_.Retire(*std::move(loaded));
      loaded = absl::Status(saved.code(), absl::StrCat("model '", name,
                                                       "' loaded but could not be recorded in "
                                                       "the state directory: ",
                                                       saved.message()));
    }
  }

  // Workers serve the version before anyone can reach it through Acquire.
  if (loaded.ok()) loader_.Attach(**loaded);

  std::shared_ptr<LoadedModel> replaced;
  absl::StatusOr<ModelInfo> result;
  {
    MutexLock lock(&mutex_);
    Entry& entry = entries_[name];
    entry.loading_new_version = false;
    if (loaded.ok()) {
      replaced = std::move(entry.serving);
      entry.serving = *loaded;
      entry.state = ModelState::kReady;
      entry.identity = spec.identity;
      entry.error.clear();
      result = Describe(entry);
    } else {
      // Triton's words first ("failed to load 'NAME'"), as scripts match them; the state keeps
      // the reason alone.
      result = absl::Status(loaded.status().code(), absl::StrCat("failed to load '", name,
                                                                 "': ", loaded.status().message()));
      if (entry.serving == nullptr) {
        entry.state = ModelState::kFailed;
        entry.error = std::string(loaded.status().message());
      }  // else the old version keeps serving
    }
  }
  if (loaded.ok()) {
    const LoadedModel& model = **loaded;
    std::vector<CoreRange> ranges;
    for (const auto& replica : model.replicas()) ranges.push_back(replica->cores);
    spdlog::info("model {} ready on cores {} ({} replica{}, loaded in {})",
                 QuotedModel(spec.identity), FormatCoreRanges(ranges), ranges.size(),
                 ranges.size() == 1 ? "" : "s", absl::FormatDuration(model.load_duration()));
  } else {
    spdlog::warn("model {} failed to load: {}", QuotedModel(spec.identity),
                 loaded.status().message());
  }
  // Drop this thread's reference to the error before handing `result` over: absl::Status counts
  // references inside Debian's uninstrumented libabsl, so TSAN cannot see that the caller's
  // last reference is ordered after ours and would report the caller's free as a race.
  loaded = std::shared_ptr<LoadedModel>();
  AnnounceStateChange();
  // Answer before retiring the old version: the new one already serves.
  done(std::move(result));
  if (replaced != nullptr) {
    CrashPoint(kCrashReplaceOldVersionRetiring);
    loader_.Retire(std::move(replaced));
  }
}

void ModelRegistry::Unload(const std::string& name, Callback done) {
  {
    MutexLock lock(&mutex_);
    auto it = entries_.find(name);
    if (it == entries_.end()) {
      done(UnknownModel(name));
      return;
    }
    Entry& entry = it->second;
    if (entry.state == ModelState::kLoading || entry.loading_new_version ||
        entry.state == ModelState::kUnloading) {
      done(absl::FailedPreconditionError(
          absl::StrCat("model '", name, "' is ",
                       entry.state == ModelState::kUnloading ? "already unloading" : "loading",
                       "; try again when it is done")));
      return;
    }
    entry.state = entry.state == ModelState::kFailed ? ModelState::kFailed : ModelState::kUnloading;
  }
  AnnounceStateChange();
  executor_->Submit(
      [this, name, done = std::move(done)]() mutable { RunUnload(name, std::move(done)); });
}

void ModelRegistry::RunUnload(const std::string& name, Callback done) {
  std::shared_ptr<LoadedModel> model;
  ModelInfo info;
  {
    MutexLock lock(&mutex_);
    auto it = entries_.find(name);
    if (it == entries_.end()) {
      done(UnknownModel(name));
      return;
    }
    info = Describe(it->second);
    // Acquire stops handing out leases now; the entry stays visible as UNLOADING.
    model = it->second.serving;
  }
  spdlog::info("model '{}' unloading", name);
  if (model != nullptr) {
    loader_.Detach(*model);
    {
      // The entry stays (UNLOADING) until the unload is done, but without its reference, so
      // that nrt_unload runs here, outside the registry's lock, and not in erase() below.
      MutexLock lock(&mutex_);
      entries_[name].serving.reset();
    }
    loader_.Unload(std::move(model));
  }
  CrashPoint(kCrashUnloadDeviceUnloaded);
  absl::Status kept_record;
  if (store_ != nullptr) {
    absl::Status removed = store_->Remove(name);
    if (!removed.ok() && !absl::IsNotFound(removed)) {
      spdlog::warn("model '{}': cannot remove its state record: {}", name, removed.message());
      // Not an acknowledged unload: the record would bring the model back at the next start.
      kept_record = absl::InternalError(
          absl::StrCat("model '", name,
                       "' is unloaded from the device, but its record in the state directory "
                       "could not be removed (",
                       removed.message(), "): it will load again when the daemon restarts"));
    }
  }
  {
    MutexLock lock(&mutex_);
    entries_.erase(name);
  }
  AnnounceStateChange();
  spdlog::info("model '{}' unloaded", name);
  if (!kept_record.ok()) {
    done(std::move(kept_record));
    return;
  }
  done(std::move(info));
}

ModelInfo ModelRegistry::Describe(const Entry& entry) const {
  if (entry.serving != nullptr) {
    ModelInfo info = DescribeLoadedModel(*entry.serving, entry.state);
    return info;
  }
  ModelInfo info;
  info.identity = entry.identity;
  info.state = entry.state;
  info.error = entry.error;
  return info;
}

void ModelRegistry::RecordFailure(const ModelIdentity& identity, const absl::Status& error) {
  spdlog::warn("model {} failed to load: {}", QuotedModel(identity), error.message());
  {
    MutexLock lock(&mutex_);
    auto [it, inserted] = entries_.try_emplace(identity.name);
    if (!inserted) return;
    it->second.state = ModelState::kFailed;
    it->second.identity = identity;
    it->second.error = std::string(error.message());
  }
  AnnounceStateChange();
}

absl::StatusOr<ModelInfo> ModelRegistry::Get(const std::string& name) const {
  MutexLock lock(&mutex_);
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    return UnknownModel(name);
  }
  return Describe(it->second);
}

std::vector<ModelInfo> ModelRegistry::List() const {
  MutexLock lock(&mutex_);
  std::vector<ModelInfo> infos;
  for (const auto& [name, entry] : entries_) infos.push_back(Describe(entry));
  return infos;
}

std::vector<std::vector<std::string>> ModelRegistry::ResidentsByCore() const {
  std::vector<std::vector<std::string>> residents(allocator_.core_count());
  std::vector<std::vector<CoreHolder>> holders = allocator_.Holders();
  for (size_t core = 0; core < holders.size(); ++core) {
    for (const CoreHolder& holder : holders[core]) {
      std::vector<std::string>& names = residents[core];
      if (std::find(names.begin(), names.end(), holder.owner) == names.end()) {
        names.push_back(holder.owner);
      }
    }
  }
  return residents;
}

absl::StatusOr<LoadedModel::Lease> ModelRegistry::Acquire(const std::string& name) const {
  MutexLock lock(&mutex_);
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    return UnknownModel(name);
  }
  const Entry& entry = it->second;
  if (entry.state != ModelState::kReady || entry.serving == nullptr) {
    // Triton's words for a model without a version to serve, then its state and why.
    return absl::NotFoundError(absl::StrCat(
        "Request for unknown model: '", name, "' has no available versions (it is ",
        ModelStateName(entry.state), entry.error.empty() ? "" : ": ", entry.error, ")"));
  }
  return LoadedModel::Lease(entry.serving);
}

}  // namespace neuronserve
