#include "server/v2_inference_service.h"

#include <utility>

#include "server/infer_stream_reactor.h"
#include "server/infer_unary_reactor.h"

namespace neuronserve {

V2InferenceService::V2InferenceService(const InferContext& infer, ListenerPolicy policy)
    : infer_(infer), policy_(std::move(policy)) {}

grpc::ServerUnaryReactor* V2InferenceService::ModelInfer(
    grpc::CallbackServerContext* context, const inference::ModelInferRequest* request,
    inference::ModelInferResponse* response) {
  CallerCheck check = guard_.Check(context, rpc::kModelInfer, request->model_name());
  if (!check.status.ok()) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(check.status);
    return reactor;
  }
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

}  // namespace neuronserve
