#include "server/v2/v2_inference_service.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "server/grpc/grpc_status.h"
#include "server/grpc/infer_rpc.h"  // the reactors are instantiated in v2_reactors.cc
#include "server/grpc/raw_message.h"
#include "server/grpc/shared_memory_handlers.h"
#include "server/grpc/unary_rpc.h"
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
  return AnswerUnaryNow<inference::ServerLiveRequest, inference::ServerLiveResponse>(
      guard_, rpc::kServerLive, {context, raw_request, raw_response},
      [this](const inference::ServerLiveRequest&, inference::ServerLiveResponse& response) {
        response.set_live(V2ServerLive(health_()));
        return absl::OkStatus();
      });
}

grpc::ServerUnaryReactor* V2InferenceService::ServerReady(grpc::CallbackServerContext* context,
                                                          const grpc::ByteBuffer* raw_request,
                                                          grpc::ByteBuffer* raw_response) {
  return AnswerUnaryNow<inference::ServerReadyRequest, inference::ServerReadyResponse>(
      guard_, rpc::kServerReady, {context, raw_request, raw_response},
      [this](const inference::ServerReadyRequest&, inference::ServerReadyResponse& response) {
        response.set_ready(V2ServerReady(health_()));
        return absl::OkStatus();
      });
}

grpc::ServerUnaryReactor* V2InferenceService::ModelReady(grpc::CallbackServerContext* context,
                                                         const grpc::ByteBuffer* raw_request,
                                                         grpc::ByteBuffer* raw_response) {
  return AnswerUnaryNow<inference::ModelReadyRequest, inference::ModelReadyResponse>(
      guard_, rpc::kModelReady, {context, raw_request, raw_response},
      [this](const inference::ModelReadyRequest& request, inference::ModelReadyResponse& response) {
        if (request.name().empty()) {
          return absl::InvalidArgumentError(
              "ModelReadyRequest.name is empty: name the model to check");
        }
        response.set_ready(
            V2ModelReady(health_(), *loading_.registry, request.name(), request.version()));
        return absl::OkStatus();
      },
      &inference::ModelReadyRequest::name);
}

grpc::ServerUnaryReactor* V2InferenceService::ServerMetadata(grpc::CallbackServerContext* context,
                                                             const grpc::ByteBuffer* raw_request,
                                                             grpc::ByteBuffer* raw_response) {
  return AnswerUnaryNow<inference::ServerMetadataRequest, inference::ServerMetadataResponse>(
      guard_, rpc::kServerMetadata, {context, raw_request, raw_response},
      [this](const inference::ServerMetadataRequest&, inference::ServerMetadataResponse& response) {
        V2ServerMetadata(response);
        return absl::OkStatus();
      });
}

grpc::ServerUnaryReactor* V2InferenceService::ModelMetadata(grpc::CallbackServerContext* context,
                                                            const grpc::ByteBuffer* raw_request,
                                                            grpc::ByteBuffer* raw_response) {
  return AnswerUnaryNow<inference::ModelMetadataRequest, inference::ModelMetadataResponse>(
      guard_, rpc::kModelMetadata, {context, raw_request, raw_response},
      [this](const inference::ModelMetadataRequest& request,
             inference::ModelMetadataResponse& response) {
        if (request.name().empty()) {
          return absl::InvalidArgumentError("ModelMetadataRequest.name is empty: name the model");
        }
        return V2ModelMetadata(*loading_.registry, request.name(), request.version(), response);
      },
      &inference::ModelMetadataRequest::name);
}

grpc::ServerUnaryReactor* V2InferenceService::ModelConfig(grpc::CallbackServerContext* context,
                                                          const grpc::ByteBuffer* raw_request,
                                                          grpc::ByteBuffer* raw_response) {
  return AnswerUnaryNow<inference::ModelConfigRequest, inference::ModelConfigResponse>(
      guard_, rpc::kModelConfig, {context, raw_request, raw_response},
      [this](const inference::ModelConfigRequest& request,
             inference::ModelConfigResponse& response) {
        if (request.name().empty()) {
          return absl::InvalidArgumentError("ModelConfigRequest.name is empty: name the model");
        }
        return V2ModelConfig(*loading_.registry, request.name(), request.version(),
                             *response.mutable_config());
      },
      &inference::ModelConfigRequest::name);
}

grpc::ServerUnaryReactor* V2InferenceService::ModelInfer(grpc::CallbackServerContext* context,
                                                         const grpc::ByteBuffer* raw_request,
                                                         grpc::ByteBuffer* raw_response) {
  return ServeInfer<V2InferCall>(guard_, infer_, {context, raw_request, raw_response});
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* V2InferenceService::ModelStreamInfer(
    grpc::CallbackServerContext* context) {
  return ServeInferStream<V2InferCall>(guard_, infer_, context);
}

grpc::ServerUnaryReactor* V2InferenceService::ModelStatistics(grpc::CallbackServerContext* context,
                                                              const grpc::ByteBuffer* raw_request,
                                                              grpc::ByteBuffer* raw_response) {
  return AnswerUnaryNow<inference::ModelStatisticsRequest, inference::ModelStatisticsResponse>(
      guard_, rpc::kModelStatistics, {context, raw_request, raw_response},
      [this](const inference::ModelStatisticsRequest& request,
             inference::ModelStatisticsResponse& response) {
        return V2ModelStatistics(*loading_.registry, request.name(), request.version(), response);
      },
      &inference::ModelStatisticsRequest::name);
}

grpc::ServerUnaryReactor* V2InferenceService::RepositoryIndex(grpc::CallbackServerContext* context,
                                                              const grpc::ByteBuffer* raw_request,
                                                              grpc::ByteBuffer* raw_response) {
  // An admin call like the other two: audited however it ends (a request that does not parse
  // included), naming no model.
  using Request = inference::RepositoryIndexRequest;
  using Response = inference::RepositoryIndexResponse;
  return ServeAdminUnary<Request, Response>(
      guard_, rpc::kRepositoryIndex, {context, raw_request, raw_response}, nullptr,
      [this](const Request& request, Response& response,
             AdminUnaryAnswer<Request, Response> answer) {
        absl::Status status =
            V2CheckRepositoryName(loading_, "RepositoryIndex", request.repository_name());
        if (status.ok()) status = V2RepositoryIndex(loading_, request.ready(), response);
        answer(status);
      });
}

grpc::ServerUnaryReactor* V2InferenceService::RepositoryModelLoad(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw_request,
    grpc::ByteBuffer* raw_response) {
  using Request = inference::RepositoryModelLoadRequest;
  using Response = inference::RepositoryModelLoadResponse;
  // Finished from the registry's thread when the load ends, or at once when it is refused.
  return ServeAdminUnary<Request, Response>(
      guard_, rpc::kRepositoryModelLoad, {context, raw_request, raw_response}, &Request::model_name,
      [this](const Request& request, Response&, AdminUnaryAnswer<Request, Response> answer) {
        // An upload's audit line says how many bytes its files carried.
        const std::optional<uint64_t> uploaded = V2UploadedBytes(request.parameters());
        V2RepositoryLoad(loading_, request.model_name(), request.repository_name(),
                         request.parameters(),
                         [answer = std::move(answer), uploaded](const absl::Status& result) {
                           answer(result, uploaded);
                         });
      });
}

grpc::ServerUnaryReactor* V2InferenceService::RepositoryModelUnload(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw_request,
    grpc::ByteBuffer* raw_response) {
  using Request = inference::RepositoryModelUnloadRequest;
  using Response = inference::RepositoryModelUnloadResponse;
  return ServeAdminUnary<Request, Response>(
      guard_, rpc::kRepositoryModelUnload, {context, raw_request, raw_response},
      &Request::model_name,
      [this](const Request& request, Response&, AdminUnaryAnswer<Request, Response> answer) {
        V2RepositoryUnload(
            loading_, request.model_name(), request.repository_name(),
            [answer = std::move(answer)](const absl::Status& result) { answer(result); });
      });
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
  return AnswerUnaryNow<inference::CudaSharedMemoryStatusRequest,
                        inference::CudaSharedMemoryStatusResponse>(
      guard_, rpc::kCudaSharedMemoryStatus, {context, raw_request, raw_response},
      [](const inference::CudaSharedMemoryStatusRequest& request,
         inference::CudaSharedMemoryStatusResponse&) {
        // No regions, ever.
        return request.name().empty() ? absl::OkStatus()
                                      : SharedMemoryRegistry::NoCudaRegion(request.name());
      });
}

grpc::ServerUnaryReactor* V2InferenceService::CudaSharedMemoryRegister(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw_request,
    grpc::ByteBuffer* raw_response) {
  return AnswerUnaryNow<inference::CudaSharedMemoryRegisterRequest,
                        inference::CudaSharedMemoryRegisterResponse>(
      guard_, rpc::kCudaSharedMemoryRegister, {context, raw_request, raw_response},
      [](const inference::CudaSharedMemoryRegisterRequest& request,
         inference::CudaSharedMemoryRegisterResponse&) {
        return SharedMemoryRegistry::CudaRegistrationRefused(request.name());
      });
}

grpc::ServerUnaryReactor* V2InferenceService::CudaSharedMemoryUnregister(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw_request,
    grpc::ByteBuffer* raw_response) {
  return AnswerUnaryNow<inference::CudaSharedMemoryUnregisterRequest,
                        inference::CudaSharedMemoryUnregisterResponse>(
      guard_, rpc::kCudaSharedMemoryUnregister, {context, raw_request, raw_response},
      [](const inference::CudaSharedMemoryUnregisterRequest&,
         inference::CudaSharedMemoryUnregisterResponse&) {
        return absl::OkStatus();  // nothing to unregister
      });
}

}  // namespace neuronserve
