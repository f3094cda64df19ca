// neuronserve.v1.NeuronServing on the gRPC callback API.
//
// Every handler first asks the CallGuard (call_guard.h: token scope, listener policy, the
// caller's identity); a refused call finishes at once. Handlers never block on the device: Enumerate, GetModel and ListModels answer from memory;
// LoadModel and UnloadModel hand the work to the model registry's thread and finish the call
// from there.
#ifndef NEURON_SERVE_SERVER_NEURON_SERVING_SERVICE_H_
#define NEURON_SERVE_SERVER_NEURON_SERVING_SERVICE_H_

#include "core/device/device_inventory.h"
#include "core/lifecycle/model_registry.h"
#include "core/nrt/nrt_runtime.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"
#include "server/call_guard.h"
#include "server/infer_context.h"
#include "server/listener_policy.h"
#include "server/load_model_reactor.h"

namespace neuronserve {

class NeuronServingService final : public v1::NeuronServing::CallbackService {
 public:
  // Everything referenced must outlive the service.
  NeuronServingService(const NrtRuntime& runtime, const DeviceInventory& inventory,
                       const ModelLoadingContext& loading, const InferContext& infer,
                      ListenerPolicy policy = {});

  grpc::ServerUnaryReactor* Enumerate(grpc::CallbackServerContext* context,
                                      const v1::EnumerateRequest* request,
                                      v1::EnumerateResponse* response) override;
  grpc::ServerReadReactor<v1::LoadModelRequest>* LoadModel(
      grpc::CallbackServerContext* context, v1::LoadModelResponse* response) override;
  grpc::ServerUnaryReactor* UnloadModel(grpc::CallbackServerContext* context,
                                        const v1::UnloadModelRequest* request,
                                        v1::UnloadModelResponse* response) override;
  grpc::ServerUnaryReactor* GetModel(grpc::CallbackServerContext* context,
                                     const v1::GetModelRequest* request,
                                     v1::ModelStatus* response) override;
  grpc::ServerUnaryReactor* ListModels(grpc::CallbackServerContext* context,
                                       const v1::ListModelsRequest* request,
                                       v1::ListModelsResponse* response) override;
  grpc::ServerUnaryReactor* Infer(grpc::CallbackServerContext* context,
                                  const v1::InferRequest* request,
                                  v1::InferResponse* response) override;
  grpc::ServerBidiReactor<v1::InferRequest, v1::InferResponse>* InferStream(
      grpc::CallbackServerContext* context) override;

 private:
  const NrtRuntime& runtime_;
  const ModelLoadingContext loading_;
  const InferContext infer_;
  const v1::EnumerateResponse inventory_response_;
  const ListenerPolicy policy_;
  const CallGuard guard_{infer_, policy_};  // after what it borrows
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_NEURON_SERVING_SERVICE_H_
