#include "server/neuron_serving_service.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/serving/worker_pool.h"
#include "server/enumerate_response.h"
#include "server/grpc_status.h"
#include "server/infer_stream_reactor.h"
#include "server/infer_unary_reactor.h"
#include "server/listeners.h"
#include "server/model_status.h"
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
                                                          const v1::EnumerateRequest* /*request*/,
                                                          v1::EnumerateResponse* response) {
  if (CallerCheck check = guard_.Check(context, rpc::kEnumerate); !check.status.ok()) {
    return FinishUnaryNow(context, check.status);
  }
  *response = inventory_response_;
  FillMemoryUse(runtime_, *response);
  const std::vector<std::vector<std::string>> residents = loading_.registry->ResidentsByCore();
  const WorkerPool& workers = loading_.registry->workers();
  for (v1::NeuronCore& core : *response->mutable_cores()) {
    core.set_healthy(workers.CoreHealthy(core.index()));
    if (core.index() >= residents.size()) continue;
    for (const std::string& name : residents[core.index()]) core.add_resident_models(name);
  }
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerReadReactor<v1::LoadModelRequest>* NeuronServingService::LoadModel(
    grpc::CallbackServerContext* context, v1::LoadModelResponse* response) {
  using Refused = RefusedReactor<grpc::ServerReadReactor<v1::LoadModelRequest>>;
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
  return new LoadModelReactor(loading_, response,
                              guard_.AdminAudit(context, std::move(check.identity)),
                              std::move(slot));
}

grpc::ServerUnaryReactor* NeuronServingService::UnloadModel(grpc::CallbackServerContext* context,
                                                            const v1::UnloadModelRequest* request,
                                                            v1::UnloadModelResponse* response) {
  CallerCheck check = guard_.Check(context, rpc::kUnloadModel, request->name());
  if (!check.status.ok()) return FinishUnaryNow(context, check.status);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  loading_.registry->Unload(
      request->name(), [reactor, response, name = request->name(),
                        audit = guard_.AdminAudit(context, std::move(check.identity))](
                           absl::StatusOr<ModelInfo> result) {
        if (result.ok()) *response->mutable_model() = ToModelStatus(*result);
        const grpc::Status status = ToGrpcStatus(result.status());
        audit.Record(RpcName(rpc::kUnloadModel), name, status);
        reactor->Finish(status);
      });
  return reactor;
}

grpc::ServerUnaryReactor* NeuronServingService::GetModel(grpc::CallbackServerContext* context,
                                                         const v1::GetModelRequest* request,
                                                         v1::ModelStatus* response) {
  if (CallerCheck check = guard_.Check(context, rpc::kGetModel, request->name());
      !check.status.ok()) {
    return FinishUnaryNow(context, check.status);
  }
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::StatusOr<ModelInfo> info = loading_.registry->Get(request->name());
  if (info.ok()) *response = ToModelStatus(*info);
  reactor->Finish(ToGrpcStatus(info.status()));
  return reactor;
}

grpc::ServerUnaryReactor* NeuronServingService::ListModels(grpc::CallbackServerContext* context,
                                                           const v1::ListModelsRequest* /*request*/,
                                                           v1::ListModelsResponse* response) {
  if (CallerCheck check = guard_.Check(context, rpc::kListModels); !check.status.ok()) {
    return FinishUnaryNow(context, check.status);
  }
  for (const ModelInfo& info : loading_.registry->List()) {
    *response->add_models() = ToModelStatus(info);
  }
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerUnaryReactor* NeuronServingService::Infer(grpc::CallbackServerContext* context,
                                                      const v1::InferRequest* request,
                                                      v1::InferResponse* response) {
  CallerCheck check = guard_.Check(context, rpc::kInfer, request->model());
  if (!check.status.ok()) return FinishUnaryNow(context, check.status);
  return InferUnaryReactor<NativeInferCall>::Start(infer_, context, request, response, std::move(check.identity));
}

grpc::ServerBidiReactor<v1::InferRequest, v1::InferResponse>* NeuronServingService::InferStream(
    grpc::CallbackServerContext* context) {
  CallerCheck check = guard_.Check(context, rpc::kInferStream);
  if (!check.status.ok()) {
    return new RefusedReactor<grpc::ServerBidiReactor<v1::InferRequest, v1::InferResponse>>(
        check.status);
  }
  return new InferStreamReactor<NativeInferCall>(infer_, context, std::move(check.identity));
}

}  // namespace neuronserve
