// inference.GRPCInferenceService, the Open Inference Protocol (KServe v2) with Triton's
// extensions, on the gRPC callback API, beside the native NeuronServing on the same listeners.
//
// Served: the probes (ServerLive, ServerReady, ModelReady), ServerMetadata, ModelMetadata,
// ModelConfig,
// ModelInfer and ModelStreamInfer (the same InferCall as the native API,
// server/call/infer_call.h, through its v2 front end V2InferCall), ModelStatistics, the
// repository extension (RepositoryIndex, RepositoryModelLoad, RepositoryModelUnload) and the
// shared memory extensions (system, and CUDA answered as a server without GPUs).
//
// Every handler first asks the CallGuard (server/grpc/call_guard.h), then parses its request
// (server/grpc/raw_message.h), as NeuronServing's do: the probes need
// no token, metadata and statistics the infer scope, the repository calls admin (and are
// PERMISSION_DENIED on the main port when --admin-listen is set). The probes read the same
// HealthReport the HealthMonitor publishes to grpc.health.v1 and /readyz, so the three agree at
// every moment. The answers themselves are server/oip/v2_answers.h's, shared with the REST routes.
// Handlers never block: reads answer from memory; a repository load or unload
// hands the work to the model registry's thread and finishes the call from there.
//
// Thread safety: handlers run on any gRPC thread; the service is immutable after construction.
// Ownership: borrows everything it is given; all of it must outlive the service.
#ifndef NEURON_SERVE_SERVER_V2_V2_INFERENCE_SERVICE_H_
#define NEURON_SERVE_SERVER_V2_V2_INFERENCE_SERVICE_H_

#include <functional>
#include <optional>

#include "core/health/health_evaluator.h"
#include "inference/grpc_service.grpc.pb.h"
#include "server/call/infer_context.h"
#include "server/grpc/call_guard.h"
#include "server/grpc/listener_policy.h"
#include "server/oip/v2_answers.h"
#include "server/oip/v2_model_config.h"
#include "server/repository/model_loading_context.h"

namespace neuronserve {

// Every method is raw (grpc::ByteBuffer in and out): the handlers parse the requests and
// serialize the responses themselves (server/grpc/raw_message.h), after the CallGuard, so a
// message that does not parse is INVALID_ARGUMENT naming the RPC (an in-stream error_message in
// ModelStreamInfer) rather than gRPC's bare UNIMPLEMENTED.
namespace v2_raw {
using S = inference::GRPCInferenceService;
using Base = S::WithRawCallbackMethod_ServerLive<S::WithRawCallbackMethod_ServerReady<
    S::WithRawCallbackMethod_ModelReady<S::WithRawCallbackMethod_ServerMetadata<
        S::WithRawCallbackMethod_ModelMetadata<S::WithRawCallbackMethod_ModelInfer<
            S::WithRawCallbackMethod_ModelStreamInfer<S::WithRawCallbackMethod_ModelStatistics<
                S::WithRawCallbackMethod_ModelConfig<S::WithRawCallbackMethod_RepositoryIndex<
                    S::WithRawCallbackMethod_RepositoryModelLoad<
                        S::WithRawCallbackMethod_RepositoryModelUnload<
                            S::WithRawCallbackMethod_SystemSharedMemoryStatus<
                                S::WithRawCallbackMethod_SystemSharedMemoryRegister<
                                    S::WithRawCallbackMethod_SystemSharedMemoryUnregister<
                                        S::WithRawCallbackMethod_CudaSharedMemoryStatus<
                                            S::WithRawCallbackMethod_CudaSharedMemoryRegister<
                                                S::WithRawCallbackMethod_CudaSharedMemoryUnregister<
                                                    S::Service>>>>>>>>>>>>>>>>>>;
}  // namespace v2_raw

class V2InferenceService final : public v2_raw::Base {
 public:
  V2InferenceService(const ModelLoadingContext& loading, const InferContext& infer,
                     HealthSource health, ListenerPolicy policy = {});

  // Each takes the bytes of the method's request message (inference::ServerLiveRequest, ...)
  // and answers in `response` the bytes of its response message.
  grpc::ServerUnaryReactor* ServerLive(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ServerReady(grpc::CallbackServerContext* context,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ModelReady(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ServerMetadata(grpc::CallbackServerContext* context,
                                           const grpc::ByteBuffer* request,
                                           grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ModelMetadata(grpc::CallbackServerContext* context,
                                          const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override;
  // Inference: the same InferCall as the native API, through its v2 front end (V2InferCall).
  grpc::ServerUnaryReactor* ModelInfer(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* ModelStreamInfer(
      grpc::CallbackServerContext* context) override;
  grpc::ServerUnaryReactor* ModelStatistics(grpc::CallbackServerContext* context,
                                            const grpc::ByteBuffer* request,
                                            grpc::ByteBuffer* response) override;
  // Triton's ModelConfig: the serving version's configuration (server/oip/v2_model_config.h).
  grpc::ServerUnaryReactor* ModelConfig(grpc::CallbackServerContext* context,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* RepositoryIndex(grpc::CallbackServerContext* context,
                                            const grpc::ByteBuffer* request,
                                            grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* RepositoryModelLoad(grpc::CallbackServerContext* context,
                                                const grpc::ByteBuffer* request,
                                                grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* RepositoryModelUnload(grpc::CallbackServerContext* context,
                                                  const grpc::ByteBuffer* request,
                                                  grpc::ByteBuffer* response) override;
  // Triton's system shared memory extension over the daemon's one registry
  // (server/shared_memory/shared_memory_registry.h), in the infer scope; register and
  // unregister are audited (the region's name, never its key).
  grpc::ServerUnaryReactor* SystemSharedMemoryStatus(grpc::CallbackServerContext* context,
                                                     const grpc::ByteBuffer* request,
                                                     grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* SystemSharedMemoryRegister(grpc::CallbackServerContext* context,
                                                       const grpc::ByteBuffer* request,
                                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* SystemSharedMemoryUnregister(grpc::CallbackServerContext* context,
                                                         const grpc::ByteBuffer* request,
                                                         grpc::ByteBuffer* response) override;
  // The CUDA extension, answered as a server with no GPUs (tritonclient's examples unregister
  // CUDA regions before they start): no regions, unregistering succeeds, registering is refused.
  grpc::ServerUnaryReactor* CudaSharedMemoryStatus(grpc::CallbackServerContext* context,
                                                   const grpc::ByteBuffer* request,
                                                   grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* CudaSharedMemoryRegister(grpc::CallbackServerContext* context,
                                                     const grpc::ByteBuffer* request,
                                                     grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* CudaSharedMemoryUnregister(grpc::CallbackServerContext* context,
                                                       const grpc::ByteBuffer* request,
                                                       grpc::ByteBuffer* response) override;

 private:
  const ModelLoadingContext loading_;
  const InferContext infer_;
  const HealthSource health_;
  const ListenerPolicy policy_;
  const CallGuard guard_{infer_, policy_};  // after what it borrows
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_V2_V2_INFERENCE_SERVICE_H_
