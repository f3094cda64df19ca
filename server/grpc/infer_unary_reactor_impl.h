// The member definitions of InferUnaryReactor<Call> (infer_unary_reactor.h), for the one file of
// each front end that instantiates it for its Call (server/native/native_reactors.cc,
// server/v2/v2_reactors.cc); nothing else includes this. The front ends share the reactor, and
// the shared layer knows none of their Call types.
#ifndef NEURON_SERVE_SERVER_GRPC_INFER_UNARY_REACTOR_IMPL_H_
#define NEURON_SERVE_SERVER_GRPC_INFER_UNARY_REACTOR_IMPL_H_

#include "server/admission/drain_gate.h"
#include "server/grpc/grpc_status.h"
#include "server/grpc/infer_unary_reactor.h"
#include "server/grpc/raw_message.h"
#include "server/grpc/trace_metadata.h"

namespace neuronserve {

template <GrpcInferCall Call>
InferUnaryReactor<Call>* InferUnaryReactor<Call>::Start(const InferContext& infer,
                                                        grpc::CallbackServerContext* context,
                                                        const grpc::ByteBuffer* raw_request,
                                                        grpc::ByteBuffer* raw_response,
                                                        std::string identity) {
  auto* reactor = new InferUnaryReactor(infer, raw_response);
  reactor->deadline = absl::FromChrono(context->deadline());
  if (infer.access_log != nullptr) {
    reactor->peer_ = context->peer();
    reactor->traceparent_ = TraceparentOf(*context);
  }
  reactor->identity_ = std::move(identity);
  Request& request = reactor->request_;
  Response& response = reactor->response_;
  absl::Status status;
  reactor->entered_gate_ = infer.gate == nullptr || infer.gate->TryEnter();
  if (!reactor->entered_gate_) {
    reactor->BeginUnbound(infer, request, response);
    status = ShuttingDownError();
  } else if (status = ParseMessage(Call::kUnaryMethod, *raw_request, request); !status.ok()) {
    // Answered like a request refused before binding: counted and logged, with no model.
    reactor->BeginUnbound(infer, request, response);
  } else {
    // Parsed: the message holds its own copy of the bytes. gRPC keeps the received buffer
    // until the call ends; freed now, a request of 1 MiB holds 1 MiB less while it waits and
    // runs. The buffer is gRPC's handler's (allocated mutable, handed over as const), and a
    // cleared ByteBuffer is valid to destroy.
    const_cast<grpc::ByteBuffer*>(raw_request)->Clear();
    reactor->PlaceOutputBytes(&reactor->detached_);
    status = reactor->Bind(infer, request, response);
    if (status.ok()) status = reactor->Submit();
  }
  if (!status.ok()) reactor->Refuse(status);  // counted, then answered here
  return reactor;
}

template <GrpcInferCall Call>
void InferUnaryReactor<Call>::Answer(const absl::Status& outcome, bool final) {
  if (!final) return;  // one answer per RPC: the final one
  // The response's bytes: serialized here (on the worker or a responder thread), as gRPC would
  // in Finish, with the large raw outputs spliced in rather than copied.
  absl::Status status = outcome;
  if (status.ok())
    status = Call::SerializeUnary(Call::kUnaryMethod, response_, detached_, *raw_response_);
  Finish(ToGrpcStatus(status));  // last: OnDone may delete this at once
}

template <GrpcInferCall Call>
void InferUnaryReactor<Call>::OnDone() {
  this->LogAccess(Call::kUnaryMethod, peer_, identity_, traceparent_);
  if (entered_gate_ && infer_.gate != nullptr) infer_.gate->Leave();
  delete this;
}

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_INFER_UNARY_REACTOR_IMPL_H_
