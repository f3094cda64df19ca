#include "server/infer_stream_reactor.h"

namespace neuronserve {

InferStreamReactor::InferStreamReactor(const ModelRegistry& registry,
                                       grpc::CallbackServerContext* context)
    : registry_(registry),
      deadline_(absl::FromChrono(context->deadline())),
      flow_(kMaxInFlight) {
  Act(flow_.Start());
}

bool InferStreamReactor::StreamedCall::Cancelled() const {
  return stream_->cancelled_.load(std::memory_order_acquire);
}

void InferStreamReactor::StreamedCall::Complete(absl::Status status,
                                                const ExecutionTiming& timing) {
  FillResponse(status, timing);
  ReleaseModel();
  stream_->Respond(this, status);
}

void InferStreamReactor::Respond(StreamedCall* call, const absl::Status& status) {
  if (!status.ok()) {
    v1::InferError* error = call->response.mutable_error();
    error->set_code(static_cast<int32_t>(status.code()));
    error->set_message(std::string(status.message()));
  }
  Act(flow_.Respond(call));
}

void InferStreamReactor::StartNextRead() {
  reading_ = new StreamedCall(this);
  reading_->deadline = deadline_;
  StartRead(&reading_->request);
}

void InferStreamReactor::OnReadDone(bool ok) {
  StreamedCall* call = reading_;
  reading_ = nullptr;
  if (!ok) {
    delete call;
    Act(flow_.ReadDone(false));
    return;
  }
  // Count the request in flight (and maybe start the next read) before it can complete.
  Act(flow_.ReadDone(true));
  absl::Status status = call->Bind(registry_, call->request, call->response);
  if (status.ok()) status = call->Submit();
  if (!status.ok()) Respond(call, status);
}

void InferStreamReactor::OnWriteDone(bool ok) {
  delete writing_;
  writing_ = nullptr;
  Act(flow_.WriteDone(ok));
}

void InferStreamReactor::Act(Flow::Actions actions) {
  for (StreamedCall* dropped : actions.drop) delete dropped;
  if (actions.write != nullptr) {
    writing_ = actions.write;
    StartWrite(&writing_->response);
  }
  if (actions.read) StartNextRead();
  if (actions.finish) {
    Finish(cancelled_.load(std::memory_order_acquire)
               ? grpc::Status(grpc::StatusCode::CANCELLED, "the stream was cancelled")
               : grpc::Status::OK);
  }
}

void InferStreamReactor::OnDone() { delete this; }

}  // namespace neuronserve
