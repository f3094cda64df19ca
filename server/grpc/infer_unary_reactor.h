// InferUnaryReactor<Call>: one unary inference call of either front end (Call is
// NativeInferCall for neuronserve.v1 Infer, V2InferCall for inference ModelInfer), on a raw
// method (raw_message.h). The gRPC thread parses the request, binds and queues it and returns; the
// job is completed by the core worker that ran it when nothing else waits for that core, else by
// a responder thread (core/serving/execution/responder.h), so no gRPC thread waits on the device and a
// busy core does not wait on the network.
//
// The definitions are in infer_unary_reactor_impl.h: each front end instantiates the reactor
// for its own Call (server/native/native_reactors.cc, server/v2/v2_reactors.cc), so this shared
// layer names no front end.
//
// Thread safety: gRPC and the core worker hand the reactor to each other (bind, then queue,
// then the final Answer on the worker or a responder thread, then OnDone); OnCancel may run at any
// time: it sets a flag and takes a queued call out of its queue (JobWithdrawal), completing it
// there. Ownership: owns the typed request and response; deletes itself in OnDone.
#ifndef NEURON_SERVE_SERVER_GRPC_INFER_UNARY_REACTOR_H_
#define NEURON_SERVE_SERVER_GRPC_INFER_UNARY_REACTOR_H_

#include <atomic>
#include <string>

#include "grpcpp/grpcpp.h"
#include "server/call/infer_call.h"
#include "server/call/infer_context.h"
#include "server/grpc/detached_bytes.h"
#include "server/grpc/grpc_infer_call.h"

namespace neuronserve {

template <GrpcInferCall Call>
class InferUnaryReactor final : public grpc::ServerUnaryReactor, private Call {
 public:
  using Request = typename Call::Request;
  using Response = typename Call::Response;

  // Starts the call: parses `raw_request` (a message that does not parse is INVALID_ARGUMENT
  // naming the RPC, counted and logged as a failed request of no model) and binds and queues
  // it; `raw_response` receives the serialized response when the call completes. The reactor
  // deletes itself once gRPC is done with it. While the daemon drains it is refused with
  // UNAVAILABLE. `identity` is the caller's name for the access log.
  static InferUnaryReactor* Start(const InferContext& infer, grpc::CallbackServerContext* context,
                                  const grpc::ByteBuffer* raw_request,
                                  grpc::ByteBuffer* raw_response, std::string identity = {});

 private:
  InferUnaryReactor(const InferContext& infer, grpc::ByteBuffer* raw_response)
      : infer_(infer), raw_response_(raw_response) {}

  bool Cancelled() const override { return cancelled_.load(std::memory_order_acquire); }
  // A unary RPC carries one answer: the final one serializes the response and finishes the
  // call; a non-final one sends nothing (the response keeps its outputs for the final).
  void Answer(const absl::Status& status, bool final) override;

  // The job leaves its queue at once (answered CANCELLED here) unless a worker has it.
  void OnCancel() override {
    cancelled_.store(true, std::memory_order_release);
    this->WithdrawIfQueued();
  }
  void OnDone() override;

  const InferContext& infer_;
  // The call's messages: the InferCall borrows them from the reactor, which outlives it.
  Request request_;
  Response response_;
  DetachedBytes detached_;  // the large raw outputs, outside response_ (detached_bytes.h)
  grpc::ByteBuffer* const raw_response_;  // gRPC's, until OnDone
  bool entered_gate_ = false;
  std::string peer_;         // only with an access log
  std::string traceparent_;  // the same
  std::string identity_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_INFER_UNARY_REACTOR_H_
