#include "server/oip/v2_answers.h"

#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "core/serving/model/version_number.h"
#include "google/protobuf/util/json_util.h"
#include "neuron_serve_version.h"  // generated in the build tree (server/oip/CMakeLists.txt)
#include "server/admission/upload_slots.h"
#include "server/oip/v2_datatype.h"
#include "server/repository/load_spec.h"
#include "server/repository/model_repository.h"
#include "server/repository/model_upload.h"
#include "server/repository/model_config_schema.h"
#include "server/repository/uploaded_model.h"

namespace neuronserve {
namespace {

// True when `info` describes a version that answers requests now or did until it began to
// unload (the registry then still holds its tensors and counters).
bool HasServingVersion(const ModelInfo& info) {
  return info.state == ModelState::kReady || info.state == ModelState::kUnloading;
}

void FillDuration(inference::StatisticDuration* duration, uint64_t count, uint64_t ns) {
  duration->set_count(count);
  duration->set_ns(ns);
}

// `count` executions of `device_ns` on the device, of which `input_ns` writing and `output_ns`
// reading: Triton's compute_input, compute_infer (the rest) and compute_output, one count.
void FillComputeParts(uint64_t count, uint64_t device_ns, uint64_t input_ns, uint64_t output_ns,
                      inference::StatisticDuration* input, inference::StatisticDuration* infer,
                      inference::StatisticDuration* output) {
  const uint64_t copies = input_ns + output_ns;
  FillDuration(input, count, input_ns);
  FillDuration(infer, count, device_ns > copies ? device_ns - copies : 0);
  FillDuration(output, count, output_ns);
}

void FillStatistics(const ModelInfo& info, inference::ModelStatistics* out) {
  const RequestStatistics& stats = info.statistics;
  out->set_name(info.identity.name);
  out->set_version(VersionNumber(info.identity.version));
  out->set_last_inference(stats.last_request == absl::InfinitePast()
                              ? 0
                              : static_cast<uint64_t>(absl::ToUnixMillis(stats.last_request)));
  // Triton counts a request of r rows as r inferences. A model without a batch dimension runs one
  // request, one inference; a batched model's rows are the ones its successful executions
  // carried (RecordExecution counts useful rows, never the padding).
  uint64_t inferences = stats.success_count;
  if (info.max_batch_size != 0) {
    inferences = 0;
    for (const BatchStatistics& batch : info.batch_statistics) {
      inferences += static_cast<uint64_t>(batch.batch_size) * batch.count;
    }
  }
  out->set_inference_count(inferences);
  out->set_execution_count(stats.executions);
  inference::InferStatistics* infer = out->mutable_inference_stats();
  FillDuration(infer->mutable_success(), stats.success_count, stats.success_ns);
  FillDuration(infer->mutable_fail(), stats.fail_count, stats.fail_ns);
  FillDuration(infer->mutable_queue(), stats.queue_count, stats.queue_ns);
  // The device time in Triton's three parts, each counted once per successful request (so the
  // three counts agree, as perf_analyzer requires): compute_input the tensor writes,
  // compute_output the reads, compute_infer nrt_execute (the rest). No response cache:
  // cache_hit and cache_miss stay 0.
  FillComputeParts(stats.compute_count, stats.compute_ns, stats.compute_input_ns,
                   stats.compute_output_ns, infer->mutable_compute_input(),
                   infer->mutable_compute_infer(), infer->mutable_compute_output());
  // As Triton fills it: per batch size executed (the requests' rows one execution carried),
  // the executions and their device time, in the same three parts.
  for (const BatchStatistics& batch : info.batch_statistics) {
    inference::InferBatchStatistics* out_batch = out->add_batch_stats();
    out_batch->set_batch_size(batch.batch_size);
    FillComputeParts(batch.count, batch.ns, batch.input_ns, batch.output_ns,
                     out_batch->mutable_compute_input(), out_batch->mutable_compute_infer(),
                     out_batch->mutable_compute_output());
  }
}

// A batched model's leading dimension is the request's rows: -1, the protocol's variable
// dimension, as Triton shows a batch dimension.
void FillTensors(
    const std::vector<TensorSpec>& specs, bool batched,
    google::protobuf::RepeatedPtrField<inference::ModelMetadataResponse::TensorMetadata>* out) {
  for (const TensorSpec& spec : specs) {
    inference::ModelMetadataResponse::TensorMetadata* tensor = out->Add();
    tensor->set_name(spec.name);
    tensor->set_datatype(V2DatatypeName(spec.dtype));
    for (uint32_t dim : spec.shape) tensor->add_shape(static_cast<int64_t>(dim));
    if (batched && !spec.shape.empty()) tensor->set_shape(0, -1);
  }
}

// RepositoryIndex's state for a model the registry knows.
std::string IndexState(ModelState state) {
  switch (state) {
    case ModelState::kReady:
      return "READY";
    case ModelState::kLoading:
      return "LOADING";
    case ModelState::kUnloading:
      return "UNLOADING";
    case ModelState::kFailed:
      return "UNAVAILABLE";
  }
  return "UNAVAILABLE";
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// RepositoryModelLoad's parameters: `config` (JSON in either schema: model_config_schema.h), absent
// when not given, and the `file:` parameters of an upload, their bytes borrowed from
// `parameters`.
struct LoadParameters {
  std::optional<std::string> config;
  std::vector<UploadedFile> files;
};

// INVALID_ARGUMENT naming any parameter other than those, or one of the wrong kind.
absl::StatusOr<LoadParameters> ReadLoadParameters(
    const google::protobuf::Map<std::string, inference::ModelRepositoryParameter>& parameters) {
  LoadParameters read;
  // In name order, so that of several bad parameters the same one is named every time, and
  // the files are staged in one order.
  std::map<std::string, const inference::ModelRepositoryParameter*> sorted;
  for (const auto& [key, value] : parameters) sorted.emplace(key, &value);
  for (const auto& [key, value] : sorted) {
    if (absl::StartsWith(key, kFileParameterPrefix)) {
      if (value->parameter_choice_case() != inference::ModelRepositoryParameter::kBytesParam) {
        return absl::InvalidArgumentError(
            absl::StrCat("parameter '", absl::CEscape(key),
                         "' must be a bytes_param holding the file's bytes (base64 over REST)"));
      }
      read.files.push_back(
          UploadedFile{key.substr(kFileParameterPrefix.size()), value->bytes_param()});
      continue;
    }
    if (key != "config") {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown parameter '", absl::CEscape(key),
          "'; the parameters taken are 'config' (the model's configuration in JSON, Triton's "
          "inference.ModelConfig or neuronserve.v1.ModelConfig) and 'file:<path>' (a file of "
          "an uploaded model folder)"));
    }
    if (value->parameter_choice_case() != inference::ModelRepositoryParameter::kStringParam) {
      return absl::InvalidArgumentError(
          "parameter 'config' must be a string_param holding the configuration in JSON");
    }
    read.config = value->string_param();
  }
  return read;
}

absl::Status CheckConfigName(const std::string& model, const std::string& named) {
  if (named.empty() || named == model) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("parameter 'config' names the model '", named,
                                                 "'; leave the name out or give '", model, "'"));
}

// The name the parsed configuration gives the model, if any.
const std::string& ConfiguredName(const ParsedModelConfig& parsed) {
  return parsed.own.has_value() ? parsed.own->name() : parsed.triton->name();
}

// Hands `spec` to the registry; `done` gets the outcome once the model is READY or failed.
void StartLoad(const ModelLoadingContext& loading, absl::StatusOr<LoadSpec> spec, V2Done done) {
  if (!spec.ok()) return done(spec.status());
  loading.registry->Load(
      *std::move(spec),
      [done = std::move(done)](absl::StatusOr<ModelInfo> result) { done(result.status()); });
}

// The model `name` uploaded in `given.files` (docs/triton.md, "Model upload through
// RepositoryModelLoad"): an upload slot held until the load ends, the files checked and staged,
// the load started.
void LoadUploaded(const ModelLoadingContext& loading, const std::string& name,
                  const LoadParameters& given, V2Done done) {
  if (!given.config.has_value()) {
    return done(absl::InvalidArgumentError(absl::StrCat(
        "the ", given.files.size(),
        " file: parameters need a 'config' parameter, the uploaded model's configuration in "
        "JSON (\"{}\" for a folder that needs none), as Triton requires")));
  }
  // Checked before a slot is taken or a byte is staged: the cheap refusals first.
  if (absl::Status checked = CheckUploadedFiles(given.files, loading.max_model_bytes);
      !checked.ok()) {
    return done(checked);
  }
  absl::StatusOr<ParsedModelConfig> parsed =
      ParseModelConfigJson(*given.config, v1::ModelConfig(), "parameter 'config'");
  if (!parsed.ok()) return done(parsed.status());
  if (absl::Status named = CheckConfigName(name, ConfiguredName(*parsed)); !named.ok()) {
    return done(named);
  }
  std::shared_ptr<UploadSlots::Slot> slot;
  if (loading.uploads != nullptr) {
    std::optional<UploadSlots::Slot> taken = loading.uploads->TryTake();
    if (!taken.has_value()) {
      return done(absl::ResourceExhaustedError(
          absl::StrCat("all ", loading.uploads->limit(),
                       " upload slots are taken (--max-concurrent-uploads); try again when an "
                       "upload ends")));
    }
    slot = std::make_shared<UploadSlots::Slot>(*std::move(taken));
  }
  // The slot is given back as the answer goes, so that a client's next upload finds it free.
  StartLoad(loading, UploadedModelLoadSpec(name, *parsed, given.files, loading.max_model_bytes),
            [slot = std::move(slot), done = std::move(done)](const absl::Status& status) mutable {
              slot.reset();
              done(status);
            });
}

}  // namespace

bool V2ServerLive(const std::optional<HealthReport>& report) {
  return report.has_value() && report->live;
}

bool V2ServerReady(const std::optional<HealthReport>& report) {
  return report.has_value() && report->serving;
}

bool V2ModelReady(const std::optional<HealthReport>& report, const ModelRegistry& registry,
                  const std::string& name, const std::string& version) {
  // Like Triton: a model the server does not know is not ready, and that is an answer, not an
  // error. The model's health status is the one grpc.health.v1 publishes under its name.
  bool ready = false;
  if (report.has_value()) {
    auto found = report->models.find(name);
    ready = found != report->models.end() && found->second;
  }
  if (ready && !version.empty()) {
    // Only the serving version is ready; a version given that is not it is not.
    absl::StatusOr<ModelInfo> info = registry.Get(name);
    ready = info.ok() && NamesVersion(version, info->identity.version);
  }
  return ready;
}

void V2ServerMetadata(inference::ServerMetadataResponse& out) {
  out.set_name(kV2ServerName);
  out.set_version(NEURON_SERVE_VERSION);
  for (const char* extension : kV2Extensions) out.add_extensions(extension);
}

absl::Status V2ModelMetadata(const ModelRegistry& registry, const std::string& name,
                             const std::string& version, inference::ModelMetadataResponse& out) {
  // The READY version, as inference would find it: NOT_FOUND naming the model (and its state
  // when it has no serving version) otherwise.
  absl::StatusOr<LoadedModel::Lease> lease = registry.Acquire(name);
  if (!lease.ok()) return lease.status();
  const LoadedModel& model = **lease;
  if (absl::Status named = CheckServingVersion(model, version); !named.ok()) return named;
  out.set_name(model.identity().name);
  out.add_versions(model.version_number());
  out.set_platform("neuron");
  FillTensors(model.inputs(), model.max_batch_size() != 0, out.mutable_inputs());
  FillTensors(model.outputs(), model.max_batch_size() != 0, out.mutable_outputs());
  return absl::OkStatus();
}

absl::Status V2ModelStatistics(const ModelRegistry& registry, const std::string& name,
                               const std::string& version,
                               inference::ModelStatisticsResponse& out) {
  if (name.empty()) {
    // Every model with a serving version (of the version asked for, when one is).
    for (const ModelInfo& info : registry.List()) {
      if (!HasServingVersion(info)) continue;
      if (!NamesVersion(version, info.identity.version)) continue;
      FillStatistics(info, out.add_model_stats());
    }
    return absl::OkStatus();
  }
  absl::StatusOr<ModelInfo> info = registry.Get(name);
  if (!info.ok()) return info.status();
  if (!HasServingVersion(*info)) {
    return absl::NotFoundError(absl::StrCat("model '", name, "' is ", ModelStateName(info->state),
                                            ": no version has statistics"));
  }
  if (!NamesVersion(version, info->identity.version)) {
    return VersionMismatchError(name, version, info->identity.version);
  }
  FillStatistics(*info, out.add_model_stats());
  return absl::OkStatus();
}

absl::Status V2CheckRepositoryName(const ModelLoadingContext& loading, std::string_view call,
                                   const std::string& repository_name) {
  if (repository_name.empty()) return absl::OkStatus();
  if (loading.repository == nullptr) {
    return absl::NotFoundError(absl::StrCat(std::string(call), ": repository '", repository_name,
                                            "' not found: the daemon has no --model-repository"));
  }
  const std::string ours = BaseName(loading.repository->root());
  if (repository_name != ours) {
    return absl::NotFoundError(absl::StrCat(std::string(call), ": repository '", repository_name,
                                            "' not found; the one repository is '", ours,
                                            "' (or give none)"));
  }
  return absl::OkStatus();
}

absl::Status V2RepositoryIndex(const ModelLoadingContext& loading, bool ready_only,
                               inference::RepositoryIndexResponse& out) {
  // By name: the registry's models (uploads included), then the repository's folders that the
  // registry does not know, as UNAVAILABLE (Triton lists its repository's unloaded models so).
  std::map<std::string, inference::RepositoryIndexResponse::ModelIndex> index;
  for (const ModelInfo& info : loading.registry->List()) {
    inference::RepositoryIndexResponse::ModelIndex& entry = index[info.identity.name];
    entry.set_name(info.identity.name);
    entry.set_version(VersionNumber(info.identity.version));
    entry.set_state(IndexState(info.state));
    if (info.state == ModelState::kFailed) entry.set_reason(info.error);
  }
  if (loading.repository != nullptr) {
    absl::StatusOr<std::vector<std::string>> folders = loading.repository->ModelFolders();
    if (!folders.ok()) return folders.status();
    for (const std::string& folder : *folders) {
      // The model's name is its config's (the folder's name by default).
      absl::StatusOr<RepositoryModel> model = loading.repository->Resolve(folder);
      const std::string name = model.ok() ? model->config.name() : folder;
      if (index.contains(name)) continue;
      inference::RepositoryIndexResponse::ModelIndex& entry = index[name];
      entry.set_name(name);
      // A folder that is not loaded has no version yet unless its config names one.
      if (model.ok() && !model->config.version().empty()) {
        entry.set_version(VersionNumber(model->config.version()));
      }
      entry.set_state("UNAVAILABLE");
      entry.set_reason(model.ok() ? "not loaded" : std::string(model.status().message()));
    }
  }
  for (auto& [name, entry] : index) {
    if (ready_only && entry.state() != "READY") continue;
    *out.add_models() = std::move(entry);
  }
  return absl::OkStatus();
}

absl::Status V2LoadRefusal(const std::string& name, const absl::Status& status) {
  if (status.ok()) return status;
  const std::string prefix = absl::StrCat("failed to load '", name, "': ");
  // The registry words a failed load so itself (ModelRegistry::Load).
  if (absl::StartsWith(status.message(), prefix)) return status;
  return absl::Status(status.code(), absl::StrCat(prefix, status.message()));
}

std::optional<uint64_t> V2UploadedBytes(
    const google::protobuf::Map<std::string, inference::ModelRepositoryParameter>& parameters) {
  std::optional<uint64_t> total;
  for (const auto& [key, value] : parameters) {
    if (absl::StartsWith(key, kFileParameterPrefix)) {
      total = total.value_or(0) + value.bytes_param().size();
    }
  }
  return total;
}

void V2RepositoryLoad(
    const ModelLoadingContext& loading, const std::string& name, const std::string& repository_name,
    const google::protobuf::Map<std::string, inference::ModelRepositoryParameter>& parameters,
    V2Done done_as_is) {
  // Every refusal, and a load that fails, begins as Triton's does (its clients look for it).
  V2Done done = [name, done = std::move(done_as_is)](const absl::Status& status) {
    done(V2LoadRefusal(name, status));
  };
  if (absl::Status named = V2CheckRepositoryName(loading, "RepositoryModelLoad", repository_name);
      !named.ok()) {
    return done(named);
  }
  if (name.empty()) {
    return done(absl::InvalidArgumentError(
        "RepositoryModelLoadRequest.model_name is empty: name a model folder of the repository"));
  }
  absl::StatusOr<LoadParameters> given = ReadLoadParameters(parameters);
  if (!given.ok()) return done(given.status());
  if (!given->files.empty()) return LoadUploaded(loading, name, *given, std::move(done));
  if (loading.repository == nullptr) {
    return done(absl::FailedPreconditionError(
        "the daemon has no --model-repository; start it with one, upload the model's files in "
        "'file:' parameters, or upload it with neuronserve.v1.NeuronServing/LoadModel"));
  }
  v1::ModelConfig overrides;
  if (given->config.has_value()) {
    // The folder's own configuration decides, with the JSON merged over it, which schema the
    // JSON is (model_config_schema.h); a folder that does not resolve leaves that to the JSON alone.
    absl::StatusOr<RepositoryModel> folder = loading.repository->Resolve(name);
    absl::StatusOr<ParsedModelConfig> parsed = ParseModelConfigJson(
        *given->config, folder.ok() ? folder->config : v1::ModelConfig(), "parameter 'config'");
    if (!parsed.ok()) return done(parsed.status());
    if (absl::Status named = CheckConfigName(name, ConfiguredName(*parsed)); !named.ok()) {
      return done(named);
    }
    if (parsed->triton.has_value()) {
      // Triton's meaning: this configuration replaces the folder's (keeping its compiled
      // variants: ModelRepository::ResolveTriton).
      absl::StatusOr<RepositoryModel> model =
          loading.repository->ResolveTriton(name, *parsed->triton);
      if (!model.ok()) return done(model.status());
      return StartLoad(loading, RepositoryModelLoadSpec(*model, model->config, /*persist=*/true),
                       std::move(done));
    }
    overrides = *std::move(parsed->own);
  }

  // The native repository load's own path: a LoadModel header naming the folder, with the
  // overrides merged over its config.pbtxt (ModelUpload::Finish, server/repository/load_spec.h
  // MergeConfig).
  v1::LoadModelRequest header_message;
  v1::LoadModelHeader* header = header_message.mutable_header();
  header->set_repository_path(name);
  *header->mutable_config() = std::move(overrides);
  ModelUpload upload(loading.repository, loading.max_model_bytes);
  if (absl::Status taken = upload.TakeMessage(header_message); !taken.ok()) return done(taken);
  StartLoad(loading, upload.Finish(), std::move(done));
}

void V2RepositoryUnload(const ModelLoadingContext& loading, const std::string& name,
                        const std::string& repository_name, V2Done done) {
  absl::Status refused = V2CheckRepositoryName(loading, "RepositoryModelUnload", repository_name);
  if (refused.ok() && name.empty()) {
    refused = absl::InvalidArgumentError(
        "RepositoryModelUnloadRequest.model_name is empty: name the model to unload");
  }
  if (!refused.ok()) return done(refused);
  // Triton's parameters here (unload_dependents) mean nothing without model ensembles: ignored.
  // Any model may be unloaded this way, uploads included, as UnloadModel does: the registry
  // holds one set of names.
  loading.registry->Unload(
      name, [done = std::move(done)](absl::StatusOr<ModelInfo> result) { done(result.status()); });
}

}  // namespace neuronserve
