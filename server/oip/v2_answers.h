// The answers of the Open Inference Protocol (KServe v2 with Triton's extensions) that are not
// inference, once for both of its front ends: the gRPC service (server/v2/v2_inference_service.h)
// and the REST routes (server/rest/v2_rest_routes.h). Each function fills the protocol's message
// (the inference:: protobuf types, which the REST routes render as JSON) or returns the status both
// front ends answer with, the same message either way. gRPC-free.
//
// Thread safety: every function may run on any thread at once (the registry, the repository
// and the health source allow it); the load and unload callbacks run on the registry's thread,
// or on the caller's when the request is refused before it reaches the registry.
// Ownership: borrows its arguments for the duration of the call; the registry keeps `done`.
#ifndef NEURON_SERVE_SERVER_OIP_V2_ANSWERS_H_
#define NEURON_SERVE_SERVER_OIP_V2_ANSWERS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "core/health/health_evaluator.h"
#include "core/lifecycle/model_registry.h"
#include "inference/grpc_service.pb.h"
#include "server/repository/model_loading_context.h"

namespace neuronserve {

// The daemon's latest published health (HealthMonitor::Latest); nullopt while no monitor runs
// (before its first evaluation and once shutdown has begun), which the probes answer as not
// live and not ready, as grpc.health.v1 then says NOT_SERVING. Called from any thread.
using HealthSource = std::function<std::optional<HealthReport>()>;

// What ServerMetadata reports.
inline constexpr char kV2ServerName[] = "neuron-serve";
// The Triton extensions served here (ServerMetadata.extensions). The CUDA shared memory RPCs
// answer as a server without GPUs; that is not the extension, so it is not listed.
inline constexpr const char* kV2Extensions[] = {"model_repository", "schedule_policy", "statistics",
                                                "system_shared_memory"};

// ServerLive and ServerReady: the watchdog's liveness and service ""'s readiness, as
// grpc.health.v1 publishes them.
bool V2ServerLive(const std::optional<HealthReport>& report);
bool V2ServerReady(const std::optional<HealthReport>& report);
// ModelReady: the model's own health status; false for a model the daemon does not know (an
// answer, not an error, as Triton gives it) and for a `version` that is not the serving one.
bool V2ModelReady(const std::optional<HealthReport>& report, const ModelRegistry& registry,
                  const std::string& name, const std::string& version);

// ServerMetadata: name, the daemon's version, the extensions.
void V2ServerMetadata(inference::ServerMetadataResponse& out);

// ModelMetadata of the READY version of `name`: NOT_FOUND naming the model (and its state) when
// it has none; FAILED_PRECONDITION naming both when `version` is given and is not the serving one.
absl::Status V2ModelMetadata(const ModelRegistry& registry, const std::string& name,
                             const std::string& version, inference::ModelMetadataResponse& out);

// ModelStatistics: of `name` (its serving version; `version`, when given, must be it), or of
// every model with a serving version when `name` is empty (of `version` only, when given).
absl::Status V2ModelStatistics(const ModelRegistry& registry, const std::string& name,
                               const std::string& version, inference::ModelStatisticsResponse& out);

// OK when `repository_name` is empty or the repository folder's base name; NOT_FOUND naming
// both otherwise (or saying there is no repository). `call` names the call in the message.
absl::Status V2CheckRepositoryName(const ModelLoadingContext& loading, std::string_view call,
                                   const std::string& repository_name);

// RepositoryIndex: the registry's models merged with the repository's folders, by name;
// `ready_only` keeps the READY ones.
absl::Status V2RepositoryIndex(const ModelLoadingContext& loading, bool ready_only,
                               inference::RepositoryIndexResponse& out);

using V2Done = std::function<void(const absl::Status&)>;

// RepositoryModelLoad of `name` with `parameters`: Triton's "config" (JSON in either schema:
// Triton's replaces the folder's config.pbtxt, neuron-serve's is merged over it as LoadModel's
// header config is), and "file:<path>" (bytes_param) parameters, which upload the model's folder
// (server/repository/uploaded_model.h: `config` required, an upload slot held until the load
// ends). `done` gets the load's outcome once the model is READY or failed (on the registry's
// thread), or the refusal at once; every error it gets is V2LoadRefusal's.
void V2RepositoryLoad(
    const ModelLoadingContext& loading, const std::string& name, const std::string& repository_name,
    const google::protobuf::Map<std::string, inference::ModelRepositoryParameter>& parameters,
    V2Done done);

// `status` as RepositoryModelLoad answers it: an error's message begins "failed to load '<name>': "
// as Triton's does (its clients look for "failed to load"); OK as it is.
absl::Status V2LoadRefusal(const std::string& name, const absl::Status& status);

// The bytes the `file:` parameters of a RepositoryModelLoad carry together, for the audit line;
// nullopt when it has none.
std::optional<uint64_t> V2UploadedBytes(
    const google::protobuf::Map<std::string, inference::ModelRepositoryParameter>& parameters);

// RepositoryModelUnload of `name`; `done` as for V2RepositoryLoad, once the model is gone.
void V2RepositoryUnload(const ModelLoadingContext& loading, const std::string& name,
                        const std::string& repository_name, V2Done done);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_OIP_V2_ANSWERS_H_
