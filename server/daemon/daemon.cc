#include "server/daemon/daemon.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/health/health_monitor.h"
#include "core/lifecycle/model_registry.h"
#include "core/lifecycle/model_store.h"
#include "core/metrics/serving_metrics.h"
#include "core/nrt/nrt_runtime.h"
#include "core/nrt/runtime_environment.h"
#include "core/serving/execution/worker_pool.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "server/admission/upload_slots.h"
#include "server/daemon/gauge_refresher.h"
#include "server/daemon/health_publisher.h"
#include "server/daemon/listeners.h"
#include "server/daemon/tls_credentials.h"
#include "server/http/http_server.h"
#include "server/http/http_tls.h"
#include "server/logs/access_log.h"
#include "server/logs/audit_log.h"
#include "server/native/neuron_serving_service.h"
#include "server/security/socket_lock.h"
#include "server/security/token_authority.h"
#include "server/v2/v2_inference_service.h"
#include "spdlog/spdlog.h"
#include "util/file_watcher.h"

namespace neuronserve {

Daemon::Daemon() = default;

absl::StatusOr<std::unique_ptr<Daemon>> Daemon::Start(const DaemonOptions& options) {
  std::unique_ptr<Daemon> daemon(new Daemon());
  // Refused before anything starts: an admin listener reachable from elsewhere is a mistake.
  if (!options.admin_listen.empty()) {
    if (absl::Status valid = ValidateAdminAddress(options.admin_listen); !valid.ok()) return valid;
  }
  absl::StatusOr<std::unique_ptr<SocketLock>> admin_lock = LockAdminSocket(options);
  if (!admin_lock.ok()) return admin_lock.status();
  if (std::optional<std::string> warning = ExposureWarning(options); warning.has_value()) {
    spdlog::warn("{}", *warning);
  }

  absl::StatusOr<std::unique_ptr<NrtLibrary>> library = NrtLibrary::Open(options.nrt_library);
  if (!library.ok()) return library.status();
  absl::StatusOr<std::unique_ptr<NrtRuntime>> runtime = NrtRuntime::Start(*std::move(library));
  if (!runtime.ok()) return runtime.status();
  daemon->runtime_ = *std::move(runtime);
  // Settings that only the runtime's version makes wrong (known once nrt_init has run).
  if (absl::Status environment = CheckRuntimeEnvironment(daemon->runtime_->version());
      !environment.ok()) {
    return environment;
  }

  absl::StatusOr<DeviceInventory> inventory = EnumerateDevices(*daemon->runtime_);
  if (!inventory.ok()) return inventory.status();
  daemon->inventory_ = *std::move(inventory);

  std::string load_models;
  std::optional<RepositoryModel> model_dir_model;  // --model-dir holding one model
  if (absl::Status opened = daemon->OpenModelSources(options, load_models, model_dir_model);
      !opened.ok()) {
    return opened;
  }
  daemon->execution_timeout_ = options.execution_timeout;
  if (absl::Status opened = daemon->OpenCredentials(options); !opened.ok()) return opened;
  daemon->metrics_ = std::make_unique<ServingMetrics>(daemon->metrics_registry_,
                                                      ServingMetrics::kRetiredSeriesGrace,
                                                      options.max_retired_metric_versions);
  daemon->gauges_ = std::make_unique<GaugeRefresher>(*daemon->metrics_, daemon->runtime_started_);
  if (!options.access_log.empty()) {
    absl::StatusOr<std::unique_ptr<AccessLog>> access_log =
        AccessLog::Open(options.access_log, options.log_format, options.stdout_fd);
    if (!access_log.ok()) return access_log.status();
    daemon->access_log_ = *std::move(access_log);
  }
  if (!options.audit_log.empty()) {
    absl::StatusOr<std::unique_ptr<AuditLog>> audit_log =
        AuditLog::Open(options.audit_log, options.log_format, options.stdout_fd);
    if (!audit_log.ok()) return audit_log.status();
    daemon->audit_log_ = *std::move(audit_log);
  }
  RegistryOptions registry_options;
  registry_options.unload_timeout = options.unload_timeout;
  registry_options.max_queue = options.max_queue;
  daemon->queued_bytes_ = std::make_unique<QueuedBytesBudget>(options.max_queued_bytes);
  registry_options.queued_bytes = daemon->queued_bytes_.get();
  registry_options.pipeline_depth = options.pipeline_depth;
  registry_options.on_state_change = &daemon->state_changes_;
  registry_options.metrics = daemon->metrics_.get();
  registry_options.max_models = options.max_models;
  daemon->workers_ = std::make_unique<WorkerPool>(daemon->inventory_.visible_cores,
                                                  &daemon->state_changes_, daemon->metrics_.get());
  daemon->registry_ = std::make_unique<ModelRegistry>(*daemon->runtime_, *daemon->workers_,
                                                      daemon->store_.get(), registry_options);

  ModelLoadingContext loading;
  loading.registry = daemon->registry_.get();
  loading.repository = daemon->repository_.has_value() ? &*daemon->repository_ : nullptr;
  loading.max_model_bytes = options.max_model_bytes;
  daemon->upload_slots_ = std::make_unique<UploadSlots>(options.max_concurrent_uploads);
  loading.uploads = daemon->upload_slots_.get();
  daemon->shared_memory_ = std::make_unique<SharedMemoryRegistry>(options.shared_memory);
  daemon->infer_context_ =
      InferContext{daemon->registry_.get(),     daemon->metrics_.get(), &daemon->gate_,
                   daemon->access_log_.get(),   daemon->tokens_.get(),  daemon->audit_log_.get(),
                   daemon->shared_memory_.get()};

  // Both must be set before the builder is created: they register themselves with it.
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();

  if (absl::Status started = daemon->StartGrpc(options, loading, *std::move(admin_lock));
      !started.ok()) {
    return started;
  }

  Daemon* self = daemon.get();
  // NOT_SERVING until the runtime is up and every startup model is READY or FAILED. The
  // monitor publishes every status from here on; each model state change re-evaluates at once
  // (on the thread that made it), so a Watch sees LOADING's NOT_SERVING before READY's SERVING.
  auto monitor = std::make_unique<HealthMonitor>(
      [self] { return self->GatherHealth(); },
      [self](const std::string& service, bool serving, const HealthReport& report) {
        std::vector<grpc::HealthCheckServiceInterface*> healths;
        for (grpc::Server* server : self->Servers()) {
          healths.push_back(server->GetHealthCheckService());
        }
        PublishHealth(healths, service, serving, report, self->startup_done_.load());
      });
  {
    MutexLock lock(&daemon->health_mutex_);
    daemon->health_ = std::move(monitor);
  }
  daemon->state_changes_.Plug([self] { self->health_->EvaluateNow(); });
  daemon->metrics_registry_.AddScrapeHook([self] {
    self->gauges_->Refresh(
        GatherGaugeInputs(*self->registry_, self->registry_->workers(), *self->runtime_,
                          self->inventory_, self->health_.get(), self->queued_bytes_.get()),
        absl::Now());
  });
  if (!options.http_listen.empty()) {
    if (absl::Status started = daemon->StartHttp(options, loading); !started.ok()) return started;
  }
  // Not yet the "listening on" line: that one says the startup models are done.
  spdlog::info("gRPC bound to {}; health NOT_SERVING until the startup models are loaded",
               daemon->listening_address_);

  if (absl::Status loaded = daemon->LoadStartup(options, load_models, model_dir_model);
      !loaded.ok()) {
    return loaded;
  }
  daemon->startup_done_.store(true);
  daemon->health_->EvaluateNow();
  return daemon;
}

std::string Daemon::http_address() const { return http_ != nullptr ? http_->address() : ""; }

std::string Daemon::admin_address() const { return admin_ != nullptr ? admin_->address : ""; }

std::string Daemon::health_address() const {
  return health_listener_ != nullptr ? health_listener_->address : "";
}

std::optional<HealthReport> Daemon::LatestHealth() const {
  MutexLock lock(&health_mutex_);
  if (health_ == nullptr) return std::nullopt;
  return health_->Latest();
}

std::vector<grpc::Server*> Daemon::Servers() const {
  std::vector<grpc::Server*> servers;
  for (grpc::Server* server :
       {server_.get(), admin_ != nullptr ? admin_->server.get() : nullptr,
        health_listener_ != nullptr ? health_listener_->server.get() : nullptr}) {
    if (server != nullptr) servers.push_back(server);
  }
  return servers;
}

HealthInputs Daemon::GatherHealth() const {
  HealthInputs inputs;
  inputs.startup_done = startup_done_.load();
  inputs.draining = gate_.draining();
  const WorkerPool& workers = registry_->workers();
  for (uint32_t core = 0; core < inventory_.visible_cores; ++core) {
    inputs.core_healthy.push_back(workers.CoreHealthy(core));
  }
  inputs.models = registry_->List();
  inputs.longest_execution = workers.LongestExecution();
  inputs.execution_timeout = execution_timeout_;
  return inputs;
}

bool Daemon::Drain(absl::Time deadline, const std::function<bool()>& give_up) {
  gate_.BeginDrain();
  health_->EvaluateNow();  // NOT_SERVING before anything else
  const int64_t open = gate_.open_calls();
  spdlog::info("draining: {} inference call(s) open, waiting up to {}", open,
               absl::FormatDuration(absl::Trunc(deadline - absl::Now(), absl::Milliseconds(1))));
  const bool drained = gate_.WaitUntilEmpty(deadline, give_up);
  if (drained) {
    spdlog::info("drained: every inference call finished");
  } else {
    spdlog::warn("drain cut short ({}): cancelling {} inference call(s) still open",
                 absl::Now() >= deadline ? "--drain-timeout passed" : "second signal",
                 gate_.open_calls());
  }
  return drained;
}

void Daemon::ReloadCredentials() {
  spdlog::info("SIGHUP: re-reading certificates and token files");
  if (credential_files_ != nullptr) credential_files_->ReloadAll();
}

void Daemon::ResetHealthMonitor() {
  std::unique_ptr<HealthMonitor> monitor;
  {
    MutexLock lock(&health_mutex_);
    monitor = std::move(health_);
  }
  // Joined outside the lock: its thread publishes, and a probe waiting for the lock sees none.
  monitor.reset();
}

void Daemon::Shutdown(absl::Duration grace) {
  const std::vector<grpc::Server*> servers = Servers();
  if (servers.empty()) return;
  gate_.BeginDrain();
  http_.reset();  // its probes read the health monitor
  // No more publishing: the server's own shutdown turns every service NOT_SERVING.
  state_changes_.Unplug();
  ResetHealthMonitor();
  // Every service NOT_SERVING (this one-argument form sets them all) for the calls still open,
  // on every listener.
  for (grpc::Server* server : servers) {
    if (auto* health = server->GetHealthCheckService(); health != nullptr) {
      health->SetServingStatus(false);
    }
  }
  // One deadline for all: the grace is for the daemon's calls, not per listener.
  const auto deadline = absl::ToChronoTime(absl::Now() + grace);
  for (grpc::Server* server : servers) server->Shutdown(deadline);
  for (grpc::Server* server : servers) server->Wait();
  server_.reset();
  if (admin_ != nullptr) admin_->server.reset();
  if (health_listener_ != nullptr) health_listener_->server.reset();
}

Daemon::~Daemon() {
  // A failed Start may stop anywhere: every step below copes with what does not exist.
  state_changes_.Unplug();
  ResetHealthMonitor();
  Shutdown(absl::ZeroDuration());
  http_.reset();  // its handlers read the registry
  service_.reset();
  v2_service_.reset();
  admin_.reset();  // its server is stopped: its service, then the socket's lock
  health_listener_.reset();
  registry_.reset();  // unloads every model
  access_log_.reset();
  credential_files_.reset();  // stops its callbacks before what they reload goes
  listener_tls_.reset();      // after the watcher whose callback uses it, and after the server
  http_tls_.reset();          // likewise, after the watcher and the HTTP server
  audit_log_.reset();
  tokens_.reset();
}

}  // namespace neuronserve
