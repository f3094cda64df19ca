#include "server/infer_unary_reactor.h"

#include "server/grpc_status.h"

namespace neuronserve {

InferUnaryReactor* InferUnaryReactor::Start(const ModelRegistry& registry,
                                            grpc::CallbackServerContext* context,
                                            const v1::InferRequest* request,
                                            v1::InferResponse* response) {
  auto* reactor = new InferUnaryReactor();
  reactor->deadline = absl::FromChrono(context->deadline());
  absl::Status status = reactor->Bind(registry, *request, *response);
  if (status.ok()) status = reactor->Submit();
  if (!status.ok()) reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

void InferUnaryReactor::Complete(absl::Status status, const ExecutionTiming& timing) {
  FillResponse(status, timing);
  ReleaseModel();
  Finish(ToGrpcStatus(status));  // last: OnDone may delete this at once
}

}  // namespace neuronserve
