#include "server/v2/v2_inference_service.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "server/grpc/grpc_status.h"
#include "server/grpc/infer_stream_reactor.h"  // instantiated in v2_reactors.cc
#include "server/grpc/infer_unary_reactor.h"
#include "server/grpc/raw_message.h"
#include "server/grpc/shared_memory_handlers.h"
#include "server/oip/v2_answers.h"
#include "server/security/rpc_scope.h"
#include "server/shared_memory/shared_memory_registry.h"
#include "server/v2/v2_infer_call.h"

namespace neuronserve {

V2InferenceService::V2InferenceService(const ModelLoadingContext& loading,
                                       const InferContext& infer, HealthSource health,
                                       ListenerPolicy policy)
    : loading_(loading), infer_(infer), health_(std::move(health)), policy_(std::move(policy)) {}

grpc::ServerUnaryReactor* V2InferenceService::ServerLive(grpc::CallbackServerContext* context,
                                                         const grpc::ByteBuffer* raw_request,
                                                         grpc::ByteBuffer* raw_response) {
  const std::string_view rpc_name = RpcName(rpc::kServerLive);
  inference::ServerLiveRequest request;
  if (grpc::ServerUnaryReactor* refused =
          CheckAndParse(guard_, context, rpc::kServerLive, *raw_request, request)) {
    return refused;
  }
  inference::ServerLiveResponse response;
  response.set_live(V2ServerLive(health_()));
  return FinishRawUnaryNow(context, rpc_name, grpc::Status::OK, response, raw_response);
}

grpc::ServerUnaryReactor* V2InferenceService::ServerReady(grpc::CallbackServerContext* context,
                                                          const grpc::ByteBuffer* raw_request,
                                                          grpc::ByteBuffer* raw_response) {
  const std::string_view rpc_name = RpcName(rpc::kServerReady);
  inference::ServerReadyRequest request;
  if (grpc::ServerUnaryReactor* refused =
          CheckAndParse(guard_, context, rpc::kServerReady, *raw_request, request)) {
    return refused;
  }
  inference::ServerReadyResponse response;
  response.set_ready(V2ServerReady(health_()));
  return FinishRawUnaryNow(context, rpc_name, grpc::Status::OK, response, raw_response);
}

grpc::ServerUnaryReactor* V2InferenceService::ModelReady(grpc::CallbackServerContext* context,
                                                         const grpc::ByteBuffer* raw_request,
                                                         grpc::ByteBuffer* raw_response) {
  const std::string_view rpc_name = RpcName(rpc::kModelReady);
  inference::ModelReadyRequest request;
  if (grpc::ServerUnaryReactor* refused =
          CheckAndParse(guard_, context, rpc::kModelReady, *raw_request, request,
                        &inference::ModelReadyRequest::name)) {
    return refused;
  }
  if (request.name().empty()) {
    return FinishUnaryNow(context, absl::InvalidArgumentError(
                                       "ModelReadyRequest.name is empty: name the model to check"));
  }
  inference::ModelReadyResponse response;
  response.set_ready(
      V2ModelReady(health_(), *loading_.registry, request.name(), request.version()));
  return FinishRawUnaryNow(context, rpc_name, grpc::Status::OK, response, raw_response);
}

grpc::ServerUnaryReactor* V2InferenceService::ServerMetadata(grpc::CallbackServerContext* context,
                                                             const grpc::ByteBuffer* raw_request,
                                                             grpc::ByteBuffer* raw_response) {
  const std::string_view rpc_name = RpcName(rpc::kServerMetadata);
  inference::ServerMetadataRequest request;
  if (grpc::ServerUnaryReactor* refused =
          CheckAndParse(guard_, context, rpc::kServerMetadata, *raw_request, request)) {
    return refused;
  }
  inference::ServerMetadataResponse response;
  V2ServerMetadata(response);
  return FinishRawUnaryNow(context, rpc_name, grpc::Status::OK, response, raw_response);
}

grpc::ServerUnaryReactor* V2InferenceService::ModelMetadata(grpc::CallbackServerContext* context,
                                                            const grpc::ByteBuffer* raw_request,
                                                            grpc::ByteBuffer* raw_response) {
  const std::string_view rpc_name = RpcName(rpc::kModelMetadata);
  inference::ModelMetadataRequest request;
  if (grpc::ServerUnaryReactor* refused =
          CheckAndParse(guard_, context, rpc::kModelMetadata, *raw_request, request,
                        &inference::ModelMetadataRequest::name)) {
    return refused;
  }
  if (request.name().empty()) {
    return FinishUnaryNow(
        context, absl::InvalidArgumentError("ModelMetadataRequest.name is empty: name the model"));
  }
  inference::ModelMetadataResponse response;
  const absl::Status status =
      V2ModelMetadata(*loading_.registry, request.name(), request.version(), response);
  return FinishRawUnaryNow(context, rpc_name, status, response, raw_response);
}

grpc::ServerUnaryReactor* V2InferenceService::ModelConfig(grpc::CallbackServerContext* context,
                                                          const grpc::ByteBuffer* raw_request,
                                                          grpc::ByteBuffer* raw_response) {
  const std::string_view rpc_name = RpcName(rpc::kModelConfig);
  inference::ModelConfigRequest request;
  if (grpc::ServerUnaryReactor* refused =
          CheckAndParse(guard_, context, rpc::kModelConfig, *raw_request, request,
                        &inference::ModelConfigRequest::name)) {
    return refused;
  }
  if (request.name().empty()) {
    return FinishUnaryNow(
        context, absl::InvalidArgumentError("ModelConfigRequest.name is empty: name the model"));
  }
  inference::ModelConfigResponse response;
  const absl::Status status = V2ModelConfig(*loading_.registry, request.name(), request.version(),
                                            *response.mutable_config());
  return FinishRawUnaryNow(context, rpc_name, status, response, raw_response);
}

grpc::ServerUnaryReactor* V2InferenceService::ModelInfer(grpc::CallbackServerContext* context,
                                                         const grpc::ByteBuffer* raw_request,
                                                         grpc::ByteBuffer* raw_response) {
  CallerCheck check = guard_.Check(context, rpc::kModelInfer, [&] {
    return ParsedName(*raw_request, &inference::ModelInferRequest::model_name);
  });
  if (!check.status.ok()) return FinishUnaryNow(context, check.status);
  // Parsed by the reactor, which owns the messages.
  return InferUnaryReactor<V2InferCall>::Start(infer_, context, raw_request, raw_response,
                                               std::move(check.identity));
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* V2InferenceService::ModelStreamInfer(
    grpc::CallbackServerContext* context) {
  CallerCheck check = guard_.Check(context, rpc::kModelStreamInfer);
  if (!check.status.ok()) {
    return new RefusedReactor<grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>>(
        check.status);
  }
  return new InferStreamReactor<V2InferCall>(infer_, context, std::move(check.identity));
}

grpc::ServerUnaryReactor* V2InferenceService::ModelStatistics(grpc::CallbackServerContext* context,
                                                              const grpc::ByteBuffer* raw_request,
                                                              grpc::ByteBuffer* raw_response) {
  const std::string_view rpc_name = RpcName(rpc::kModelStatistics);
  inference::ModelStatisticsRequest request;
  if (grpc::ServerUnaryReactor* refused =
          CheckAndParse(guard_, context, rpc::kModelStatistics, *raw_request, request,
                        &inference::ModelStatisticsRequest::name)) {
    return refused;
  }
  inference::ModelStatisticsResponse response;
  const absl::Status status =
      V2ModelStatistics(*loading_.registry, request.name(), request.version(), response);
  return FinishRawUnaryNow(context, rpc_name, status, response, raw_response);
}

grpc::ServerUnaryReactor* V2InferenceService::RepositoryIndex(grpc::CallbackServerContext* context,
                                                              const grpc::ByteBuffer* raw_request,
                                                              grpc::ByteBuffer* raw_response) {
  CallerCheck check = guard_.Check(context, rpc::kRepositoryIndex);
  if (!check.status.ok()) return FinishUnaryNow(context, check.status);
  // An admin call like the other two: audited however it ends (a request that does not parse
  // included).
  const AdminCallAudit audit = guard_.AdminAudit(context, std::move(check.identity));
  const std::string_view rpc_name = RpcName(rpc::kRepositoryIndex);
  inference::RepositoryIndexResponse response;
  auto finish = [&](const grpc::Status& status) {
    audit.Record(rpc_name, "", status);
    return FinishRawUnaryNow(context, rpc_name, status, response, raw_response);
  };
  inference::RepositoryIndexRequest request;
  absl::Status status = ParseMessage(rpc_name, *raw_request, request);
  if (status.ok()) {
    status = V2CheckRepositoryName(loading_, "RepositoryIndex", request.repository_name());
  }
  if (status.ok()) status = V2RepositoryIndex(loading_, request.ready(), response);
  return finish(ToGrpcStatus(status));
}

grpc::ServerUnaryReactor* V2InferenceService::RepositoryModelLoad(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw_request,
    grpc::ByteBuffer* raw_response) {
  CallerCheck check = guard_.Check(context, rpc::kRepositoryModelLoad, [&] {
    return ParsedName(*raw_request, &inference::RepositoryModelLoadRequest::model_name);
  });
  if (!check.status.ok()) return FinishUnaryNow(context, check.status);
  const AdminCallAudit audit = guard_.AdminAudit(context, std::move(check.identity));
  const std::string_view rpc_name = RpcName(rpc::kRepositoryModelLoad);
  // Finished from the registry's thread when the load ends, or at once when it is refused: the
  // reactor owns the messages until then.
  auto* reactor =
      new RawUnaryReactor<inference::RepositoryModelLoadRequest,
                          inference::RepositoryModelLoadResponse>(rpc_name, raw_response);
  if (absl::Status parsed = ParseMessage(rpc_name, *raw_request, reactor->request); !parsed.ok()) {
    const grpc::Status status = ToGrpcStatus(parsed);
    audit.Record(rpc_name, "", status);
    reactor->FinishWith(status);
    return reactor;
  }
  const inference::RepositoryModelLoadRequest& request = reactor->request;
  const std::string& name = request.model_name();
  // An upload's audit line says how many bytes its files carried.
  const std::optional<uint64_t> uploaded = V2UploadedBytes(request.parameters());
  V2RepositoryLoad(loading_, name, request.repository_name(), request.parameters(),
                   [reactor, audit, name, rpc_name, uploaded](const absl::Status& result) {
                     const grpc::Status status = ToGrpcStatus(result);
                     audit.Record(rpc_name, name, status, {}, uploaded);
                     reactor->FinishWith(status);
                   });
  return reactor;
}

grpc::ServerUnaryReactor* V2InferenceService::RepositoryModelUnload(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw_request,
    grpc::ByteBuffer* raw_response) {
  CallerCheck check = guard_.Check(context, rpc::kRepositoryModelUnload, [&] {
    return ParsedName(*raw_request, &inference::RepositoryModelUnloadRequest::model_name);
  });
  if (!check.status.ok()) return FinishUnaryNow(context, check.status);
  const AdminCallAudit audit = guard_.AdminAudit(context, std::move(check.identity));
  const std::string_view rpc_name = RpcName(rpc::kRepositoryModelUnload);
  auto* reactor =
      new RawUnaryReactor<inference::RepositoryModelUnloadRequest,
                          inference::RepositoryModelUnloadResponse>(rpc_name, raw_response);
  if (absl::Status parsed = ParseMessage(rpc_name, *raw_request, reactor->request); !parsed.ok()) {
    const grpc::Status status = ToGrpcStatus(parsed);
    audit.Record(rpc_name, "", status);
    reactor->FinishWith(status);
    return reactor;
  }
  const inference::RepositoryModelUnloadRequest& request = reactor->request;
  const std::string& name = request.model_name();
  V2RepositoryUnload(loading_, name, request.repository_name(),
                     [reactor, audit, name, rpc_name](const absl::Status& result) {
                       const grpc::Status status = ToGrpcStatus(result);
                       audit.Record(rpc_name, name, status);
                       reactor->FinishWith(status);
                     });
  return reactor;
}

grpc::ServerUnaryReactor* V2InferenceService::SystemSharedMemoryStatus(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw_request,
    grpc::ByteBuffer* raw_response) {
  return ServeSharedMemoryStatus<inference::SystemSharedMemoryStatusRequest,
                                 inference::SystemSharedMemoryStatusResponse>(
      guard_, infer_, context, rpc::kSystemSharedMemoryStatus, *raw_request, raw_response,
      [](inference::SystemSharedMemoryStatusResponse& response,
         const SharedMemoryRegionStatus& region) {
        auto& entry = (*response.mutable_regions())[region.name];
        entry.set_name(region.name);
        entry.set_key(region.key);
        entry.set_offset(region.offset);
        entry.set_byte_size(region.byte_size);
      });
}

grpc::ServerUnaryReactor* V2InferenceService::SystemSharedMemoryRegister(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw_request,
    grpc::ByteBuffer* raw_response) {
  return ServeRegisterSharedMemory<inference::SystemSharedMemoryRegisterRequest,
                                   inference::SystemSharedMemoryRegisterResponse>(
      guard_, infer_, context, rpc::kSystemSharedMemoryRegister, *raw_request, raw_response);
}

grpc::ServerUnaryReactor* V2InferenceService::SystemSharedMemoryUnregister(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw_request,
    grpc::ByteBuffer* raw_response) {
  return ServeUnregisterSharedMemory<inference::SystemSharedMemoryUnregisterRequest,
                                     inference::SystemSharedMemoryUnregisterResponse>(
      guard_, infer_, context, rpc::kSystemSharedMemoryUnregister, *raw_request, raw_response);
}

grpc::ServerUnaryReactor* V2InferenceService::CudaSharedMemoryStatus(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw_request,
    grpc::ByteBuffer* raw_response) {
  const std::string_view rpc_name = RpcName(rpc::kCudaSharedMemoryStatus);
  inference::CudaSharedMemoryStatusRequest request;
  if (grpc::ServerUnaryReactor* refused =
          CheckAndParse(guard_, context, rpc::kCudaSharedMemoryStatus, *raw_request, request)) {
    return refused;
  }
  inference::CudaSharedMemoryStatusResponse response;  // no regions, ever
  const absl::Status status = request.name().empty()
                                  ? absl::OkStatus()
                                  : SharedMemoryRegistry::NoCudaRegion(request.name());
  return FinishRawUnaryNow(context, rpc_name, status, response, raw_response);
}

grpc::ServerUnaryReactor* V2InferenceService::CudaSharedMemoryRegister(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw_request,
    grpc::ByteBuffer* raw_response) {
  const std::string_view rpc_name = RpcName(rpc::kCudaSharedMemoryRegister);
  inference::CudaSharedMemoryRegisterRequest request;
  if (grpc::ServerUnaryReactor* refused =
          CheckAndParse(guard_, context, rpc::kCudaSharedMemoryRegister, *raw_request, request)) {
    return refused;
  }
  inference::CudaSharedMemoryRegisterResponse response;
  return FinishRawUnaryNow(context, rpc_name,
                           SharedMemoryRegistry::CudaRegistrationRefused(request.name()), response,
                           raw_response);
}

grpc::ServerUnaryReactor* V2InferenceService::CudaSharedMemoryUnregister(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw_request,
    grpc::ByteBuffer* raw_response) {
  const std::string_view rpc_name = RpcName(rpc::kCudaSharedMemoryUnregister);
  inference::CudaSharedMemoryUnregisterRequest request;
  if (grpc::ServerUnaryReactor* refused =
          CheckAndParse(guard_, context, rpc::kCudaSharedMemoryUnregister, *raw_request, request)) {
    return refused;
  }
  inference::CudaSharedMemoryUnregisterResponse response;  // nothing to unregister: OK
  return FinishRawUnaryNow(context, rpc_name, absl::OkStatus(), response, raw_response);
}

}  // namespace neuronserve
