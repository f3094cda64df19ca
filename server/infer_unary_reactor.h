// InferUnaryReactor<Call>: one unary inference call of either front end (Call is
// NativeInferCall for neuronserve.v1 Infer, V2InferCall for inference ModelInfer). The gRPC
// thread binds and queues it and returns; the core worker that runs it finishes the call, so no
// gRPC thread waits on the device.
//
// Thread safety: gRPC and the core worker hand the reactor to each other (bind, then queue,
// then Complete on the worker, then OnDone); OnCancel may run at any time and only sets a flag.
// Ownership: deletes itself in OnDone.
#ifndef NEURON_SERVE_SERVER_INFER_UNARY_REACTOR_H_
#define NEURON_SERVE_SERVER_INFER_UNARY_REACTOR_H_

#include <atomic>
#include <string>

#include "grpcpp/grpcpp.h"
#include "server/infer_context.h"
#include "server/native_infer_call.h"
#include "server/v2_infer_call.h"

namespace neuronserve {

template <typename Call>
class InferUnaryReactor final : public grpc::ServerUnaryReactor, private Call {
 public:
  using Request = typename Call::Request;
  using Response = typename Call::Response;

  // Starts the call; it deletes itself once gRPC is done with it. While the daemon drains it
  // is refused with UNAVAILABLE. `identity` is the caller's name for the access log.
  static InferUnaryReactor* Start(const InferContext& infer, grpc::CallbackServerContext* context,
                                  const Request* request, Response* response,
                                  std::string identity = {});

 private:
  explicit InferUnaryReactor(const InferContext& infer) : infer_(infer) {}

  bool Cancelled() const override { return cancelled_.load(std::memory_order_acquire); }
  void Complete(absl::Status status, const ExecutionTiming& timing) override;

  void OnCancel() override { cancelled_.store(true, std::memory_order_release); }
  void OnDone() override;

  const InferContext& infer_;
  bool entered_gate_ = false;
  std::string peer_;  // only with an access log
  std::string identity_;
  std::atomic<bool> cancelled_{false};
};

extern template class InferUnaryReactor<NativeInferCall>;
extern template class InferUnaryReactor<V2InferCall>;

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_INFER_UNARY_REACTOR_H_
