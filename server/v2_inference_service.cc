#include "server/v2_inference_service.h"

#include <string>
#include <utility>

#include "server/grpc_status.h"
#include "server/infer_stream_reactor.h"
#include "server/infer_unary_reactor.h"
#include "server/security/rpc_scope.h"
#include "server/v2_answers.h"

namespace neuronserve {

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
    return FinishUnaryNow(context, check.status);
  }
  response->set_live(V2ServerLive(health_()));
  return FinishUnaryNow(context, grpc::Status::OK);
}

grpc::ServerUnaryReactor* V2InferenceService::ServerReady(
    grpc::CallbackServerContext* context, const inference::ServerReadyRequest* /*request*/,
    inference::ServerReadyResponse* response) {
  if (CallerCheck check = guard_.Check(context, rpc::kServerReady); !check.status.ok()) {
    return FinishUnaryNow(context, check.status);
  }
  response->set_ready(V2ServerReady(health_()));
  return FinishUnaryNow(context, grpc::Status::OK);
}

grpc::ServerUnaryReactor* V2InferenceService::ModelReady(
    grpc::CallbackServerContext* context, const inference::ModelReadyRequest* request,
    inference::ModelReadyResponse* response) {
  if (CallerCheck check = guard_.Check(context, rpc::kModelReady, request->name());
      !check.status.ok()) {
    return FinishUnaryNow(context, check.status);
  }
  if (request->name().empty()) {
    return FinishUnaryNow(context, absl::InvalidArgumentError(
                                       "ModelReadyRequest.name is empty: name the model to check"));
  }
  response->set_ready(
      V2ModelReady(health_(), *loading_.registry, request->name(), request->version()));
  return FinishUnaryNow(context, grpc::Status::OK);
}

grpc::ServerUnaryReactor* V2InferenceService::ServerMetadata(
    grpc::CallbackServerContext* context, const inference::ServerMetadataRequest* /*request*/,
    inference::ServerMetadataResponse* response) {
  if (CallerCheck check = guard_.Check(context, rpc::kServerMetadata); !check.status.ok()) {
    return FinishUnaryNow(context, check.status);
  }
  V2ServerMetadata(*response);
  return FinishUnaryNow(context, grpc::Status::OK);
}

grpc::ServerUnaryReactor* V2InferenceService::ModelMetadata(
    grpc::CallbackServerContext* context, const inference::ModelMetadataRequest* request,
    inference::ModelMetadataResponse* response) {
  if (CallerCheck check = guard_.Check(context, rpc::kModelMetadata, request->name());
      !check.status.ok()) {
    return FinishUnaryNow(context, check.status);
  }
  if (request->name().empty()) {
    return FinishUnaryNow(
        context, absl::InvalidArgumentError("ModelMetadataRequest.name is empty: name the model"));
  }
  return FinishUnaryNow(
      context, V2ModelMetadata(*loading_.registry, request->name(), request->version(), *response));
}

grpc::ServerUnaryReactor* V2InferenceService::ModelInfer(
    grpc::CallbackServerContext* context, const inference::ModelInferRequest* request,
    inference::ModelInferResponse* response) {
  CallerCheck check = guard_.Check(context, rpc::kModelInfer, request->model_name());
  if (!check.status.ok()) return FinishUnaryNow(context, check.status);
  return InferUnaryReactor<V2InferCall>::Start(infer_, context, request, response,
                                               std::move(check.identity));
}

grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
V2InferenceService::ModelStreamInfer(grpc::CallbackServerContext* context) {
  CallerCheck check = guard_.Check(context, rpc::kModelStreamInfer);
  if (!check.status.ok()) {
    return new RefusedReactor<
        grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>>(
        check.status);
  }
  return new InferStreamReactor<V2InferCall>(infer_, context, std::move(check.identity));
}

grpc::ServerUnaryReactor* V2InferenceService::ModelStatistics(
    grpc::CallbackServerContext* context, const inference::ModelStatisticsRequest* request,
    inference::ModelStatisticsResponse* response) {
  if (CallerCheck check = guard_.Check(context, rpc::kModelStatistics, request->name());
      !check.status.ok()) {
    return FinishUnaryNow(context, check.status);
  }
  return FinishUnaryNow(context, V2ModelStatistics(*loading_.registry, request->name(),
                                                   request->version(), *response));
}

grpc::ServerUnaryReactor* V2InferenceService::RepositoryIndex(
    grpc::CallbackServerContext* context, const inference::RepositoryIndexRequest* request,
    inference::RepositoryIndexResponse* response) {
  CallerCheck check = guard_.Check(context, rpc::kRepositoryIndex);
  if (!check.status.ok()) return FinishUnaryNow(context, check.status);
  // An admin call like the other two: audited however it ends.
  const AdminCallAudit audit = guard_.AdminAudit(context, std::move(check.identity));
  auto finish = [&](const grpc::Status& status) {
    audit.Record(RpcName(rpc::kRepositoryIndex), "", status);
    return FinishUnaryNow(context, status);
  };
  absl::Status status =
      V2CheckRepositoryName(loading_, "RepositoryIndex", request->repository_name());
  if (status.ok()) status = V2RepositoryIndex(loading_, request->ready(), *response);
  return finish(ToGrpcStatus(status));
}

grpc::ServerUnaryReactor* V2InferenceService::RepositoryModelLoad(
    grpc::CallbackServerContext* context, const inference::RepositoryModelLoadRequest* request,
    inference::RepositoryModelLoadResponse* /*response*/) {
  const std::string& name = request->model_name();
  CallerCheck check = guard_.Check(context, rpc::kRepositoryModelLoad, name);
  if (!check.status.ok()) return FinishUnaryNow(context, check.status);
  const AdminCallAudit audit = guard_.AdminAudit(context, std::move(check.identity));
  const std::string_view rpc_name = RpcName(rpc::kRepositoryModelLoad);
  // Finished from the registry's thread when the load ends, or at once when it is refused.
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  V2RepositoryLoad(loading_, name, request->repository_name(), request->parameters(),
                   [reactor, audit, name, rpc_name](const absl::Status& result) {
                     const grpc::Status status = ToGrpcStatus(result);
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
  if (!check.status.ok()) return FinishUnaryNow(context, check.status);
  const AdminCallAudit audit = guard_.AdminAudit(context, std::move(check.identity));
  const std::string_view rpc_name = RpcName(rpc::kRepositoryModelUnload);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  V2RepositoryUnload(loading_, name, request->repository_name(),
                     [reactor, audit, name, rpc_name](const absl::Status& result) {
                       const grpc::Status status = ToGrpcStatus(result);
                       audit.Record(rpc_name, name, status);
                       reactor->Finish(status);
                     });
  return reactor;
}

}  // namespace neuronserve
