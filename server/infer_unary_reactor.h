// InferUnaryReactor: one unary Infer call. The gRPC thread binds and queues it and returns; the
// core worker that runs it finishes the call, so no gRPC thread waits on the device.
#ifndef NEURON_SERVE_SERVER_INFER_UNARY_REACTOR_H_
#define NEURON_SERVE_SERVER_INFER_UNARY_REACTOR_H_

#include <atomic>
#include <string>

#include "grpcpp/grpcpp.h"
#include "server/infer_call.h"
#include "server/infer_context.h"

namespace neuronserve {

class InferUnaryReactor final : public grpc::ServerUnaryReactor, private InferCall {
 public:
  // Starts the call; it deletes itself once gRPC is done with it. While the daemon drains it
  // is refused with UNAVAILABLE. `identity` is the caller's name for the access log.
  static InferUnaryReactor* Start(const InferContext& infer, grpc::CallbackServerContext* context,
                                  const v1::InferRequest* request, v1::InferResponse* response,
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

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_INFER_UNARY_REACTOR_H_
