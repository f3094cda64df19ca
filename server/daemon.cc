#include "server/daemon.h"

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"

namespace neuronserve {
namespace {

// "127.0.0.1:0" + 43210 -> "127.0.0.1:43210".
std::string WithPort(const std::string& address, int port) {
  const size_t colon = address.rfind(':');
  const std::string host = colon == std::string::npos ? address : address.substr(0, colon);
  return absl::StrCat(host, ":", port);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Daemon>> Daemon::Start(const DaemonOptions& options) {
  std::unique_ptr<Daemon> daemon(new Daemon());

  absl::StatusOr<std::unique_ptr<NrtLibrary>> library = NrtLibrary::Open(options.nrt_library);
  if (!library.ok()) return library.status();
  absl::StatusOr<std::unique_ptr<NrtRuntime>> runtime = NrtRuntime::Start(*std::move(library));
  if (!runtime.ok()) return runtime.status();
  daemon->runtime_ = *std::move(runtime);

  absl::StatusOr<DeviceInventory> inventory = EnumerateDevices(*daemon->runtime_);
  if (!inventory.ok()) return inventory.status();
  daemon->inventory_ = *std::move(inventory);

  daemon->service_ = std::make_unique<NeuronServingService>(*daemon->runtime_, daemon->inventory_);

  // Both must be set before the builder is created: they register themselves with it.
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();

  grpc::ServerBuilder builder;
  // gRPC sets SO_REUSEPORT by default, which would let a second daemon silently share this
  // port (and the traffic) with the first; a port in use must be a startup error instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  int selected_port = 0;
  builder.AddListeningPort(options.listen_address, grpc::InsecureServerCredentials(),
                           &selected_port);
  builder.RegisterService(daemon->service_.get());
  daemon->server_ = builder.BuildAndStart();
  if (daemon->server_ == nullptr || selected_port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on '", options.listen_address,
                                               "' (address in use, or not a HOST:PORT?)"));
  }
  daemon->listening_address_ = WithPort(options.listen_address, selected_port);

  // The runtime is up: SERVING for the server as a whole and for the native service.
  grpc::HealthCheckServiceInterface* health = daemon->server_->GetHealthCheckService();
  health->SetServingStatus(true);
  health->SetServingStatus(v1::NeuronServing::service_full_name(), true);
  return daemon;
}

void Daemon::Shutdown(absl::Duration grace) {
  if (server_ == nullptr) return;
  if (auto* health = server_->GetHealthCheckService(); health != nullptr) {
    health->SetServingStatus(false);
  }
  server_->Shutdown(absl::ToChronoTime(absl::Now() + grace));
  server_->Wait();
  server_.reset();
}

Daemon::~Daemon() { Shutdown(absl::ZeroDuration()); }

}  // namespace neuronserve
