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

namespace neuronserve {
namespace {

// A unary call refused before it started: finished at once.
grpc::ServerUnaryReactor* RefuseUnary(grpc::CallbackServerContext* context,
                                      const grpc::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

}  // namespace

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
  if (grpc::Status size = CheckMetadataSize(*context, policy_.max_metadata_bytes); !size.ok()) {
    return RefuseUnary(context, size);
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
  using Refused = FinishedReactor<grpc::ServerReadReactor<v1::LoadModelRequest>>;
  if (grpc::Status size = CheckMetadataSize(*context, policy_.max_metadata_bytes); !size.ok()) {
    return new Refused(size);
  }
  std::optional<UploadSlots::Slot> slot =
      loading_.uploads != nullptr ? loading_.uploads->TryTake() : std::nullopt;
  if (loading_.uploads != nullptr && !slot.has_value()) {
    return new Refused(grpc::Status(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        absl::StrCat(loading_.uploads->limit(),
                     " LoadModel uploads are open, the most --max-concurrent-uploads=",
                     loading_.uploads->limit(), " allows; try again when one is done")));
  }
  return new LoadModelReactor(loading_, response, std::move(slot));
}

grpc::ServerUnaryReactor* NeuronServingService::UnloadModel(grpc::CallbackServerContext* context,
                                                            const v1::UnloadModelRequest* request,
                                                            v1::UnloadModelResponse* response) {
  if (grpc::Status size = CheckMetadataSize(*context, policy_.max_metadata_bytes); !size.ok()) {
    return RefuseUnary(context, size);
  }
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  loading_.registry->Unload(request->name(), [reactor, response](absl::StatusOr<ModelInfo> result) {
    if (result.ok()) *response->mutable_model() = ToModelStatus(*result);
    reactor->Finish(ToGrpcStatus(result.status()));
  });
  return reactor;
}

grpc::ServerUnaryReactor* NeuronServingService::GetModel(grpc::CallbackServerContext* context,
                                                         const v1::GetModelRequest* request,
                                                         v1::ModelStatus* response) {
  if (grpc::Status size = CheckMetadataSize(*context, policy_.max_metadata_bytes); !size.ok()) {
    return RefuseUnary(context, size);
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
  if (grpc::Status size = CheckMetadataSize(*context, policy_.max_metadata_bytes); !size.ok()) {
    return RefuseUnary(context, size);
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
  if (grpc::Status size = CheckMetadataSize(*context, policy_.max_metadata_bytes); !size.ok()) {
    return RefuseUnary(context, size);
  }
  return InferUnaryReactor::Start(infer_, context, request, response);
}

grpc::ServerBidiReactor<v1::InferRequest, v1::InferResponse>* NeuronServingService::InferStream(
    grpc::CallbackServerContext* context) {
  if (grpc::Status size = CheckMetadataSize(*context, policy_.max_metadata_bytes); !size.ok()) {
    return new FinishedReactor<grpc::ServerBidiReactor<v1::InferRequest, v1::InferResponse>>(size);
  }
  return new InferStreamReactor(infer_, context);
}

}  // namespace neuronserve
