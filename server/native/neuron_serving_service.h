// neuronserve.v1.NeuronServing on the gRPC callback API.
//
// Every handler first asks the CallGuard (server/grpc/call_guard.h: token scope, listener
// policy, the caller's identity); a refused call finishes at once. Then it parses its request
// (server/grpc/raw_message.h). Handlers never block on the device: Enumerate, GetModel and
// ListModels answer from memory; LoadModel and UnloadModel hand the work to the model registry's
// thread and finish the call from there.
#ifndef NEURON_SERVE_SERVER_NATIVE_NEURON_SERVING_SERVICE_H_
#define NEURON_SERVE_SERVER_NATIVE_NEURON_SERVING_SERVICE_H_

#include "core/device/device_inventory.h"
#include "core/lifecycle/model_registry.h"
#include "core/nrt/nrt_runtime.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"
#include "server/call/infer_context.h"
#include "server/grpc/call_guard.h"
#include "server/grpc/listener_policy.h"
#include "server/native/load_model_reactor.h"

namespace neuronserve {

// Every method is raw (grpc::ByteBuffer in and out): the handlers parse the requests and
// serialize the responses themselves (server/grpc/raw_message.h), after the CallGuard, so a
// message that does not parse is INVALID_ARGUMENT naming the RPC (an in-stream error in
// InferStream; the end of LoadModel) rather than gRPC's bare UNIMPLEMENTED.
namespace native_raw {
using S = v1::NeuronServing;
using Base = S::WithRawCallbackMethod_Enumerate<S::WithRawCallbackMethod_LoadModel<
    S::WithRawCallbackMethod_UnloadModel<S::WithRawCallbackMethod_GetModel<
        S::WithRawCallbackMethod_ListModels<S::WithRawCallbackMethod_Infer<
            S::WithRawCallbackMethod_InferStream<S::WithRawCallbackMethod_RegisterSharedMemory<
                S::WithRawCallbackMethod_SharedMemoryStatus<
                    S::WithRawCallbackMethod_UnregisterSharedMemory<S::Service>>>>>>>>>>;
}  // namespace native_raw

class NeuronServingService final : public native_raw::Base {
 public:
  // Everything referenced must outlive the service.
  NeuronServingService(const NrtRuntime& runtime, const DeviceInventory& inventory,
                       const ModelLoadingContext& loading, const InferContext& infer,
                       ListenerPolicy policy = {});

  // Each takes the request's bytes (v1::EnumerateRequest, ...) and answers in `response` the
  // bytes of the method's response message.
  grpc::ServerUnaryReactor* Enumerate(grpc::CallbackServerContext* context,
                                      const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  grpc::ServerReadReactor<grpc::ByteBuffer>* LoadModel(grpc::CallbackServerContext* context,
                                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* UnloadModel(grpc::CallbackServerContext* context,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GetModel(grpc::CallbackServerContext* context,
                                     const grpc::ByteBuffer* request,
                                     grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListModels(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* Infer(grpc::CallbackServerContext* context,
                                  const grpc::ByteBuffer* request,
                                  grpc::ByteBuffer* response) override;
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* InferStream(
      grpc::CallbackServerContext* context) override;
  // Shared memory (server/call/shared_memory_calls.h): the same registry as the v2
  // extension's, in the infer scope; register and unregister are audited by region name.
  grpc::ServerUnaryReactor* RegisterSharedMemory(grpc::CallbackServerContext* context,
                                                 const grpc::ByteBuffer* request,
                                                 grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* SharedMemoryStatus(grpc::CallbackServerContext* context,
                                               const grpc::ByteBuffer* request,
                                               grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* UnregisterSharedMemory(grpc::CallbackServerContext* context,
                                                   const grpc::ByteBuffer* request,
                                                   grpc::ByteBuffer* response) override;

 private:
  const NrtRuntime& runtime_;
  const ModelLoadingContext loading_;
  const InferContext infer_;
  const v1::EnumerateResponse inventory_response_;
  const ListenerPolicy policy_;
  const CallGuard guard_{infer_, policy_};  // after what it borrows
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_NATIVE_NEURON_SERVING_SERVICE_H_
