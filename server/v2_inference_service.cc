#include "server/v2_inference_service.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "core/lifecycle/model_registry.h"
#include "google/protobuf/util/json_util.h"
#include "server/grpc_status.h"
#include "server/infer_stream_reactor.h"
#include "server/infer_unary_reactor.h"
#include "server/model_repository.h"
#include "server/model_upload.h"
#include "server/security/rpc_scope.h"
#include "server/v2_datatype.h"

#ifndef NEURON_SERVE_VERSION
#error "NEURON_SERVE_VERSION (the project's version) must be defined by the build"
#endif

namespace neuronserve {
namespace {

// A unary call finished at once with `status`.
grpc::ServerUnaryReactor* FinishNow(grpc::CallbackServerContext* context,
                                    const grpc::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

grpc::ServerUnaryReactor* FinishNow(grpc::CallbackServerContext* context,
                                    const absl::Status& status) {
  return FinishNow(context, ToGrpcStatus(status));
}

// True when `info` describes a version that answers requests now or did until it began to
// unload (the registry then still holds its tensors and counters).
bool HasServingVersion(const ModelInfo& info) {
  return info.state == ModelState::kReady || info.state == ModelState::kUnloading;
}

void FillDuration(inference::StatisticDuration* duration, uint64_t count, uint64_t ns) {
  duration->set_count(count);
  duration->set_ns(ns);
}

void FillStatistics(const ModelInfo& info, inference::ModelStatistics* out) {
  const RequestStatistics& stats = info.statistics;
  out->set_name(info.identity.name);
  out->set_version(info.identity.version);
  out->set_last_inference(stats.last_request == absl::InfinitePast()
                              ? 0
                              : static_cast<uint64_t>(absl::ToUnixMillis(stats.last_request)));
  // No batching across requests: one successful request is one inference.
  out->set_inference_count(stats.success_count);
  out->set_execution_count(stats.executions);
  inference::InferStatistics* infer = out->mutable_inference_stats();
  FillDuration(infer->mutable_success(), stats.success_count, stats.success_ns);
  FillDuration(infer->mutable_fail(), stats.fail_count, stats.fail_ns);
  FillDuration(infer->mutable_queue(), stats.queue_count, stats.queue_ns);
  // The device time covers the tensor writes, nrt_execute and the tensor reads together (the
  // runtime does not time them apart), so it is all compute_infer; compute_input and
  // compute_output stay 0. No response cache: cache_hit and cache_miss stay 0.
  FillDuration(infer->mutable_compute_infer(), stats.compute_count, stats.compute_ns);
  FillDuration(infer->mutable_compute_input(), 0, 0);
  FillDuration(infer->mutable_compute_output(), 0, 0);
}

void FillTensors(
    const std::vector<TensorSpec>& specs,
    google::protobuf::RepeatedPtrField<inference::ModelMetadataResponse::TensorMetadata>* out) {
  for (const TensorSpec& spec : specs) {
    inference::ModelMetadataResponse::TensorMetadata* tensor = out->Add();
    tensor->set_name(spec.name);
    tensor->set_datatype(V2DatatypeName(spec.dtype));
    for (uint32_t dim : spec.shape) tensor->add_shape(static_cast<int64_t>(dim));
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

// The overrides a RepositoryModelLoad's parameters give (Triton's "config": JSON of our
// ModelConfig), or INVALID_ARGUMENT naming the parameter.
absl::StatusOr<v1::ModelConfig> LoadOverrides(
    const std::string& model,
    const google::protobuf::Map<std::string, inference::ModelRepositoryParameter>& parameters) {
  v1::ModelConfig overrides;
  // In name order, so that of several bad parameters the same one is named every time.
  std::map<std::string, const inference::ModelRepositoryParameter*> sorted;
  for (const auto& [key, value] : parameters) sorted.emplace(key, &value);
  for (const auto& [key, value] : sorted) {
    if (absl::StartsWith(key, "file:")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "RepositoryModelLoad '", model, "': parameter '", key,
          "' carries model bytes, which this server does not take here; upload them with the "
          "native chunked stream neuronserve.v1.NeuronServing/LoadModel (neuronctl load), or "
          "put the model in the --model-repository folder"));
    }
    if (key != "config") {
      return absl::InvalidArgumentError(
          absl::StrCat("RepositoryModelLoad '", model, "': unknown parameter '", key,
                       "'; the parameter taken is 'config' (a neuronserve.v1.ModelConfig "
                       "in JSON)"));
    }
    if (value->parameter_choice_case() != inference::ModelRepositoryParameter::kStringParam) {
      return absl::InvalidArgumentError(
          absl::StrCat("RepositoryModelLoad '", model,
                       "': parameter 'config' must be a string_param holding a "
                       "neuronserve.v1.ModelConfig in JSON"));
    }
    const google::protobuf::util::Status parsed =
        google::protobuf::util::JsonStringToMessage(value->string_param(), &overrides);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("RepositoryModelLoad '", model,
                       "': parameter 'config' is not a neuronserve.v1.ModelConfig in JSON: ",
                       std::string(parsed.message())));
    }
    if (!overrides.name().empty() && overrides.name() != model) {
      return absl::InvalidArgumentError(
          absl::StrCat("RepositoryModelLoad '", model, "': parameter 'config' names the model '",
                       overrides.name(), "'; leave the name out or give '", model, "'"));
    }
  }
  return overrides;
}

}  // namespace

V2InferenceService::V2InferenceService(const NrtRuntime& runtime,
                                       const ModelLoadingContext& loading,
                                       const InferContext& infer, HealthSource health,
                                       ListenerPolicy policy)
    : runtime_(runtime),
      loading_(loading),
      infer_(infer),
      health_(std::move(health)),
      policy_(std::move(policy)) {}

grpc::ServerUnaryReactor* V2InferenceService::ServerLive(
    grpc::CallbackServerContext* context, const inference::ServerLiveRequest* /*request*/,
    inference::ServerLiveResponse* response) {
  if (CallerCheck check = guard_.Check(context, rpc::kServerLive); !check.status.ok()) {
    return FinishNow(context, check.status);
  }
  const std::optional<HealthReport> report = health_();
  response->set_live(report.has_value() && report->live);
  return FinishNow(context, grpc::Status::OK);
}

grpc::ServerUnaryReactor* V2InferenceService::ServerReady(
    grpc::CallbackServerContext* context, const inference::ServerReadyRequest* /*request*/,
    inference::ServerReadyResponse* response) {
  if (CallerCheck check = guard_.Check(context, rpc::kServerReady); !check.status.ok()) {
    return FinishNow(context, check.status);
  }
  const std::optional<HealthReport> report = health_();
  response->set_ready(report.has_value() && report->serving);
  return FinishNow(context, grpc::Status::OK);
}

grpc::ServerUnaryReactor* V2InferenceService::ModelReady(
    grpc::CallbackServerContext* context, const inference::ModelReadyRequest* request,
    inference::ModelReadyResponse* response) {
  if (CallerCheck check = guard_.Check(context, rpc::kModelReady, request->name());
      !check.status.ok()) {
    return FinishNow(context, check.status);
  }
  if (request->name().empty()) {
    return FinishNow(context, absl::InvalidArgumentError(
                                  "ModelReadyRequest.name is empty: name the model to check"));
  }
  // Like Triton: a model the server does not know is not ready, and that is an answer, not an
  // error. The model's health status is the one grpc.health.v1 publishes under its name.
  const std::optional<HealthReport> report = health_();
  bool ready = false;
  if (report.has_value()) {
    auto found = report->models.find(request->name());
    ready = found != report->models.end() && found->second;
  }
  if (ready && !request->version().empty()) {
    // Only the serving version is ready; a version given that is not it is not.
    absl::StatusOr<ModelInfo> info = loading_.registry->Get(request->name());
    ready = info.ok() && info->identity.version == request->version();
  }
  response->set_ready(ready);
  return FinishNow(context, grpc::Status::OK);
}

grpc::ServerUnaryReactor* V2InferenceService::ServerMetadata(
    grpc::CallbackServerContext* context, const inference::ServerMetadataRequest* /*request*/,
    inference::ServerMetadataResponse* response) {
  if (CallerCheck check = guard_.Check(context, rpc::kServerMetadata); !check.status.ok()) {
    return FinishNow(context, check.status);
  }
  response->set_name(kV2ServerName);
  response->set_version(NEURON_SERVE_VERSION);
  for (const char* extension : kV2Extensions) response->add_extensions(extension);
  return FinishNow(context, grpc::Status::OK);
}

grpc::ServerUnaryReactor* V2InferenceService::ModelMetadata(
    grpc::CallbackServerContext* context, const inference::ModelMetadataRequest* request,
    inference::ModelMetadataResponse* response) {
  if (CallerCheck check = guard_.Check(context, rpc::kModelMetadata, request->name());
      !check.status.ok()) {
    return FinishNow(context, check.status);
  }
  if (request->name().empty()) {
    return FinishNow(
        context, absl::InvalidArgumentError("ModelMetadataRequest.name is empty: name the model"));
  }
  // The READY version, as inference would find it: NOT_FOUND naming the model (and its state
  // when it has no serving version) otherwise.
  absl::StatusOr<LoadedModel::Lease> lease = loading_.registry->Acquire(request->name());
  if (!lease.ok()) return FinishNow(context, lease.status());
  const LoadedModel& model = **lease;
  const ModelIdentity& identity = model.identity();
  if (!request->version().empty() && request->version() != identity.version) {
    return FinishNow(context, VersionMismatchError(identity.name, request->version(), identity.version));
  }
  response->set_name(identity.name);
  response->add_versions(identity.version);
  response->set_platform("neuron");
  FillTensors(model.inputs(), response->mutable_inputs());
  FillTensors(model.outputs(), response->mutable_outputs());
  return FinishNow(context, grpc::Status::OK);
}

grpc::ServerUnaryReactor* V2InferenceService::ModelInfer(
    grpc::CallbackServerContext* context, const inference::ModelInferRequest* request,
    inference::ModelInferResponse* response) {
  CallerCheck check = guard_.Check(context, rpc::kModelInfer, request->model_name());
  if (!check.status.ok()) return FinishNow(context, check.status);
  return InferUnaryReactor<V2InferCall>::Start(infer_, context, request, response,
                                               std::move(check.identity));
}

grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
V2InferenceService::ModelStreamInfer(grpc::CallbackServerContext* context) {
  CallerCheck check = guard_.Check(context, rpc::kModelStreamInfer);
  if (!check.status.ok()) {
    return new RefusedReactor<grpc::ServerBidiReactor<inference::ModelInferRequest,
                                                      inference::ModelStreamInferResponse>>(
        check.status);
  }
  return new InferStreamReactor<V2InferCall>(infer_, context, std::move(check.identity));
}

grpc::ServerUnaryReactor* V2InferenceService::ModelStatistics(
    grpc::CallbackServerContext* context, const inference::ModelStatisticsRequest* request,
    inference::ModelStatisticsResponse* response) {
  if (CallerCheck check = guard_.Check(context, rpc::kModelStatistics, request->name());
      !check.status.ok()) {
    return FinishNow(context, check.status);
  }
  if (request->name().empty()) {
    // Every model with a serving version (of the version asked for, when one is).
    for (const ModelInfo& info : loading_.registry->List()) {
      if (!HasServingVersion(info)) continue;
      if (!request->version().empty() && info.identity.version != request->version()) continue;
      FillStatistics(info, response->add_model_stats());
    }
    return FinishNow(context, grpc::Status::OK);
  }
  absl::StatusOr<ModelInfo> info = loading_.registry->Get(request->name());
  if (!info.ok()) return FinishNow(context, info.status());
  if (!HasServingVersion(*info)) {
    return FinishNow(context, absl::NotFoundError(absl::StrCat("model '", request->name(), "' is ",
                                                               ModelStateName(info->state),
                                                               ": no version has statistics")));
  }
  if (!request->version().empty() && request->version() != info->identity.version) {
    return FinishNow(context,
                     VersionMismatchError(request->name(), request->version(), info->identity.version));
  }
  FillStatistics(*info, response->add_model_stats());
  return FinishNow(context, grpc::Status::OK);
}

absl::Status V2InferenceService::CheckRepositoryName(absl::string_view rpc,
                                                     const std::string& repository_name) const {
  if (repository_name.empty()) return absl::OkStatus();
  if (loading_.repository == nullptr) {
    return absl::NotFoundError(absl::StrCat(std::string(rpc), ": repository '", repository_name,
                                            "' not found: the daemon has no --model-repository"));
  }
  const std::string ours = BaseName(loading_.repository->root());
  if (repository_name != ours) {
    return absl::NotFoundError(absl::StrCat(std::string(rpc), ": repository '", repository_name,
                                            "' not found; the one repository is '", ours,
                                            "' (or give none)"));
  }
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* V2InferenceService::RepositoryIndex(
    grpc::CallbackServerContext* context, const inference::RepositoryIndexRequest* request,
    inference::RepositoryIndexResponse* response) {
  CallerCheck check = guard_.Check(context, rpc::kRepositoryIndex);
  if (!check.status.ok()) return FinishNow(context, check.status);
  // An admin call like the other two: audited however it ends.
  const AdminCallAudit audit = guard_.AdminAudit(context, std::move(check.identity));
  auto finish = [&](const grpc::Status& status) {
    audit.Record(RpcName(rpc::kRepositoryIndex), "", status);
    return FinishNow(context, status);
  };
  if (absl::Status named = CheckRepositoryName("RepositoryIndex", request->repository_name());
      !named.ok()) {
    return finish(ToGrpcStatus(named));
  }
  // By name: the registry's models (uploads included), then the repository's folders that the
  // registry does not know, as UNAVAILABLE (Triton lists its repository's unloaded models so).
  std::map<std::string, inference::RepositoryIndexResponse::ModelIndex> index;
  for (const ModelInfo& info : loading_.registry->List()) {
    inference::RepositoryIndexResponse::ModelIndex& entry = index[info.identity.name];
    entry.set_name(info.identity.name);
    entry.set_version(info.identity.version);
    entry.set_state(IndexState(info.state));
    if (info.state == ModelState::kFailed) entry.set_reason(info.error);
  }
  if (loading_.repository != nullptr) {
    absl::StatusOr<std::vector<std::string>> folders = loading_.repository->ModelFolders();
    if (!folders.ok()) return finish(ToGrpcStatus(folders.status()));
    for (const std::string& folder : *folders) {
      // The model's name is its config's (the folder's name by default).
      absl::StatusOr<RepositoryModel> model = loading_.repository->Resolve(folder);
      const std::string name = model.ok() ? model->config.name() : folder;
      if (index.contains(name)) continue;
      inference::RepositoryIndexResponse::ModelIndex& entry = index[name];
      entry.set_name(name);
      if (model.ok()) entry.set_version(model->config.version());
      entry.set_state("UNAVAILABLE");
      entry.set_reason(model.ok() ? "not loaded" : std::string(model.status().message()));
    }
  }
  for (auto& [name, entry] : index) {
    if (request->ready() && entry.state() != "READY") continue;
    *response->add_models() = std::move(entry);
  }
  return finish(grpc::Status::OK);
}

grpc::ServerUnaryReactor* V2InferenceService::RepositoryModelLoad(
    grpc::CallbackServerContext* context, const inference::RepositoryModelLoadRequest* request,
    inference::RepositoryModelLoadResponse* /*response*/) {
  const std::string& name = request->model_name();
  CallerCheck check = guard_.Check(context, rpc::kRepositoryModelLoad, name);
  if (!check.status.ok()) return FinishNow(context, check.status);
  const AdminCallAudit audit = guard_.AdminAudit(context, std::move(check.identity));
  const std::string_view rpc_name = RpcName(rpc::kRepositoryModelLoad);
  auto refuse = [&](const absl::Status& status) {
    const grpc::Status refused = ToGrpcStatus(status);
    audit.Record(rpc_name, name, refused);
    return FinishNow(context, refused);
  };
  if (loading_.repository == nullptr) {
    return refuse(absl::FailedPreconditionError(absl::StrCat(
        "RepositoryModelLoad '", name,
        "': the daemon has no --model-repository; start it with one, or upload the model with "
        "neuronserve.v1.NeuronServing/LoadModel")));
  }
  if (absl::Status named = CheckRepositoryName("RepositoryModelLoad", request->repository_name());
      !named.ok()) {
    return refuse(named);
  }
  if (name.empty()) {
    return refuse(absl::InvalidArgumentError(
        "RepositoryModelLoadRequest.model_name is empty: name a model folder of the repository"));
  }
  absl::StatusOr<v1::ModelConfig> overrides = LoadOverrides(name, request->parameters());
  if (!overrides.ok()) return refuse(overrides.status());

  // The native repository load's own path: a LoadModel header naming the folder, with the
  // overrides merged over its config.pbtxt (ModelUpload::Finish, load_spec.h MergeConfig).
  v1::LoadModelRequest header_message;
  v1::LoadModelHeader* header = header_message.mutable_header();
  header->set_repository_path(name);
  *header->mutable_config() = *std::move(overrides);
  ModelUpload upload(loading_.repository, loading_.max_model_bytes);
  if (absl::Status taken = upload.TakeMessage(header_message); !taken.ok()) return refuse(taken);
  absl::StatusOr<LoadSpec> spec = upload.Finish();
  if (!spec.ok()) return refuse(spec.status());

  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  loading_.registry->Load(*std::move(spec),
                          [reactor, audit, name, rpc_name](absl::StatusOr<ModelInfo> result) {
                            const grpc::Status status = ToGrpcStatus(result.status());
                            audit.Record(rpc_name, name, status);
                            reactor->Finish(status);
                          });
  return reactor;
}

grpc::ServerUnaryReactor* V2InferenceService::RepositoryModelUnload(
    grpc::CallbackServerContext* context, const inference::RepositoryModelUnloadRequest* request,
    inference::RepositoryModelUnloadResponse* /*response*/) {
  const std::string& name = request->model_name();
  CallerCheck check = guard_.Check(context, rpc::kRepositoryModelUnload, name);
  if (!check.status.ok()) return FinishNow(context, check.status);
  const AdminCallAudit audit = guard_.AdminAudit(context, std::move(check.identity));
  const std::string_view rpc_name = RpcName(rpc::kRepositoryModelUnload);
  absl::Status refused = CheckRepositoryName("RepositoryModelUnload", request->repository_name());
  if (refused.ok() && name.empty()) {
    refused = absl::InvalidArgumentError(
        "RepositoryModelUnloadRequest.model_name is empty: name the model to unload");
  }
  if (!refused.ok()) {
    const grpc::Status status = ToGrpcStatus(refused);
    audit.Record(rpc_name, name, status);
    return FinishNow(context, status);
  }
  // Triton's parameters here (unload_dependents) mean nothing without model ensembles: ignored.
  // Any model may be unloaded this way, uploads included, as UnloadModel does: the registry
  // holds one set of names.
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  loading_.registry->Unload(name,
                            [reactor, audit, name, rpc_name](absl::StatusOr<ModelInfo> result) {
                              const grpc::Status status = ToGrpcStatus(result.status());
                              audit.Record(rpc_name, name, status);
                              reactor->Finish(status);
                            });
  return reactor;
}

}  // namespace neuronserve
