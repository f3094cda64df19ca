#include "server/daemon.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/blocking_counter.h"
#include "core/util/fmt_absl.h"
#include "core/util/posix_file.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "server/load_spec.h"
#include "spdlog/spdlog.h"

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

  if (!options.state_dir.empty()) {
    absl::StatusOr<std::unique_ptr<ModelStore>> store = ModelStore::Open(options.state_dir);
    if (!store.ok()) return store.status();
    daemon->store_ = *std::move(store);
  }
  if (!options.model_repository.empty()) {
    absl::StatusOr<ModelRepository> repository = ModelRepository::Open(options.model_repository);
    if (!repository.ok()) return repository.status();
    daemon->repository_ = *std::move(repository);
  } else if (!options.load_models.empty()) {
    return absl::InvalidArgumentError("--load-models needs --model-repository");
  }
  RegistryOptions registry_options;
  registry_options.drain_timeout = options.unload_timeout;
  registry_options.max_queue = options.max_queue;
  daemon->registry_ = std::make_unique<ModelRegistry>(
      *daemon->runtime_, daemon->inventory_.visible_cores, daemon->store_.get(), registry_options);

  ModelLoadingContext loading;
  loading.registry = daemon->registry_.get();
  loading.repository = daemon->repository_.has_value() ? &*daemon->repository_ : nullptr;
  loading.max_model_bytes = options.max_model_bytes;
  daemon->service_ =
      std::make_unique<NeuronServingService>(*daemon->runtime_, daemon->inventory_, loading);

  // Both must be set before the builder is created: they register themselves with it.
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();

  grpc::ServerBuilder builder;
  // gRPC sets SO_REUSEPORT by default, which would let a second daemon silently share this
  // port (and the traffic) with the first; a port in use must be a startup error instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
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

  // NOT_SERVING until the runtime is up and every startup model is READY or FAILED.
  grpc::HealthCheckServiceInterface* health = daemon->server_->GetHealthCheckService();
  health->SetServingStatus(false);
  daemon->LoadStartupModels(options);
  health->SetServingStatus(true);
  health->SetServingStatus(v1::NeuronServing::service_full_name(), true);
  return daemon;
}

void Daemon::LoadAndWait(std::vector<LoadSpec> specs) {
  absl::BlockingCounter remaining(static_cast<int>(specs.size()));
  for (LoadSpec& spec : specs) {
    // Failures are logged by the registry and leave the model FAILED; nothing more to do here.
    registry_->Load(std::move(spec),
                    [&remaining](const absl::StatusOr<ModelInfo>&) { remaining.DecrementCount(); });
  }
  remaining.Wait();
}

void Daemon::LoadStartupModels(const DaemonOptions& options) {
  std::vector<LoadSpec> repository_specs;
  if (repository_.has_value() && !options.load_models.empty()) {
    std::vector<std::string> names;
    if (options.load_models == "all") {
      absl::StatusOr<std::vector<std::string>> folders = repository_->ModelFolders();
      if (folders.ok()) {
        names = *std::move(folders);
      } else {
        spdlog::error("{}", folders.status().message());
      }
    } else {
      names = absl::StrSplit(options.load_models, ',', absl::SkipEmpty());
    }
    for (const std::string& name : names) {
      absl::StatusOr<RepositoryModel> model = repository_->Resolve(name);
      absl::StatusOr<std::string> bytes =
          model.ok() ? ReadFile(model->neff_path) : absl::StatusOr<std::string>(model.status());
      if (!bytes.ok()) {
        // Visible as FAILED, like a model the runtime refused; the others still load.
        registry_->RecordFailure(ModelIdentity{name, "", "repository"}, bytes.status());
        continue;
      }
      repository_specs.push_back(LoadSpecFromConfig(
          model->config, std::make_shared<const std::string>(*std::move(bytes)), "repository",
          /*persist=*/false));
    }
  }
  LoadAndWait(std::move(repository_specs));

  // Then what was loaded through the API before the restart: it is the newer intent, so it
  // replaces a repository model of the same name.
  if (store_ == nullptr) return;
  std::vector<std::string> problems;
  absl::StatusOr<std::vector<StoredModel>> stored = store_->List(&problems);
  if (!stored.ok()) {
    spdlog::error("cannot read the state directory: {}", stored.status().message());
    return;
  }
  std::vector<LoadSpec> state_specs;
  for (const StoredModel& model : *stored) {
    v1::ModelConfig config;
    if (!google::protobuf::TextFormat::ParseFromString(model.config_text, &config)) {
      spdlog::error("model '{}' in the state directory has an unreadable config; skipped",
                    model.name);
      continue;
    }
    absl::StatusOr<std::string> bytes = store_->ReadNeff(model);
    if (!bytes.ok()) {
      spdlog::error("model '{}' in the state directory: {}", model.name, bytes.status().message());
      continue;
    }
    state_specs.push_back(
        LoadSpecFromConfig(config, std::make_shared<const std::string>(*std::move(bytes)), "state",
                           /*persist=*/false));
  }
  if (!state_specs.empty()) {
    spdlog::info("restoring {} model(s) from the state directory {}", state_specs.size(),
                 store_->dir());
  }
  LoadAndWait(std::move(state_specs));
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
