#include "server/native/neuron_serving_service.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/serving/execution/worker_pool.h"
#include "server/grpc/grpc_status.h"
#include "server/grpc/infer_rpc.h"  // the reactors are instantiated in native_reactors.cc
#include "server/grpc/raw_message.h"
#include "server/grpc/shared_memory_handlers.h"
#include "server/grpc/unary_rpc.h"
#include "server/native/enumerate_response.h"
#include "server/native/model_status.h"
#include "server/native/native_infer_call.h"
#include "server/security/rpc_scope.h"

namespace neuronserve {
NeuronServingService::NeuronServingService(const NrtRuntime& runtime,
                                           const DeviceInventory& inventory,
                                           const ModelLoadingContext& loading,
                                           const InferContext& infer, ListenerPolicy policy)
    : runtime_(runtime),
      loading_(loading),
      infer_(infer),
      inventory_response_(BuildEnumerateResponse(inventory)),
      policy_(std::move(policy)) {}

grpc::ServerUnaryReactor* NeuronServingService::Enumerate(grpc::CallbackServerContext* context,
                                                          const grpc::ByteBuffer* raw_request,
                                                          grpc::ByteBuffer* raw_response) {
  // No fields, but bytes that do not parse are still refused.
  return AnswerUnaryNow<v1::EnumerateRequest, v1::EnumerateResponse>(
      guard_, rpc::kEnumerate, {context, raw_request, raw_response},
      [this](const v1::EnumerateRequest&, v1::EnumerateResponse& response) {
        response = inventory_response_;
        FillMemoryUse(runtime_, response);
        const std::vector<std::vector<std::string>> residents =
            loading_.registry->ResidentsByCore();
        const WorkerPool& workers = loading_.registry->workers();
        for (v1::NeuronCore& core : *response.mutable_cores()) {
          core.set_healthy(workers.CoreHealthy(core.index()));
          if (core.index() >= residents.size()) continue;
          for (const std::string& name : residents[core.index()]) core.add_resident_models(name);
        }
        return absl::OkStatus();
      });
}

grpc::ServerReadReactor<grpc::ByteBuffer>* NeuronServingService::LoadModel(
    grpc::CallbackServerContext* context, grpc::ByteBuffer* response) {
  using Refused = RefusedReactor<grpc::ServerReadReactor<grpc::ByteBuffer>>;
  CallerCheck check = guard_.Check(context, rpc::kLoadModel);
  if (!check.status.ok()) return new Refused(check.status);
  std::optional<UploadSlots::Slot> slot =
      loading_.uploads != nullptr ? loading_.uploads->TryTake() : std::nullopt;
  if (loading_.uploads != nullptr && !slot.has_value()) {
    const grpc::Status exhausted(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        absl::StrCat(loading_.uploads->limit(),
                     " LoadModel uploads are open, the most --max-concurrent-uploads=",
                     loading_.uploads->limit(), " allows; try again when one is done"));
    guard_.AdminAudit(context, std::move(check.identity))
        .Record(RpcName(rpc::kLoadModel), "", exhausted);
    return new Refused(exhausted);
  }
  return new LoadModelReactor(
      loading_, response, guard_.AdminAudit(context, std::move(check.identity)), std::move(slot));
}

grpc::ServerUnaryReactor* NeuronServingService::UnloadModel(grpc::CallbackServerContext* context,
                                                            const grpc::ByteBuffer* raw_request,
                                                            grpc::ByteBuffer* raw_response) {
  using Answer = AdminUnaryAnswer<v1::UnloadModelRequest, v1::UnloadModelResponse>;
  // Finished from the registry's thread.
  return ServeAdminUnary<v1::UnloadModelRequest, v1::UnloadModelResponse>(
      guard_, rpc::kUnloadModel, {context, raw_request, raw_response},
      &v1::UnloadModelRequest::name,
      [this](const v1::UnloadModelRequest& request, v1::UnloadModelResponse& response,
             Answer answer) {
        loading_.registry->Unload(request.name(), [&response, answer = std::move(answer)](
                                                      absl::StatusOr<ModelInfo> result) {
          if (result.ok()) *response.mutable_model() = ToModelStatus(*result);
          answer(result.status());
        });
      });
}

grpc::ServerUnaryReactor* NeuronServingService::GetModel(grpc::CallbackServerContext* context,
                                                         const grpc::ByteBuffer* raw_request,
                                                         grpc::ByteBuffer* raw_response) {
  return AnswerUnaryNow<v1::GetModelRequest, v1::ModelStatus>(
      guard_, rpc::kGetModel, {context, raw_request, raw_response},
      [this](const v1::GetModelRequest& request, v1::ModelStatus& response) {
        absl::StatusOr<ModelInfo> info = loading_.registry->Get(request.name());
        if (info.ok()) response = ToModelStatus(*info);
        return info.status();
      },
      &v1::GetModelRequest::name);
}

grpc::ServerUnaryReactor* NeuronServingService::ListModels(grpc::CallbackServerContext* context,
                                                           const grpc::ByteBuffer* raw_request,
                                                           grpc::ByteBuffer* raw_response) {
  return AnswerUnaryNow<v1::ListModelsRequest, v1::ListModelsResponse>(
      guard_, rpc::kListModels, {context, raw_request, raw_response},
      [this](const v1::ListModelsRequest&, v1::ListModelsResponse& response) {
        for (const ModelInfo& info : loading_.registry->List()) {
          *response.add_models() = ToModelStatus(info);
        }
        return absl::OkStatus();
      });
}

grpc::ServerUnaryReactor* NeuronServingService::Infer(grpc::CallbackServerContext* context,
                                                      const grpc::ByteBuffer* raw_request,
                                                      grpc::ByteBuffer* raw_response) {
  return ServeInfer<NativeInferCall>(guard_, infer_, {context, raw_request, raw_response});
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* NeuronServingService::InferStream(
    grpc::CallbackServerContext* context) {
  return ServeInferStream<NativeInferCall>(guard_, infer_, context);
}

grpc::ServerUnaryReactor* NeuronServingService::RegisterSharedMemory(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw_request,
    grpc::ByteBuffer* raw_response) {
  return ServeRegisterSharedMemory<v1::RegisterSharedMemoryRequest,
                                   v1::RegisterSharedMemoryResponse>(
      guard_, infer_, context, rpc::kRegisterSharedMemory, *raw_request, raw_response);
}

grpc::ServerUnaryReactor* NeuronServingService::SharedMemoryStatus(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw_request,
    grpc::ByteBuffer* raw_response) {
  return ServeSharedMemoryStatus<v1::SharedMemoryStatusRequest, v1::SharedMemoryStatusResponse>(
      guard_, infer_, context, rpc::kSharedMemoryStatus, *raw_request, raw_response,
      [](v1::SharedMemoryStatusResponse& response, const SharedMemoryRegionStatus& region) {
        v1::SharedMemoryStatusResponse::Region* entry = response.add_regions();
        entry->set_name(region.name);
        entry->set_key(region.key);
        entry->set_offset(region.offset);
        entry->set_byte_size(region.byte_size);
      });
}

grpc::ServerUnaryReactor* NeuronServingService::UnregisterSharedMemory(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw_request,
    grpc::ByteBuffer* raw_response) {
  return ServeUnregisterSharedMemory<v1::UnregisterSharedMemoryRequest,
                                     v1::UnregisterSharedMemoryResponse>(
      guard_, infer_, context, rpc::kUnregisterSharedMemory, *raw_request, raw_response);
}

}  // namespace neuronserve
