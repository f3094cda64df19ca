// Daemon's endpoints (daemon.h): the gRPC listeners (admin, probe, main) with their services,
// and the HTTP endpoint with its routes. Called by Daemon::Start on its one thread once the
// registry and the credentials exist; what they start, the Daemon owns and stops in Shutdown.
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/health/health_monitor.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "server/daemon/daemon.h"
#include "server/daemon/host_port.h"
#include "server/daemon/listeners.h"
#include "server/daemon/tls_credentials.h"
#include "server/http/http_server.h"
#include "server/native/neuron_serving_service.h"
#include "server/rest/http_routes.h"
#include "server/rest/v2_rest_routes.h"
#include "server/security/socket_lock.h"
#include "server/v2/v2_inference_service.h"
#include "spdlog/spdlog.h"

namespace neuronserve {

absl::Status Daemon::StartGrpc(const DaemonOptions& options, const ModelLoadingContext& loading,
                               std::unique_ptr<SocketLock> admin_lock) {
  // The admin and probe listeners (listeners.h) start before the main one, whose service names
  // the admin listener's bound address in its refusals.
  const HealthSource latest_health = [this] { return LatestHealth(); };
  ListenerPolicy main_policy{.admin_listener_elsewhere = {},
                              .max_metadata_bytes = options.max_metadata_bytes};
  if (!options.admin_listen.empty()) {
    const ListenerPolicy admin_policy{.admin_listener_elsewhere = {},
                                      .max_metadata_bytes = options.max_metadata_bytes};
    absl::StatusOr<std::unique_ptr<AdminListener>> admin =
        StartAdminListener(options, std::move(admin_lock),
                           std::make_unique<NeuronServingService>(*runtime_, inventory_, loading,
                                                                  infer_context_, admin_policy),
                           std::make_unique<V2InferenceService>(loading, infer_context_,
                                                                latest_health, admin_policy));
    if (!admin.ok()) return admin.status();
    admin_ = *std::move(admin);
    main_policy.admin_listener_elsewhere = admin_->address;
    spdlog::info("admin listener on {} (LoadModel, UnloadModel, the v2 Repository calls, health)",
                 admin_->address);
  }
  if (!options.health_listen.empty()) {
    absl::StatusOr<std::unique_ptr<HealthListener>> health = StartHealthListener(options);
    if (!health.ok()) return health.status();
    health_listener_ = *std::move(health);
    spdlog::info("health listener on {} (grpc.health.v1 only, plain text)",
                 health_listener_->address);
  }
  service_ = std::make_unique<NeuronServingService>(*runtime_, inventory_, loading, infer_context_,
                                                    main_policy);
  v2_service_ =
      std::make_unique<V2InferenceService>(loading, infer_context_, latest_health, main_policy);

  grpc::ServerBuilder builder;
  ApplyCommonServerOptions(builder, options);
  int selected_port = 0;
  builder.AddListeningPort(options.listen_address, listener_tls_->credentials(), &selected_port);
  builder.RegisterService(service_.get());
  builder.RegisterService(v2_service_.get());
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || selected_port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on '", options.listen_address,
                                               "' (address in use, or not a HOST:PORT?)"));
  }
  listening_address_ = WithPort(options.listen_address, selected_port);
  spdlog::info("gRPC on {} {}", listening_address_, listener_tls_->Describe());
  return absl::OkStatus();
}

absl::Status Daemon::StartHttp(const DaemonOptions& options, const ModelLoadingContext& loading) {
  HttpRouteSources sources;
  sources.metrics = &metrics_registry_;
  sources.health = [this] { return health_->Latest(); };
  sources.models = [this] { return registry_->List(); };
  HttpServerOptions http_options;
  http_options.address = options.http_listen;
  http_options.max_body_bytes = static_cast<size_t>(options.max_message_bytes);
  http_options.tokens = tokens_.get();
  http_options.tls = http_tls_.get();
  HttpRouteTable routes = HttpRoutes(std::move(sources));
  // The Open Inference Protocol's REST form, over the same answers, calls and health as the
  // gRPC one.
  V2RestSources v2_sources;
  v2_sources.infer = &infer_context_;
  v2_sources.loading = loading;
  v2_sources.health = [this] { return LatestHealth(); };
  v2_sources.admin_listener_elsewhere = admin_address();
  AddV2RestRoutes(routes, std::move(v2_sources));
  absl::StatusOr<std::unique_ptr<HttpServer>> http =
      HttpServer::Start(std::move(http_options), std::move(routes));
  if (!http.ok()) return http.status();
  http_ = *std::move(http);
  spdlog::info("HTTP endpoint on {} ({}; /metrics /livez /readyz /v1/models /v2)", http_->address(),
               http_->tls() ? "HTTPS" : "plain HTTP");
  return absl::OkStatus();
}

}  // namespace neuronserve
