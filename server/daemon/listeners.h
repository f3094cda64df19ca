// The daemon's extra listeners and what they check at start (issue 17): the admin listener
// (--admin-listen: a unix socket or a loopback port that serves the admin RPCs), the probe
// listener (--health-listen: plain-text grpc.health.v1 only), the options every gRPC server
// shares (gRPC's metadata limit: server/grpc/metadata_limit.h), and the warning when the main
// listener is exposed without TLS or tokens. Daemon::Start (daemon.cc) wires them; the gRPC-free
// pieces are in server/security/ (the socket's lock) and server/admission/ (the upload slots).
//
// Thread safety: the functions are pure or act on what they are given; call them from the
// thread that starts the daemon. Ownership: nothing is kept.
#ifndef NEURON_SERVE_SERVER_DAEMON_LISTENERS_H_
#define NEURON_SERVE_SERVER_DAEMON_LISTENERS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "grpcpp/support/server_callback.h"

namespace neuronserve {

struct DaemonOptions;
class NeuronServingService;
class SocketLock;
class V2InferenceService;

// The admin listener: its own NeuronServingService and V2InferenceService (a service object can
// be registered on one server only) on its own grpc::Server, and for a unix socket the lock
// beside it.
// Members in destruction order's reverse: the server stops before the service goes, the lock
// is released last.
struct AdminListener {
  AdminListener();
  ~AdminListener();
  std::unique_ptr<SocketLock> lock;  // unix sockets only
  std::unique_ptr<NeuronServingService> service;
  std::unique_ptr<V2InferenceService> v2_service;
  std::unique_ptr<grpc::Server> server;
  std::string address;  // "unix:/path", or HOST:PORT with the port actually bound
};

// For a unix --admin-listen, the lock beside the socket (server/security/socket_lock.h); null
// for a loopback port. Taken first thing at start, before the runtime claims its cores: a second
// daemon on the same socket is refused at once, naming the lock.
absl::StatusOr<std::unique_ptr<SocketLock>> LockAdminSocket(const DaemonOptions& options);

// Starts the admin listener on options.admin_listen (validated: ValidateAdminAddress) serving
// `service` and `v2_service` (whose ListenerPolicy allows admin calls) and gRPC health; `lock` is
// what LockAdminSocket took (it must be held before the socket is bound: gRPC would unlink and take
// over a socket another daemon is serving). A unix socket is made mode 0660 once bound.
absl::StatusOr<std::unique_ptr<AdminListener>> StartAdminListener(
    const DaemonOptions& options, std::unique_ptr<SocketLock> lock,
    std::unique_ptr<NeuronServingService> service, std::unique_ptr<V2InferenceService> v2_service);

// The probe listener: plain text, gRPC health (grpc.health.v1) and nothing else.
struct HealthListener {
  HealthListener();
  ~HealthListener();
  // Answers every other method UNIMPLEMENTED, saying this port is health only. (gRPC 1.51 also
  // refuses to build a server with no callback service: "At least one of the completion queues
  // must be frequently polled"; the default health service is only added after that check.)
  std::unique_ptr<grpc::CallbackGenericService> others;
  std::unique_ptr<grpc::Server> server;
  std::string address;  // HOST:PORT with the port actually bound
};

// Starts it on options.health_listen. Needs grpc::EnableDefaultHealthCheckService(true) first.
absl::StatusOr<std::unique_ptr<HealthListener>> StartHealthListener(const DaemonOptions& options);

// The path of a "unix:PATH" address; empty for any other address.
std::string UnixSocketPath(const std::string& address);

// --admin-listen must be reachable from this machine only: "unix:PATH", or a loopback
// HOST:PORT. INVALID_ARGUMENT saying why otherwise.
absl::Status ValidateAdminAddress(const std::string& address);

// The one warning of an exposed start: --listen is not loopback and neither TLS nor tokens are
// configured. Says what is exposed and which flags fix it; nullopt when there is nothing to say.
std::optional<std::string> ExposureWarning(const DaemonOptions& options);

// What every gRPC server of the daemon shares: SO_REUSEPORT off (a port in use is a startup
// error, not a silently shared port), the message size limit, and gRPC's own metadata limit
// (set above --max-metadata-bytes: server/grpc/metadata_limit.h).
void ApplyCommonServerOptions(grpc::ServerBuilder& builder, const DaemonOptions& options);

// A builder that takes none of gRPC's global server plugins: grpc::reflection's plugin, once
// registered (InitProtoReflectionServerBuilderPlugin), would add reflection to every builder;
// the probe listener must serve health and nothing else.
void WithoutServerPlugins(grpc::ServerBuilder& builder);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_DAEMON_LISTENERS_H_
