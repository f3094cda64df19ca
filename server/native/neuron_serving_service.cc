#include "server/native/neuron_serving_service.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/serving/worker_pool.h"
#include "server/grpc/grpc_status.h"
#include "server/grpc/infer_stream_reactor.h"  // instantiated in native_reactors.cc
#include "server/grpc/infer_unary_reactor.h"
#include "server/grpc/raw_message.h"
#include "server/grpc/shared_memory_handlers.h"
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
  const std::string_view rpc_name = RpcName(rpc::kEnumerate);
  v1::EnumerateRequest request;  // no fields, but bytes that do not parse are still refused
  if (grpc::ServerUnaryReactor* refused =
          CheckAndParse(guard_, context, rpc::kEnumerate, *raw_request, request)) {
    return refused;
  }
  v1::EnumerateResponse response = inventory_response_;
  FillMemoryUse(runtime_, response);
  const std::vector<std::vector<std::string>> residents = loading_.registry->ResidentsByCore();
  const WorkerPool& workers = loading_.registry->workers();
  for (v1::NeuronCore& core : *response.mutable_cores()) {
    core.set_healthy(workers.CoreHealthy(core.index()));
    if (core.index() >= residents.size()) continue;
    for (const std::string& name : residents[core.index()]) core.add_resident_models(name);
  }
  return FinishRawUnaryNow(context, rpc_name, grpc::Status::OK, response, raw_response);
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
  CallerCheck check = guard_.Check(context, rpc::kUnloadModel, [&] {
    return ParsedName(*raw_request, &v1::UnloadModelRequest::name);
  });
  if (!check.status.ok()) return FinishUnaryNow(context, check.status);
  const std::string_view rpc_name = RpcName(rpc::kUnloadModel);
  // Finished from the registry's thread: the reactor owns the messages until then.
  auto* reactor =
      new RawUnaryReactor<v1::UnloadModelRequest, v1::UnloadModelResponse>(rpc_name, raw_response);
  if (absl::Status parsed = ParseMessage(rpc_name, *raw_request, reactor->request); !parsed.ok()) {
    const grpc::Status status = ToGrpcStatus(parsed);
    guard_.AdminAudit(context, std::move(check.identity)).Record(rpc_name, "", status);
    reactor->FinishWith(status);
    return reactor;
  }
  const std::string& name = reactor->request.name();
  loading_.registry->Unload(name, [reactor, name, rpc_name,
                                   audit = guard_.AdminAudit(context, std::move(check.identity))](
                                      absl::StatusOr<ModelInfo> result) {
    if (result.ok()) *reactor->response.mutable_model() = ToModelStatus(*result);
    const grpc::Status status = ToGrpcStatus(result.status());
    audit.Record(rpc_name, name, status);
    reactor->FinishWith(status);
  });
  return reactor;
}

grpc::ServerUnaryReactor* NeuronServingService::GetModel(grpc::CallbackServerContext* context,
                                                         const grpc::ByteBuffer* raw_request,
                                                         grpc::ByteBuffer* raw_response) {
  const std::string_view rpc_name = RpcName(rpc::kGetModel);
  v1::GetModelRequest request;
  if (grpc::ServerUnaryReactor* refused = CheckAndParse(
          guard_, context, rpc::kGetModel, *raw_request, request, &v1::GetModelRequest::name)) {
    return refused;
  }
  v1::ModelStatus response;
  absl::StatusOr<ModelInfo> info = loading_.registry->Get(request.name());
  if (info.ok()) response = ToModelStatus(*info);
  return FinishRawUnaryNow(context, rpc_name, info.status(), response, raw_response);
}

grpc::ServerUnaryReactor* NeuronServingService::ListModels(grpc::CallbackServerContext* context,
                                                           const grpc::ByteBuffer* raw_request,
                                                           grpc::ByteBuffer* raw_response) {
  const std::string_view rpc_name = RpcName(rpc::kListModels);
  v1::ListModelsRequest request;
  if (grpc::ServerUnaryReactor* refused =
          CheckAndParse(guard_, context, rpc::kListModels, *raw_request, request)) {
    return refused;
  }
  v1::ListModelsResponse response;
  for (const ModelInfo& info : loading_.registry->List()) {
    *response.add_models() = ToModelStatus(info);
  }
  return FinishRawUnaryNow(context, rpc_name, grpc::Status::OK, response, raw_response);
}

grpc::ServerUnaryReactor* NeuronServingService::Infer(grpc::CallbackServerContext* context,
                                                      const grpc::ByteBuffer* raw_request,
                                                      grpc::ByteBuffer* raw_response) {
  CallerCheck check = guard_.Check(
      context, rpc::kInfer, [&] { return ParsedName(*raw_request, &v1::InferRequest::model); });
  if (!check.status.ok()) return FinishUnaryNow(context, check.status);
  // Parsed by the reactor, which owns the messages.
  return InferUnaryReactor<NativeInferCall>::Start(infer_, context, raw_request, raw_response,
                                                   std::move(check.identity));
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* NeuronServingService::InferStream(
    grpc::CallbackServerContext* context) {
  CallerCheck check = guard_.Check(context, rpc::kInferStream);
  if (!check.status.ok()) {
    return new RefusedReactor<grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>>(
        check.status);
  }
  return new InferStreamReactor<NativeInferCall>(infer_, context, std::move(check.identity));
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
