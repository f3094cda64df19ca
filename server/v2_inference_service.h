// inference.GRPCInferenceService, the Open Inference Protocol (KServe v2) with Triton's
// extensions, on the gRPC callback API, beside the native NeuronServing on the same listeners.
//
// Served: the probes (ServerLive, ServerReady, ModelReady), ServerMetadata, ModelMetadata,
// ModelInfer and ModelStreamInfer (the same InferCall as the native API, server/infer_call.h,
// through its v2 front end V2InferCall), ModelStatistics and the repository extension
// (RepositoryIndex, RepositoryModelLoad, RepositoryModelUnload).
//
// Every handler first asks the CallGuard (call_guard.h), as NeuronServing's do: the probes need
// no token, metadata and statistics the infer scope, the repository calls admin (and are
// PERMISSION_DENIED on the main port when --admin-listen is set). The probes read the same
// HealthReport the HealthMonitor publishes to grpc.health.v1 and /readyz, so the three agree at
// every moment. The answers themselves are v2_answers.h's, shared with the REST routes.
// Handlers never block: reads answer from memory; a repository load or unload
// hands the work to the model registry's thread and finishes the call from there.
//
// Thread safety: handlers run on any gRPC thread; the service is immutable after construction.
// Ownership: borrows everything it is given; all of it must outlive the service.
#ifndef NEURON_SERVE_SERVER_V2_INFERENCE_SERVICE_H_
#define NEURON_SERVE_SERVER_V2_INFERENCE_SERVICE_H_

#include <functional>
#include <optional>

#include "core/health/health_evaluator.h"
#include "core/nrt/nrt_runtime.h"
#include "inference/grpc_service.grpc.pb.h"
#include "server/call_guard.h"
#include "server/infer_context.h"
#include "server/listener_policy.h"
#include "server/load_model_reactor.h"
#include "server/v2_answers.h"

namespace neuronserve {

class V2InferenceService final : public inference::GRPCInferenceService::CallbackService {
 public:
  V2InferenceService(const NrtRuntime& runtime, const ModelLoadingContext& loading,
                     const InferContext& infer, HealthSource health, ListenerPolicy policy = {});

  grpc::ServerUnaryReactor* ServerLive(grpc::CallbackServerContext* context,
                                       const inference::ServerLiveRequest* request,
                                       inference::ServerLiveResponse* response) override;
  grpc::ServerUnaryReactor* ServerReady(grpc::CallbackServerContext* context,
                                        const inference::ServerReadyRequest* request,
                                        inference::ServerReadyResponse* response) override;
  grpc::ServerUnaryReactor* ModelReady(grpc::CallbackServerContext* context,
                                       const inference::ModelReadyRequest* request,
                                       inference::ModelReadyResponse* response) override;
  grpc::ServerUnaryReactor* ServerMetadata(grpc::CallbackServerContext* context,
                                           const inference::ServerMetadataRequest* request,
                                           inference::ServerMetadataResponse* response) override;
  grpc::ServerUnaryReactor* ModelMetadata(grpc::CallbackServerContext* context,
                                          const inference::ModelMetadataRequest* request,
                                          inference::ModelMetadataResponse* response) override;
  // Inference: the same InferCall as the native API, through its v2 front end (V2InferCall).
  grpc::ServerUnaryReactor* ModelInfer(grpc::CallbackServerContext* context,
                                       const inference::ModelInferRequest* request,
                                       inference::ModelInferResponse* response) override;
  grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
  ModelStreamInfer(grpc::CallbackServerContext* context) override;
  grpc::ServerUnaryReactor* ModelStatistics(grpc::CallbackServerContext* context,
                                            const inference::ModelStatisticsRequest* request,
                                            inference::ModelStatisticsResponse* response) override;
  grpc::ServerUnaryReactor* RepositoryIndex(grpc::CallbackServerContext* context,
                                            const inference::RepositoryIndexRequest* request,
                                            inference::RepositoryIndexResponse* response) override;
  grpc::ServerUnaryReactor* RepositoryModelLoad(
      grpc::CallbackServerContext* context, const inference::RepositoryModelLoadRequest* request,
      inference::RepositoryModelLoadResponse* response) override;
  grpc::ServerUnaryReactor* RepositoryModelUnload(
      grpc::CallbackServerContext* context, const inference::RepositoryModelUnloadRequest* request,
      inference::RepositoryModelUnloadResponse* response) override;

 private:
  const NrtRuntime& runtime_;
  const ModelLoadingContext loading_;
  const InferContext infer_;
  const HealthSource health_;
  const ListenerPolicy policy_;
  const CallGuard guard_{infer_, policy_};  // after what it borrows
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_V2_INFERENCE_SERVICE_H_
