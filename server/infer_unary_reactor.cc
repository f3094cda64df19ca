#include "server/infer_unary_reactor.h"

#include "server/admission/drain_gate.h"
#include "server/grpc_status.h"

namespace neuronserve {

template <typename Call>
InferUnaryReactor<Call>* InferUnaryReactor<Call>::Start(const InferContext& infer,
                                                        grpc::CallbackServerContext* context,
                                                        const Request* request,
                                                        Response* response,
                                                        std::string identity) {
  auto* reactor = new InferUnaryReactor(infer);
  reactor->deadline = absl::FromChrono(context->deadline());
  if (infer.access_log != nullptr) reactor->peer_ = context->peer();
  reactor->identity_ = std::move(identity);
  absl::Status status;
  reactor->entered_gate_ = infer.gate == nullptr || infer.gate->TryEnter();
  if (reactor->entered_gate_) {
    status = reactor->Bind(infer, *request, *response);
    if (status.ok()) status = reactor->Submit();
  } else {
    reactor->BeginUnbound(infer, *request, *response);
    status = ShuttingDownError();
  }
  if (!status.ok()) {
    reactor->FillResponse(status, ExecutionTiming{});
    reactor->Finish(ToGrpcStatus(status));
  }
  return reactor;
}

template <typename Call>
void InferUnaryReactor<Call>::Complete(absl::Status status, const ExecutionTiming& timing) {
  this->FillResponse(status, timing);  // counts the outcome and lets the model go
  Finish(ToGrpcStatus(status));        // last: OnDone may delete this at once
}

template <typename Call>
void InferUnaryReactor<Call>::OnDone() {
  this->LogAccess(Call::kUnaryMethod, peer_, identity_);
  if (entered_gate_ && infer_.gate != nullptr) infer_.gate->Leave();
  delete this;
}

template class InferUnaryReactor<NativeInferCall>;
template class InferUnaryReactor<V2InferCall>;

}  // namespace neuronserve
