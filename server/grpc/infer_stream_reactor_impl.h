// The member definitions of InferStreamReactor<Call> (infer_stream_reactor.h), for the one file of
// each front end that instantiates it for its Call (server/native/native_reactors.cc,
// server/v2/v2_reactors.cc); nothing else includes this. The front ends share the reactor, and
// the shared layer knows none of their Call types.
#ifndef NEURON_SERVE_SERVER_GRPC_INFER_STREAM_REACTOR_IMPL_H_
#define NEURON_SERVE_SERVER_GRPC_INFER_STREAM_REACTOR_IMPL_H_

#include "server/grpc/infer_stream_reactor.h"
#include "server/grpc/raw_message.h"
#include "server/grpc/trace_metadata.h"

namespace neuronserve {

template <GrpcInferCall Call>
InferStreamReactor<Call>::InferStreamReactor(const InferContext& infer,
                                             grpc::CallbackServerContext* context,
                                             std::string identity)
    : infer_(infer),
      deadline_(absl::FromChrono(context->deadline())),
      identity_(std::move(identity)),
      flow_(kMaxInFlight) {
  if (infer.access_log != nullptr) {
    peer_ = context->peer();
    traceparent_ = TraceparentOf(*context);
  }
  entered_gate_ = infer.gate == nullptr || infer.gate->TryEnter();
  if (!entered_gate_) {
    this->Finish(
        grpc::Status(grpc::StatusCode::UNAVAILABLE, std::string(ShuttingDownError().message())));
    return;
  }
  Act(flow_.Start());
  if (infer.gate != nullptr) {
    drain_registration_ = infer.gate->RegisterStream([this] { Act(flow_.Drain()); });
    // Draining began between TryEnter and here: drain at once.
    if (drain_registration_ == 0) Act(flow_.Drain());
  }
}

template <GrpcInferCall Call>
bool InferStreamReactor<Call>::StreamedCall::Cancelled() const {
  return stream_->cancelled_.load(std::memory_order_acquire);
}

template <GrpcInferCall Call>
void InferStreamReactor<Call>::StreamedCall::Complete(absl::Status status,
                                                      const ExecutionTiming& timing) {
  stream_->UnlistSubmitted(this);
  Call::Complete(std::move(status), timing);  // counts the outcome, then the final Answer
}

template <GrpcInferCall Call>
void InferStreamReactor<Call>::StreamedCall::Answer(const absl::Status& status, bool final) {
  if (final) stream_->Respond(this, status);
}

template <GrpcInferCall Call>
void InferStreamReactor<Call>::Respond(StreamedCall* call, const absl::Status& status) {
  if (!status.ok()) Call::SetStreamError(call->response, status);
  // Serialized by the thread that answers (a core worker, mostly), as StartWrite would.
  if (absl::Status serialized =
          SerializeMessage(Call::kStreamMethod, call->response, call->raw_response);
      !serialized.ok()) {
    call->response.Clear();
    Call::SetStreamError(call->response, serialized);
    SerializeMessage(Call::kStreamMethod, call->response, call->raw_response).IgnoreError();
  }
  Act(flow_.Respond(call));
}

template <GrpcInferCall Call>
void InferStreamReactor<Call>::StartNextRead() {
  reading_ = new StreamedCall(this);
  reading_->deadline = deadline_;
  this->StartRead(&reading_->raw_request);
}

template <GrpcInferCall Call>
void InferStreamReactor<Call>::OnReadDone(bool ok) {
  StreamedCall* call = reading_;
  reading_ = nullptr;
  // Count the request in flight (and maybe start the next read) before it can complete.
  typename Flow::Actions actions = flow_.ReadDone(ok);
  if (!ok || actions.discard_read) {
    delete call;
    Act(std::move(actions));
    return;
  }
  // This message's position, counted before Act may start the next read: from then on the
  // next OnReadDone may run on another thread, and would count its own message first.
  const size_t position = ++messages_read_;
  Act(std::move(actions));
  absl::Status status;
  typename Call::Response& response = Call::InnerResponse(call->response);
  if (infer_.gate != nullptr && infer_.gate->draining()) {
    call->BeginUnbound(infer_, call->request, response);
    status = ShuttingDownError();
  } else if (status = ParseMessage(Call::kStreamMethod, call->raw_request, call->request, position);
             !status.ok()) {
    // Answered in the stream like a request refused before binding (counted and logged, with
    // no model); gRPC's framing is intact, so the stream goes on.
    call->raw_request.Clear();
    call->BeginUnbound(infer_, call->request, response);
  } else {
    call->raw_request.Clear();  // parsed: the message holds its own copy of the bytes
    status = call->Bind(infer_, call->request, response);
    if (status.ok()) {
      ListSubmitted(call);
      status = call->Submit();
      if (!status.ok()) UnlistSubmitted(call);  // not queued: answered below
    }
  }
  if (!status.ok()) call->Refuse(status);  // counted, then answered in the stream
}

template <GrpcInferCall Call>
void InferStreamReactor<Call>::ListSubmitted(StreamedCall* call) {
  MutexLock lock(&queued_mutex_);
  call->queued_prev = nullptr;
  call->queued_next = queued_;
  if (queued_ != nullptr) queued_->queued_prev = call;
  queued_ = call;
}

template <GrpcInferCall Call>
void InferStreamReactor<Call>::UnlistSubmitted(StreamedCall* call) {
  MutexLock lock(&queued_mutex_);
  if (call->queued_prev != nullptr) {
    call->queued_prev->queued_next = call->queued_next;
  } else if (queued_ == call) {
    queued_ = call->queued_next;
  } else {
    return;  // not listed
  }
  if (call->queued_next != nullptr) call->queued_next->queued_prev = call->queued_prev;
  call->queued_prev = nullptr;
  call->queued_next = nullptr;
}

template <GrpcInferCall Call>
void InferStreamReactor<Call>::WithdrawQueued() {
  // Taken back under the list's lock, so no listed call completes (and is freed) meanwhile;
  // answered after it, since answering completes them (and Complete unlists).
  std::vector<std::pair<std::vector<JobRows>, absl::string_view>> taken;
  {
    MutexLock lock(&queued_mutex_);
    for (StreamedCall* call = queued_; call != nullptr; call = call->queued_next) {
      absl::string_view model;
      std::vector<JobRows> rows = call->TakeBackIfQueued(&model);
      if (!rows.empty()) taken.emplace_back(std::move(rows), model);
    }
  }
  for (const auto& [rows, model] : taken) JobWithdrawal::AnswerWithdrawn(rows, model);
}

template <GrpcInferCall Call>
void InferStreamReactor<Call>::OnWriteDone(bool ok) {
  writing_->LogAccess(Call::kStreamMethod, peer_, identity_, traceparent_);
  delete writing_;
  writing_ = nullptr;
  Act(flow_.WriteDone(ok));
}

template <GrpcInferCall Call>
void InferStreamReactor<Call>::Drop(StreamedCall* call) {
  call->LogAccess(Call::kStreamMethod, peer_, identity_, traceparent_);
  delete call;
}

template <GrpcInferCall Call>
void InferStreamReactor<Call>::Act(typename Flow::Actions actions) {
  for (StreamedCall* dropped : actions.drop) Drop(dropped);
  if (actions.write != nullptr) {
    writing_ = actions.write;
    this->StartWrite(&writing_->raw_response);
  }
  if (actions.read) StartNextRead();
  if (actions.finish) {
    if (cancelled_.load(std::memory_order_acquire)) {
      this->Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the stream was cancelled"));
    } else if (actions.drained) {
      this->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                "neuron-serve is shutting down: every request read on this "
                                "stream was answered; send the rest to another instance"));
    } else {
      this->Finish(grpc::Status::OK);
    }
  }
}

template <GrpcInferCall Call>
void InferStreamReactor<Call>::OnDone() {
  if (infer_.gate != nullptr) {
    infer_.gate->UnregisterStream(drain_registration_);
    if (entered_gate_) infer_.gate->Leave();
  }
  delete this;
}

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_INFER_STREAM_REACTOR_IMPL_H_
