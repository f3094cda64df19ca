#include "server/daemon/listeners.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/impl/server_builder_option.h"
#include "grpcpp/impl/server_builder_plugin.h"
#include "grpcpp/security/server_credentials.h"
#include "server/daemon/daemon_options.h"
#include "server/daemon/host_port.h"
#include "server/grpc/metadata_limit.h"
#include "server/native/neuron_serving_service.h"
#include "server/security/socket_lock.h"
#include "server/v2/v2_inference_service.h"

namespace neuronserve {
namespace {

constexpr char kUnixPrefix[] = "unix:";

// Drops the plugins gRPC added to the builder at its construction (see WithoutServerPlugins).
class NoPluginsOption final : public grpc::ServerBuilderOption {
 public:
  void UpdateArguments(grpc::ChannelArguments* /*args*/) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override {
    plugins->clear();
  }
};

}  // namespace

std::string UnixSocketPath(const std::string& address) {
  return absl::StartsWith(address, kUnixPrefix) ? address.substr(sizeof(kUnixPrefix) - 1) : "";
}

absl::Status ValidateAdminAddress(const std::string& address) {
  if (absl::StartsWith(address, kUnixPrefix)) {
    if (UnixSocketPath(address).empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--admin-listen='", address, "' names no socket path (unix:/PATH)"));
    }
    return absl::OkStatus();
  }
  if (!IsLoopbackAddress(address)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--admin-listen='", address,
        "' is not a loopback address: the admin listener serves LoadModel and UnloadModel, so it "
        "must not be reachable from other machines; use unix:/PATH or 127.0.0.1:PORT"));
  }
  return absl::OkStatus();
}

std::optional<std::string> ExposureWarning(const DaemonOptions& options) {
  if (IsLoopbackAddress(options.listen_address)) return std::nullopt;
  if (!options.tls_cert.empty()) return std::nullopt;
  if (!options.infer_token_file.empty() || !options.admin_token_file.empty()) return std::nullopt;
  const std::string admin = options.admin_listen.empty()
                                ? "LoadModel and UnloadModel included"
                                : absl::StrCat("admin calls are on ", options.admin_listen);
  return absl::StrCat("--listen=", options.listen_address,
                      " is reachable from other machines without TLS or tokens: anyone who can "
                      "reach it can run inference and read model metadata (",
                      admin,
                      "); set --tls-cert/--tls-key (and --tls-client-ca for mutual TLS) and "
                      "--infer-token-file/--admin-token-file, or listen on 127.0.0.1");
}

void ApplyCommonServerOptions(grpc::ServerBuilder& builder, const DaemonOptions& options) {
  // gRPC sets SO_REUSEPORT by default, which would let a second daemon silently share this
  // port (and the traffic) with the first; a port in use must be a startup error instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.AddChannelArgument(GRPC_ARG_MAX_METADATA_SIZE,
                             MetadataLimitFor(options.max_metadata_bytes));
}

AdminListener::AdminListener() = default;
AdminListener::~AdminListener() = default;

absl::StatusOr<std::unique_ptr<SocketLock>> LockAdminSocket(const DaemonOptions& options) {
  const std::string socket_path = UnixSocketPath(options.admin_listen);
  if (socket_path.empty()) return nullptr;
  return SocketLock::Acquire(socket_path);
}

absl::StatusOr<std::unique_ptr<AdminListener>> StartAdminListener(
    const DaemonOptions& options, std::unique_ptr<SocketLock> lock,
    std::unique_ptr<NeuronServingService> service, std::unique_ptr<V2InferenceService> v2_service) {
  if (absl::Status valid = ValidateAdminAddress(options.admin_listen); !valid.ok()) return valid;
  const std::string socket_path = UnixSocketPath(options.admin_listen);
  if (!socket_path.empty() && lock == nullptr) {
    return absl::InternalError("the admin socket must be locked before it is bound");
  }
  auto admin = std::make_unique<AdminListener>();
  admin->lock = std::move(lock);
  admin->service = std::move(service);
  admin->v2_service = std::move(v2_service);
  grpc::ServerBuilder builder;
  ApplyCommonServerOptions(builder, options);
  int selected_port = 0;
  builder.AddListeningPort(options.admin_listen, grpc::InsecureServerCredentials(), &selected_port);
  builder.RegisterService(admin->service.get());
  builder.RegisterService(admin->v2_service.get());
  admin->server = builder.BuildAndStart();
  if (admin->server == nullptr || selected_port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on --admin-listen='",
                                               options.admin_listen,
                                               "' (address in use, or its directory missing?)"));
  }
  if (!socket_path.empty()) {
    // gRPC creates the socket with the umask's mode; the admin socket is for the daemon's user
    // and group only (connecting needs write permission on the socket).
    if (::chmod(socket_path.c_str(), 0660) != 0) {
      return absl::InternalError(
          absl::StrCat("cannot chmod 0660 the admin socket ", socket_path, ": ", strerror(errno)));
    }
    // The "port" gRPC selects for a unix address means nothing: the address is the path.
    admin->address = options.admin_listen;
  } else {
    admin->address = WithPort(options.admin_listen, selected_port);
  }
  return admin;
}

HealthListener::HealthListener() = default;
HealthListener::~HealthListener() = default;

namespace {

class HealthOnly final : public grpc::CallbackGenericService {
 public:
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override {
    return new RefusedReactor<grpc::ServerGenericBidiReactor>(
        grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                     absl::StrCat(context->method(),
                                  " is not served here: the --health-listen port serves "
                                  "grpc.health.v1 only")));
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<HealthListener>> StartHealthListener(const DaemonOptions& options) {
  auto health = std::make_unique<HealthListener>();
  health->others = std::make_unique<HealthOnly>();
  grpc::ServerBuilder builder;
  WithoutServerPlugins(builder);  // no reflection: health only
  ApplyCommonServerOptions(builder, options);
  int selected_port = 0;
  builder.AddListeningPort(options.health_listen, grpc::InsecureServerCredentials(),
                           &selected_port);
  // BuildAndStart adds gRPC's default health service; every other method goes to `others`.
  builder.RegisterCallbackGenericService(health->others.get());
  health->server = builder.BuildAndStart();
  if (health->server == nullptr || selected_port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on --health-listen='",
                                               options.health_listen,
                                               "' (address in use, or not a HOST:PORT?)"));
  }
  health->address = WithPort(options.health_listen, selected_port);
  return health;
}

void WithoutServerPlugins(grpc::ServerBuilder& builder) {
  builder.SetOption(std::make_unique<NoPluginsOption>());
}

}  // namespace neuronserve
