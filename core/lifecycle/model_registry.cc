#include "core/lifecycle/model_registry.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/lifecycle/model_name.h"
#include "core/nrt/nrt_status.h"
#include "spdlog/spdlog.h"
#include "util/fmt_absl.h"

namespace neuronserve {
namespace {

std::string Quoted(const ModelIdentity& identity) {
  if (identity.version.empty()) return absl::StrCat("'", identity.name, "'");
  return absl::StrCat("'", identity.name, "' version '", identity.version, "'");
}

std::string DescribeRanges(const std::vector<CoreRange>& ranges) {
  std::vector<std::string> parts;
  for (const CoreRange& range : ranges) {
    parts.push_back(range.count == 1
                        ? absl::StrCat(range.start)
                        : absl::StrCat(range.start, "-", range.start + range.count - 1));
  }
  return absl::StrJoin(parts, ", ");
}

// How many cores one replica of the model occupies: what the runtime reports when it can (the
// runtime is the authority), else what the model's config declares. Every answer other than the
// runtime's nrt_get_model_nc_count gets one warning line naming where the count came from.
absl::StatusOr<uint32_t> ReplicaCoreCount(const NrtRuntime& runtime, const NrtModel& model,
                                          const LoadSpec& spec) {
  const std::string& name = spec.identity.name;
  absl::StatusOr<std::optional<ReportedCoreCount>> reported = model.CoreCount();
  if (!reported.ok()) {
    return absl::Status(reported.status().code(),
                        absl::StrCat("model '", name, "': ", reported.status().message()));
  }
  if (reported->has_value()) {
    const ReportedCoreCount& count = **reported;
    if (count.count == 0) {
      return absl::InternalError(
          absl::StrCat("model '", name, "': ", count.source, " reports 0 cores for it"));
    }
    if (spec.declared_core_count != 0 && spec.declared_core_count != count.count) {
      spdlog::warn("model '{}': its config declares core_count {}, but the runtime reports {} "
                   "({}); the runtime's count is used",
                   name, spec.declared_core_count, count.count, count.source);
    } else if (count.source != "nrt_get_model_nc_count") {
      spdlog::warn("model '{}': {} core{} per replica, from {} (the runtime '{}' does not "
                   "export nrt_get_model_nc_count)",
                   name, count.count, count.count == 1 ? "" : "s", count.source,
                   runtime.library_path());
    }
    return count.count;
  }
  const NrtApi& api = runtime.api();
  const std::string why =
      api.get_model_info != nullptr
          ? absl::StrCat("the runtime '", runtime.library_path(),
                         "' exports neither nrt_get_model_nc_count nor nrt_get_model_vnc_count, "
                         "and its nrt_get_model_info reports no core count")
          : absl::StrCat("the runtime '", runtime.library_path(),
                         "' exports none of nrt_get_model_nc_count, nrt_get_model_vnc_count and "
                         "nrt_get_model_info");
  if (spec.declared_core_count == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("model '", name, "': cannot tell how many cores it occupies: ", why,
                     "; declare core_count in the model's config"));
  }
  spdlog::warn("model '{}': {} core{} per replica, from the core_count of its config ({})", name,
               spec.declared_core_count, spec.declared_core_count == 1 ? "" : "s", why);
  return spec.declared_core_count;
}

}  // namespace

ModelRegistry::ModelRegistry(const NrtRuntime& runtime, uint32_t core_count, ModelStore* store,
                             RegistryOptions options)
    : runtime_(runtime),
      store_(store),
      options_(options),
      allocator_(core_count),
      workers_(core_count, options.on_state_change, options.metrics),
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
    Retire(std::move(entry.serving));
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
  {
    MutexLock lock(&mutex_);
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
  AnnounceStateChange();
  spdlog::info("model {} loading ({}, {} bytes)", Quoted(spec.identity), spec.identity.source,
               spec.neff->size());
  executor_->Submit([this, spec = std::move(spec), done = std::move(done)]() mutable {
    RunLoad(std::move(spec), std::move(done));
  });
}

absl::StatusOr<std::shared_ptr<LoadedModel>> ModelRegistry::LoadReplicas(const LoadSpec& spec) {
  const absl::Time started = absl::Now();
  const std::string& name = spec.identity.name;
  const absl::Span<const uint8_t> neff(reinterpret_cast<const uint8_t*>(spec.neff->data()),
                                       spec.neff->size());

  // The model's core count is known only after a load, so the first replica is loaded on the
  // first core the model may use, and the placement is made from what it reports.
  uint32_t probe_core = 0;
  std::optional<Placement> probe_placement;
  if (!spec.start_cores.empty()) {
    probe_core = spec.start_cores.front();
    if (probe_core >= allocator_.core_count()) {
      return absl::InvalidArgumentError(absl::StrCat("model '", name, "': start core ", probe_core,
                                                     " does not exist (this "
                                                     "daemon has cores 0-",
                                                     allocator_.core_count() - 1, ")"));
    }
  } else {
    PlacementRequest probe{name, 1, 1, {}, spec.shared};
    absl::StatusOr<Placement> placement = allocator_.Allocate(probe);
    if (!placement.ok()) {
      // Not even one core is usable; say so in terms of what the client asked for (the probe's
      // own "1 replica of 1 core" would mislead).
      return absl::ResourceExhaustedError(
          absl::StrCat("cannot place model '", name, "' (", spec.replicas,
                       spec.replicas == 1 ? " replica" : " replicas",
                       " asked): no core it may use is free; ", allocator_.Occupancy()));
    }
    probe_core = placement->ranges.front().start;
    probe_placement = *placement;
  }
  absl::StatusOr<NrtModel> first = runtime_.LoadModel(neff, static_cast<int32_t>(probe_core));
  if (probe_placement.has_value()) allocator_.Release(probe_placement->id);
  if (!first.ok()) {
    if (!spec.start_cores.empty() && NrtStatusOf(first.status()) == NRT_LOAD_NOT_ENOUGH_NC) {
      // The runtime's way of saying the model's cores run past the last one: with an explicit
      // start core that is the request's fault, and retrying cannot help.
      return absl::InvalidArgumentError(absl::StrCat("model '", name, "': start core ", probe_core,
                                                     " is out of range: the model needs more "
                                                     "cores than the ",
                                                     allocator_.core_count() - probe_core,
                                                     " from core ", probe_core, " to the last (",
                                                     first.status().message(), ")"));
    }
    return absl::Status(first.status().code(),
                        absl::StrCat("model '", name, "': ", first.status().message()));
  }
  absl::StatusOr<uint32_t> core_count = ReplicaCoreCount(runtime_, *first, spec);
  if (!core_count.ok()) return core_count.status();

  PlacementRequest request{name, *core_count, spec.replicas, spec.start_cores, spec.shared};
  absl::StatusOr<Placement> placement = allocator_.Allocate(request);
  if (!placement.ok()) return placement.status();

  std::vector<std::unique_ptr<ModelReplica>> replicas;
  absl::Status status;
  for (const CoreRange& range : placement->ranges) {
    auto replica = std::make_unique<ModelReplica>();
    replica->cores = range;
    if (range.start == probe_core && first->get() != nullptr) {
      replica->model = *std::move(first);
      first = NrtModel();
    } else {
      absl::StatusOr<NrtModel> model = runtime_.LoadModel(neff, static_cast<int32_t>(range.start));
      if (!model.ok()) {
        status =
            absl::Status(model.status().code(),
                         absl::StrCat("model '", name, "' replica on cores ",
                                      DescribeRanges({range}), ": ", model.status().message()));
        break;
      }
      replica->model = *std::move(model);
    }
    replicas.push_back(std::move(replica));
  }
  ModelTensors tensors;
  if (status.ok()) {
    std::vector<std::string> notes;
    absl::StatusOr<std::vector<TensorSpec>> listed = replicas.front()->model.Tensors(&notes);
    if (listed.ok()) {
      // The runtime's size is the authority; a dtype it reports oddly does not stop the model,
      // whose tensor is then served as raw bytes. One line per model says what was seen.
      if (!notes.empty()) {
        spdlog::warn("model {}: {} served as raw bytes with dtype unknown: {}",
                     Quoted(spec.identity), notes.size() == 1 ? "1 tensor is" :
                     absl::StrCat(notes.size(), " tensors are"), absl::StrJoin(notes, "; "));
      }
      tensors = ModelTensors::Split(*std::move(listed));
    } else {
      status = listed.status();
    }
  }
  if (status.ok()) status = PrepareReplicas(name, tensors, replicas);
  if (!status.ok()) {
    replicas.clear();  // nrt_unload of every replica made so far
    allocator_.Release(placement->id);
    return status;
  }
  std::vector<Doorbell*> doorbells;
  for (const auto& replica : replicas) doorbells.push_back(workers_.WorkerFor(replica->cores.start));
  auto queue = std::make_unique<RequestQueue>(
      name, spec.max_queue != 0 ? spec.max_queue : options_.max_queue, replicas.size(),
      std::move(doorbells));
  auto model = std::make_shared<LoadedModel>(spec.identity, std::move(replicas),
                                             std::move(tensors), placement->id, absl::Now(),
                                             absl::Now() - started, std::move(queue));
  if (options_.metrics != nullptr) {
    model->set_request_metrics(
        options_.metrics->ForModel(spec.identity.name, spec.identity.version));
  }
  return model;
}

absl::Status ModelRegistry::PrepareReplicas(
    const std::string& name, const ModelTensors& tensors,
    std::vector<std::unique_ptr<ModelReplica>>& replicas) {
  for (const auto& replica : replicas) {
    absl::StatusOr<ReplicaTensors> bound =
        ReplicaTensors::Allocate(runtime_, name, replica->cores.start, tensors.inputs,
                                 tensors.outputs);
    if (!bound.ok()) return bound.status();
    replica->tensors = *std::move(bound);
  }
  return absl::OkStatus();
}

void ModelRegistry::RunLoad(LoadSpec spec, Callback done) {
  const std::string name = spec.identity.name;
  absl::StatusOr<std::shared_ptr<LoadedModel>> loaded = LoadReplicas(spec);
  if (loaded.ok() && spec.persist && store_ != nullptr) {
    absl::Status saved = store_->Save(
        name, spec.identity.version,
        {reinterpret_cast<const uint8_t*>(spec.neff->data()), spec.neff->size()}, spec.config_text);
    if (!saved.ok()) {
      Retire(*std::move(loaded));
      loaded = absl::Status(saved.code(), absl::StrCat("model '", name,
                                                       "' loaded but could not be recorded in "
                                                       "the state directory: ",
                                                       saved.message()));
    }
  }

  // Workers serve the version before anyone can reach it through Acquire.
  if (loaded.ok()) workers_.Attach(**loaded);

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
    } else if (entry.serving != nullptr) {
      result = loaded.status();  // the old version keeps serving
    } else {
      entry.state = ModelState::kFailed;
      entry.error = std::string(loaded.status().message());
      result = loaded.status();
    }
  }
  if (loaded.ok()) {
    const LoadedModel& model = **loaded;
    std::vector<CoreRange> ranges;
    for (const auto& replica : model.replicas()) ranges.push_back(replica->cores);
    spdlog::info("model {} ready on cores {} ({} replica{}, loaded in {})", Quoted(spec.identity),
                 DescribeRanges(ranges), ranges.size(), ranges.size() == 1 ? "" : "s",
                 absl::FormatDuration(model.load_duration()));
  } else {
    spdlog::warn("model {} failed to load: {}", Quoted(spec.identity), loaded.status().message());
  }
  // Drop this thread's reference to the error before handing `result` over: absl::Status counts
  // references inside Debian's uninstrumented libabsl, so TSAN cannot see that the caller's
  // last reference is ordered after ours and would report the caller's free as a race.
  loaded = std::shared_ptr<LoadedModel>();
  AnnounceStateChange();
  // Answer before draining the old version: the new one already serves.
  done(std::move(result));
  if (replaced != nullptr) Retire(std::move(replaced));
}

void ModelRegistry::Unload(const std::string& name, Callback done) {
  {
    MutexLock lock(&mutex_);
    auto it = entries_.find(name);
    if (it == entries_.end()) {
      done(absl::NotFoundError(absl::StrCat("model '", name, "' is not loaded")));
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
      done(absl::NotFoundError(absl::StrCat("model '", name, "' is not loaded")));
      return;
    }
    info = Describe(it->second);
    // Acquire stops handing out leases now; the entry stays visible as UNLOADING.
    model = it->second.serving;
  }
  spdlog::info("model '{}' unloading", name);
  if (model != nullptr) {
    Drain(*model);
    {
      // The entry stays (UNLOADING) until the unload is done, but without its reference, so
      // that nrt_unload runs here, outside the registry's lock, and not in erase() below.
      MutexLock lock(&mutex_);
      entries_[name].serving.reset();
    }
    Destroy(std::move(model));
  }
  if (store_ != nullptr) {
    absl::Status removed = store_->Remove(name);
    if (!removed.ok() && !absl::IsNotFound(removed)) {
      spdlog::warn("model '{}': cannot remove its state record: {}", name, removed.message());
    }
  }
  {
    MutexLock lock(&mutex_);
    entries_.erase(name);
  }
  AnnounceStateChange();
  spdlog::info("model '{}' unloaded", name);
  done(std::move(info));
}

void ModelRegistry::Retire(std::shared_ptr<LoadedModel> model) {
  Drain(*model);
  Destroy(std::move(model));
}

void ModelRegistry::Destroy(std::shared_ptr<LoadedModel> model) {
  const uint64_t placement_id = model->placement_id();
  model.reset();  // the last reference: nrt_unload of every replica
  allocator_.Release(placement_id);
}

void ModelRegistry::Drain(LoadedModel& version) {
  LoadedModel* const model = &version;
  if (!model->WaitUntilIdle(options_.drain_timeout)) {
    std::vector<InferenceJob*> waiting;
    if (model->queue() != nullptr) {
      waiting = model->queue()->Close(
          absl::StatusCode::kUnavailable,
          absl::StrCat("model ", Quoted(model->identity()), " was unloaded"));
    }
    spdlog::warn("model {}: {} request(s) still in flight after {}; {} queued ones get "
                 "UNAVAILABLE, waiting for the executing ones to finish",
                 Quoted(model->identity()), model->leases(),
                 absl::FormatDuration(options_.drain_timeout), waiting.size());
    for (InferenceJob* job : waiting) {
      model->requests_failed().fetch_add(1, std::memory_order_relaxed);
      job->Complete(absl::UnavailableError(absl::StrCat(
                        "model ", Quoted(model->identity()), " was unloaded after waiting ",
                        absl::FormatDuration(options_.drain_timeout),
                        " for earlier requests; this one did not run")),
                    ExecutionTiming{absl::Now() - job->enqueued_at, absl::ZeroDuration()});
    }
    // An execution on the device cannot be cut short; unloading under it would be a crash.
    model->WaitUntilIdle(absl::InfiniteDuration());
  }
  if (model->queue() != nullptr) {
    model->queue()->Close(absl::StatusCode::kUnavailable,
                          absl::StrCat("model ", Quoted(model->identity()), " was unloaded"));
  }
  workers_.Detach(*model);
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
  spdlog::warn("model {} failed to load: {}", Quoted(identity), error.message());
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
    return absl::NotFoundError(absl::StrCat("model '", name, "' is not loaded"));
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
    return absl::NotFoundError(absl::StrCat("model '", name, "' is not loaded"));
  }
  const Entry& entry = it->second;
  if (entry.state != ModelState::kReady || entry.serving == nullptr) {
    return absl::NotFoundError(absl::StrCat("model '", name, "' is ", ModelStateName(entry.state),
                                            entry.error.empty() ? "" : ": ", entry.error));
  }
  return LoadedModel::Lease(entry.serving);
}

}  // namespace neuronserve
