#include "server/infer_stream_reactor.h"

namespace neuronserve {

InferStreamReactor::InferStreamReactor(const InferContext& infer,
                                       grpc::CallbackServerContext* context, std::string identity)
    : infer_(infer),
      deadline_(absl::FromChrono(context->deadline())),
      identity_(std::move(identity)),
      flow_(kMaxInFlight) {
  if (infer.access_log != nullptr) peer_ = context->peer();
  entered_gate_ = infer.gate == nullptr || infer.gate->TryEnter();
  if (!entered_gate_) {
    Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, std::string(ShuttingDownError().message())));
    return;
  }
  Act(flow_.Start());
  if (infer.gate != nullptr) {
    drain_registration_ = infer.gate->RegisterStream([this] { Act(flow_.Drain()); });
    // Draining began between TryEnter and here: drain at once.
    if (drain_registration_ == 0) Act(flow_.Drain());
  }
}

bool InferStreamReactor::StreamedCall::Cancelled() const {
  return stream_->cancelled_.load(std::memory_order_acquire);
}

void InferStreamReactor::StreamedCall::Complete(absl::Status status,
                                                const ExecutionTiming& timing) {
  FillResponse(status, timing);  // counts the outcome and lets the model go
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
  // Count the request in flight (and maybe start the next read) before it can complete.
  Flow::Actions actions = flow_.ReadDone(ok);
  if (!ok || actions.discard_read) {
    delete call;
    Act(std::move(actions));
    return;
  }
  Act(std::move(actions));
  absl::Status status;
  if (infer_.gate != nullptr && infer_.gate->draining()) {
    call->BeginUnbound(infer_, call->request, call->response);
    status = ShuttingDownError();
  } else {
    status = call->Bind(infer_, call->request, call->response);
    if (status.ok()) status = call->Submit();
  }
  if (!status.ok()) {
    call->FillResponse(status, ExecutionTiming{});
    Respond(call, status);
  }
}

void InferStreamReactor::OnWriteDone(bool ok) {
  writing_->LogAccess("InferStream", peer_, identity_);
  delete writing_;
  writing_ = nullptr;
  Act(flow_.WriteDone(ok));
}

void InferStreamReactor::Drop(StreamedCall* call) {
  call->LogAccess("InferStream", peer_, identity_);
  delete call;
}

void InferStreamReactor::Act(Flow::Actions actions) {
  for (StreamedCall* dropped : actions.drop) Drop(dropped);
  if (actions.write != nullptr) {
    writing_ = actions.write;
    StartWrite(&writing_->response);
  }
  if (actions.read) StartNextRead();
  if (actions.finish) {
    if (cancelled_.load(std::memory_order_acquire)) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the stream was cancelled"));
    } else if (actions.drained) {
      Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "neuron-serve is shutting down: every request read on this stream was "
                          "answered; send the rest to another instance"));
    } else {
      Finish(grpc::Status::OK);
    }
  }
}

void InferStreamReactor::OnDone() {
  if (infer_.gate != nullptr) {
    infer_.gate->UnregisterStream(drain_registration_);
    if (entered_gate_) infer_.gate->Leave();
  }
  delete this;
}

}  // namespace neuronserve
