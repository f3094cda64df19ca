// inference.GRPCInferenceService (the Open Inference Protocol, proto/inference) on the gRPC
// callback API. Inference goes through the same InferCall as the native API (V2InferCall).
//
// Every handler first asks the CallGuard (call_guard.h); a refused call finishes at once.
// Handlers never block on the device.
#ifndef NEURON_SERVE_SERVER_V2_INFERENCE_SERVICE_H_
#define NEURON_SERVE_SERVER_V2_INFERENCE_SERVICE_H_

#include "inference/grpc_service.grpc.pb.h"
#include "server/call_guard.h"
#include "server/infer_context.h"
#include "server/listener_policy.h"

namespace neuronserve {

class V2InferenceService final : public inference::GRPCInferenceService::CallbackService {
 public:
  // Everything referenced must outlive the service.
  V2InferenceService(const InferContext& infer, ListenerPolicy policy = {});

  grpc::ServerUnaryReactor* ModelInfer(grpc::CallbackServerContext* context,
                                       const inference::ModelInferRequest* request,
                                       inference::ModelInferResponse* response) override;
  grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
  ModelStreamInfer(grpc::CallbackServerContext* context) override;

 private:
  const InferContext infer_;
  const ListenerPolicy policy_;
  const CallGuard guard_{infer_, policy_};  // after what it borrows
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_V2_INFERENCE_SERVICE_H_
