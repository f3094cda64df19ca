#include "core/lifecycle/version_loader.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/lifecycle/batch_variants.h"
#include "core/lifecycle/model_name.h"
#include "core/metrics/serving_metrics.h"
#include "core/nrt/nrt_runtime.h"
#include "core/nrt/nrt_status.h"
#include "core/serving/execution/core_range.h"
#include "core/serving/execution/execution_failure.h"
#include "core/serving/execution/worker_pool.h"
#include "core/serving/scheduling/fifo_scheduler.h"
#include "spdlog/spdlog.h"
#include "util/crash_point.h"

namespace neuronserve {
namespace {

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

absl::Span<const uint8_t> BytesOf(const std::string& neff) {
  return {reinterpret_cast<const uint8_t*>(neff.data()), neff.size()};
}

// How errors name a variant: nothing for a model of one NEFF.
std::string VariantLabel(const VariantSpec& variant) {
  return variant.batch_size == 0 ? "" : absl::StrCat(" (variant of batch ", variant.batch_size, ")");
}

}  // namespace

VersionLoader::VersionLoader(const NrtRuntime& runtime, CoreAllocator& allocator,
                             WorkerPool& workers, VersionLoaderOptions options)
    : runtime_(runtime), allocator_(allocator), workers_(workers), options_(options) {}

absl::StatusOr<std::shared_ptr<LoadedModel>> VersionLoader::Load(const LoadSpec& spec) {
  const absl::Time started = absl::Now();
  const std::string& name = spec.identity.name;
  // The compiled variants in the spec's order; a model of one NEFF is one variant of batch 0.
  std::vector<VariantSpec> compiled = spec.variants;
  if (compiled.empty()) compiled.push_back(VariantSpec{0, spec.neff, {}});
  const absl::Span<const uint8_t> neff = BytesOf(*compiled.front().neff);

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
    NoteLoadFailure(name, first.status(), CoreRange{probe_core, 1});
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
                        absl::StrCat("model '", name, "'", VariantLabel(compiled.front()), ": ",
                                     first.status().message()));
  }
  absl::StatusOr<uint32_t> core_count = ReplicaCoreCount(runtime_, *first, spec);
  if (!core_count.ok()) return core_count.status();

  PlacementRequest request{name, *core_count, spec.replicas, spec.start_cores, spec.shared};
  absl::StatusOr<Placement> placement = allocator_.Allocate(request);
  if (!placement.ok()) return placement.status();

  // Held from here, so that the variants' metrics live as long as the model; a failed load
  // lets go of it, which retires whatever series it made.
  std::shared_ptr<const ModelRequestMetrics> version_metrics;
  if (options_.metrics != nullptr) {
    version_metrics = options_.metrics->ForModel(spec.identity.name, spec.identity.version);
  }
  std::vector<std::unique_ptr<ModelReplica>> replicas;
  absl::Status status;
  for (const CoreRange& range : placement->ranges) {
    // Every replica so far is loaded, variants and all.
    if (!replicas.empty()) CrashPoint(kCrashLoadBetweenReplicas);
    auto replica = std::make_unique<ModelReplica>();
    replica->cores = range;
    for (size_t v = 0; v < compiled.size(); ++v) {
      ReplicaVariant& variant = replica->variants.emplace_back();
      variant.batch_size = compiled[v].batch_size;
      if (version_metrics != nullptr && variant.batch_size > 0) {
        variant.metrics = options_.metrics->ForVariant(*version_metrics, variant.batch_size);
      }
      if (v == 0 && range.start == probe_core && first->get() != nullptr) {
        variant.model = *std::move(first);
        first = NrtModel();
        continue;
      }
      absl::StatusOr<NrtModel> model =
          runtime_.LoadModel(BytesOf(*compiled[v].neff), static_cast<int32_t>(range.start));
      if (!model.ok()) {
        NoteLoadFailure(name, model.status(), range);
        status = absl::Status(
            model.status().code(),
            absl::StrCat("model '", name, "'", VariantLabel(compiled[v]), " replica on cores ",
                         FormatCoreRanges({range}), ": ", model.status().message()));
        break;
      }
      variant.model = *std::move(model);
    }
    replicas.push_back(std::move(replica));  // even part-loaded: clearing it unloads
    if (!status.ok()) break;
  }
  // Every variant occupies the cores the first one does: they share the replica's range.
  for (size_t v = 1; status.ok() && v < compiled.size(); ++v) {
    absl::StatusOr<uint32_t> count =
        ReplicaCoreCount(runtime_, replicas.front()->variants[v].model, spec);
    if (!count.ok()) {
      status = count.status();
    } else if (*count != *core_count) {
      status = absl::InvalidArgumentError(absl::StrCat(
          "model '", name, "': the variant of batch ", compiled[v].batch_size, " occupies ",
          *count, " cores per replica, but the variant of batch ", compiled.front().batch_size,
          " occupies ", *core_count, ": every variant must occupy the same cores"));
    }
  }
  // The tensors of each variant, as the runtime lists them; the model's are the first one's.
  std::vector<ModelTensors> variant_tensors;
  std::vector<VariantTensors> to_check;
  for (size_t v = 0; status.ok() && v < compiled.size(); ++v) {
    std::vector<std::string> notes;
    absl::StatusOr<std::vector<TensorSpec>> listed =
        replicas.front()->variants[v].model.Tensors(&notes);
    if (!listed.ok()) {
      status = listed.status();
      break;
    }
    // The runtime's size is the authority; a dtype it reports oddly does not stop the model,
    // whose tensor is then served as raw bytes. One line per model says what was seen.
    if (v == 0 && !notes.empty()) {
      spdlog::warn("model {}: {} served as raw bytes with dtype unknown: {}",
                   QuotedModel(spec.identity),
                   notes.size() == 1 ? "1 tensor is" : absl::StrCat(notes.size(), " tensors are"),
                   absl::StrJoin(notes, "; "));
    }
    to_check.push_back(VariantTensors{compiled[v].batch_size, *listed});
    variant_tensors.push_back(ModelTensors::Split(*std::move(listed)));
  }
  if (status.ok() && !spec.variants.empty()) status = CheckBatchVariants(name, to_check);
  if (status.ok() && !to_check.empty()) {
    status = CheckDeclaredTensors(name, spec.declared_tensors, to_check.front().tensors,
                                  spec.variants.empty() ? 0 : to_check.front().batch_size);
  }
  const uint32_t pipeline_depth =
      spec.pipeline_depth != 0 ? spec.pipeline_depth : options_.pipeline_depth;
  if (status.ok() && (pipeline_depth == 0 || pipeline_depth > kMaxPipelineDepth)) {
    status = absl::InvalidArgumentError(absl::StrCat("model '", name, "': pipeline_depth is ",
                                                     pipeline_depth, "; it must be 1 to ",
                                                     kMaxPipelineDepth));
  }
  if (status.ok()) status = BindTensors(name, variant_tensors, pipeline_depth, replicas);
  if (!status.ok()) {
    replicas.clear();  // nrt_unload of every replica made so far
    allocator_.Release(placement->id);
    return status;
  }
  ModelTensors tensors = std::move(variant_tensors.front());
  // A batched model's policy: the spec's, with the variants' batch sizes in their order.
  BatchingPolicy batching = spec.batching;
  batching.variant_batch_sizes.clear();
  for (const VariantSpec& variant : spec.variants) {
    batching.variant_batch_sizes.push_back(variant.batch_size);
  }
  if (!spec.variants.empty()) {
    tensors = ModelTensors::Rows(
        tensors, spec.variants.front().batch_size,
        spec.max_batch_size != 0 ? spec.max_batch_size : batching.largest_batch_size());
  }
  std::vector<Doorbell*> doorbells;
  for (const auto& replica : replicas) doorbells.push_back(workers_.WorkerFor(replica->cores.start));
  const uint32_t capacity = spec.max_queue != 0 ? spec.max_queue : options_.max_queue;
  std::unique_ptr<Scheduler> scheduler;
  if (spec.variants.empty()) {
    scheduler = std::make_unique<FifoScheduler>(name, capacity, replicas.size(),
                                                std::move(doorbells), options_.queued_bytes);
  } else {
    scheduler =
        std::make_unique<DynamicBatcher>(name, std::move(batching), capacity, replicas.size(),
                                         std::move(doorbells), options_.queued_bytes);
    if (absl::Status warmed = WarmUp(name, replicas, *scheduler); !warmed.ok()) {
      scheduler.reset();  // it rings the workers, none of which serves the model yet
      replicas.clear();
      allocator_.Release(placement->id);
      return warmed;
    }
  }
  auto model = std::make_shared<LoadedModel>(spec.identity, std::move(replicas),
                                             std::move(tensors), placement->id, absl::Now(),
                                             absl::Now() - started, std::move(scheduler));
  model->set_request_metrics(std::move(version_metrics));
  return model;
}

absl::Status VersionLoader::WarmUp(const std::string& name,
                                   const std::vector<std::unique_ptr<ModelReplica>>& replicas,
                                   Scheduler& scheduler) {
  std::vector<uint8_t> zeros;
  for (const auto& replica : replicas) {
    for (size_t v = 0; v < replica->variants.size(); ++v) {
      ReplicaVariant& variant = replica->variants[v];
      const std::string what =
          absl::StrCat("model '", name, "': the warm-up of the variant of batch ",
                       variant.batch_size, " on ", NameCoreRange(replica->cores));
      ReplicaTensors& tensors = variant.tensor_sets.front();
      for (size_t i = 0; i < tensors.inputs.size(); ++i) {
        const size_t bytes = tensors.input_bytes[i];
        if (zeros.size() < bytes) zeros.resize(bytes);
        if (absl::Status written =
                tensors.inputs[i].Write(absl::MakeConstSpan(zeros.data(), bytes));
            !written.ok()) {
          return WithContext(written, absl::StrCat(what, " failed"));
        }
      }
      const absl::Time started = absl::Now();
      absl::Status executed = variant.model.Execute(tensors.input_set, tensors.output_set);
      if (!executed.ok()) {
        return absl::Status(executed.code(), absl::StrCat(what, " failed: ", executed.message()));
      }
      scheduler.Executed(v, variant.batch_size, absl::Now() - started);
    }
  }
  return absl::OkStatus();
}

void VersionLoader::NoteLoadFailure(const std::string& name, const absl::Status& status,
                                    const CoreRange& cores) {
  if (ClassifyExecutionFailure(status) != ExecutionFailure::kHardware) return;
  const std::string why = absl::StrCat("loading model '", name, "': ", status.message());
  spdlog::error("{}; taking {} out of rotation", why, NameCoreRange(cores));
  workers_.MarkCoresUnhealthy(cores, why);
}

absl::Status VersionLoader::BindTensors(const std::string& name,
                                        const std::vector<ModelTensors>& tensors,
                                        uint32_t pipeline_depth,
                                        std::vector<std::unique_ptr<ModelReplica>>& replicas) {
  for (const auto& replica : replicas) {
    for (size_t v = 0; v < replica->variants.size(); ++v) {
      absl::StatusOr<std::vector<ReplicaTensors>> bound =
          ReplicaTensors::AllocateSets(runtime_, name, replica->cores.start, tensors[v].inputs,
                                       tensors[v].outputs, pipeline_depth);
      if (!bound.ok()) {
        NoteLoadFailure(name, bound.status(), replica->cores);
        return bound.status();
      }
      replica->variants[v].tensor_sets = *std::move(bound);
    }
    replica->SetPipelineDepth(pipeline_depth);
  }
  return absl::OkStatus();
}

void VersionLoader::Attach(LoadedModel& model) { workers_.Attach(model); }

void VersionLoader::Retire(std::shared_ptr<LoadedModel> model) {
  Detach(*model);
  Unload(std::move(model));
}

void VersionLoader::Unload(std::shared_ptr<LoadedModel> model) {
  const uint64_t placement_id = model->placement_id();
  model.reset();  // the last reference: nrt_unload of every replica
  allocator_.Release(placement_id);
}

void VersionLoader::Detach(LoadedModel& version) {
  LoadedModel* const model = &version;
  if (!model->WaitUntilIdle(options_.unload_timeout)) {
    std::vector<JobRows> waiting;
    if (model->scheduler() != nullptr) {
      waiting = model->scheduler()->Close(
          absl::StatusCode::kUnavailable,
          absl::StrCat("model ", QuotedModel(model->identity()), " was unloaded"));
    }
    spdlog::warn("model {}: {} request(s) still in flight after {}; {} queued ones get "
                 "UNAVAILABLE, waiting for the executing ones to finish",
                 QuotedModel(model->identity()), model->leases(),
                 absl::FormatDuration(options_.unload_timeout), waiting.size());
    for (const JobRows& rows : waiting) {
      // The job's owner counts the outcome (core/serving/model/request_outcome.h).
      AnswerRows(rows,
                 absl::UnavailableError(absl::StrCat(
                     "model ", QuotedModel(model->identity()), " was unloaded after waiting ",
                     absl::FormatDuration(options_.unload_timeout),
                     " for earlier requests; this one did not run")),
                 ExecutionTiming{absl::Now() - rows.job->enqueued_at, absl::ZeroDuration()});
    }
    // An execution on the device cannot be cut short; unloading under it would be a crash.
    model->WaitUntilIdle(absl::InfiniteDuration());
  }
  if (model->scheduler() != nullptr) {
    model->scheduler()->Close(absl::StatusCode::kUnavailable,
                          absl::StrCat("model ", QuotedModel(model->identity()), " was unloaded"));
  }
  workers_.Detach(*model);
}

}  // namespace neuronserve
