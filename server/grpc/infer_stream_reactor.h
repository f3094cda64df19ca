// InferStreamReactor<Call>: one streamed inference call of either front end (Call is
// NativeInferCall for neuronserve.v1 InferStream, V2InferCall for inference ModelStreamInfer).
// It keeps reading requests while earlier ones run, queues each for the model's cores, and
// writes each response when its request completes (completion order), carrying the request's
// id. A request that fails gets a response with its error (native: `error`; v2:
// `error_message`) and the stream goes on; so does a message that does not parse (the stream is
// raw, raw_message.h: the error names the RPC and the message's position in the stream). The
// stream's bookkeeping (how many in flight, which response to write next, when to finish) is
// StreamFlow (server/admission).
//
// When the daemon drains, the stream stops reading, answers what it has in flight and finishes
// UNAVAILABLE ("shutting down"), so an idle client does not hold the shutdown up.
//
// The definitions are in infer_stream_reactor_impl.h: each front end instantiates the reactor
// for its own Call (server/native/native_reactors.cc, server/v2/v2_reactors.cc), so this shared
// layer names no front end.
//
// Thread safety: gRPC callbacks and core workers' completions meet in StreamFlow, which
// serializes them. Ownership: deletes itself in OnDone; owns each request's call until its
// response is written or dropped.
#ifndef NEURON_SERVE_SERVER_GRPC_INFER_STREAM_REACTOR_H_
#define NEURON_SERVE_SERVER_GRPC_INFER_STREAM_REACTOR_H_

#include <atomic>
#include <string>

#include "base/mutex.h"
#include "grpcpp/grpcpp.h"
#include "server/admission/drain_gate.h"
#include "server/admission/stream_flow.h"
#include "server/call/infer_call.h"
#include "server/call/infer_context.h"
#include "server/grpc/grpc_infer_call.h"

namespace neuronserve {

template <GrpcInferCall Call>
class InferStreamReactor final
    : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  // Requests read and not yet answered, per stream; past it the stream stops reading until an
  // answer goes out (flow control reaches the client through gRPC).
  static constexpr size_t kMaxInFlight = 512;

  // Starts reading (or, while the daemon drains, finishes UNAVAILABLE at once); the reactor
  // deletes itself once gRPC is done with it. `identity` is the caller's name for the access log.
  InferStreamReactor(const InferContext& infer, grpc::CallbackServerContext* context,
                     std::string identity = {});

 private:
  // One request of the stream and its response.
  class StreamedCall final : public Call {
   public:
    explicit StreamedCall(InferStreamReactor* stream) : stream_(stream) {}
    grpc::ByteBuffer raw_request;    // as read
    typename Call::Request request;  // parsed from raw_request
    typename Call::StreamResponse response;
    grpc::ByteBuffer raw_response;  // response serialized, for the write
    // Its links in the stream's list of submitted calls (guarded by the stream's
    // queued_mutex_), from before its Submit until its Complete.
    StreamedCall* queued_prev = nullptr;
    StreamedCall* queued_next = nullptr;

   private:
    bool Cancelled() const override;
    // Leaves the stream's list of submitted calls, then ends (InferCall::Complete).
    void Complete(absl::Status status, const ExecutionTiming& timing) override;
    // The stream carries one response per request: the final answer writes it; a non-final
    // one sends nothing (the response keeps its outputs for the final).
    void Answer(const absl::Status& status, bool final) override;
    InferStreamReactor* const stream_;
  };
  using Flow = StreamFlow<StreamedCall>;

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  // Every request of the stream still queued leaves its queue at once (answered CANCELLED
  // here); those a worker has see the flag.
  void OnCancel() override {
    cancelled_.store(true, std::memory_order_release);
    WithdrawQueued();
  }
  void OnDone() override;

  // Answers `call` with `status` (an error goes inside the response), serializing its response.
  void Respond(StreamedCall* call, const absl::Status& status);
  void Act(typename Flow::Actions actions);
  void StartNextRead();
  // Frees a call whose response will never be written (the client went away), logging it.
  void Drop(StreamedCall* call);
  // The list of submitted calls that OnCancel withdraws: a call joins it before its Submit and
  // leaves it when it completes.
  void ListSubmitted(StreamedCall* call);
  void UnlistSubmitted(StreamedCall* call);
  void WithdrawQueued();

  const InferContext& infer_;
  const absl::Time deadline_;
  std::string peer_;         // only with an access log
  std::string traceparent_;  // the same: the stream's, on every request's line
  const std::string identity_;
  Flow flow_;
  std::atomic<bool> cancelled_{false};
  bool entered_gate_ = false;
  DrainGate::StreamId drain_registration_ = 0;
  StreamedCall* reading_ = nullptr;  // the call the outstanding read fills
  // Read so far, for a parse error's position: counted in OnReadDone before it starts the next
  // read (reads are serial up to there).
  size_t messages_read_ = 0;
  StreamedCall* writing_ = nullptr;  // the call whose response the outstanding write sends
  // Taken before a call's withdrawal lock (JobWithdrawal), never while one is completed.
  Mutex queued_mutex_;
  StreamedCall* queued_ ABSL_GUARDED_BY(queued_mutex_) = nullptr;  // the list's head
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_INFER_STREAM_REACTOR_H_
