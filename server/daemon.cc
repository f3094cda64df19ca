#include "server/daemon.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/blocking_counter.h"
#include "core/nrt/runtime_environment.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "server/host_port.h"
#include "server/load_spec.h"
#include "server/models_json.h"
#include "spdlog/spdlog.h"
#include "util/fmt_absl.h"
#include "util/posix_file.h"

namespace neuronserve {
absl::StatusOr<std::unique_ptr<Daemon>> Daemon::Start(const DaemonOptions& options) {
  std::unique_ptr<Daemon> daemon(new Daemon());

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
  daemon->execution_timeout_ = options.execution_timeout;
  daemon->metrics_ = std::make_unique<ServingMetrics>(daemon->metrics_registry_);
  if (!options.access_log.empty()) {
    absl::StatusOr<std::unique_ptr<AccessLog>> access_log =
        AccessLog::Open(options.access_log, options.log_format, options.stdout_fd);
    if (!access_log.ok()) return access_log.status();
    daemon->access_log_ = *std::move(access_log);
  }
  RegistryOptions registry_options;
  registry_options.drain_timeout = options.unload_timeout;
  registry_options.max_queue = options.max_queue;
  registry_options.on_state_change = &daemon->state_changes_;
  registry_options.metrics = daemon->metrics_.get();
  daemon->registry_ = std::make_unique<ModelRegistry>(
      *daemon->runtime_, daemon->inventory_.visible_cores, daemon->store_.get(), registry_options);

  ModelLoadingContext loading;
  loading.registry = daemon->registry_.get();
  loading.repository = daemon->repository_.has_value() ? &*daemon->repository_ : nullptr;
  loading.max_model_bytes = options.max_model_bytes;
  daemon->infer_context_ = InferContext{daemon->registry_.get(), daemon->metrics_.get(),
                                        &daemon->gate_, daemon->access_log_.get()};
  daemon->service_ = std::make_unique<NeuronServingService>(
      *daemon->runtime_, daemon->inventory_, loading, daemon->infer_context_);

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

  // NOT_SERVING until the runtime is up and every startup model is READY or FAILED. The
  // monitor publishes every status from here on; each model state change re-evaluates at once
  // (on the thread that made it), so a Watch sees LOADING's NOT_SERVING before READY's SERVING.
  Daemon* self = daemon.get();
  daemon->health_ = std::make_unique<HealthMonitor>(
      [self] { return self->GatherHealth(); },
      [self](const std::string& service, bool serving, const HealthReport& report) {
        self->PublishHealth(service, serving, report);
      });
  daemon->state_changes_.Plug([self] { self->health_->EvaluateNow(); });
  daemon->metrics_registry_.AddScrapeHook([self] { self->RefreshGauges(); });
  if (!options.http_listen.empty()) {
    absl::StatusOr<std::unique_ptr<HttpServer>> http =
        HttpServer::Start(options.http_listen, daemon->HttpRoutes());
    if (!http.ok()) return http.status();
    daemon->http_ = *std::move(http);
    spdlog::info("HTTP endpoint on {} (/metrics /livez /readyz /v1/models)",
                 daemon->http_->address());
  }
  // Not yet the "listening on" line: that one says the startup models are done.
  spdlog::info("gRPC bound to {}; health NOT_SERVING until the startup models are loaded",
               daemon->listening_address_);

  daemon->LoadStartupModels(options);
  daemon->startup_done_.store(true);
  daemon->health_->EvaluateNow();
  return daemon;
}

std::string Daemon::http_address() const { return http_ != nullptr ? http_->address() : ""; }

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

void Daemon::PublishHealth(const std::string& service, bool serving, const HealthReport& report) {
  grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
  if (service.empty()) {
    // (The one-argument SetServingStatus would set every service: name "" explicitly.)
    health->SetServingStatus("", serving);
    // The API's own service name says the same as "".
    health->SetServingStatus(v1::NeuronServing::service_full_name(), serving);
    if (!serving && startup_done_.load()) {
      spdlog::warn("health: NOT_SERVING ({})", report.serving_reason);
    } else if (serving) {
      spdlog::info("health: SERVING");
    }
  } else {
    health->SetServingStatus(service, serving);
    if (service == kLivenessService) {
      if (!serving) {
        spdlog::error("watchdog: not live: {}", report.live_reason);
      } else if (startup_done_.load()) {
        spdlog::info("watchdog: live again");
      }
    }
  }
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

void Daemon::RefreshGauges() {
  ServingMetrics& m = *metrics_;
  const std::vector<ModelInfo> models = registry_->List();
  m.queue_depth.Clear();
  m.model_load_seconds.Clear();
  std::map<std::string, int> by_state = {{"LOADING", 0}, {"READY", 0}, {"UNLOADING", 0},
                                         {"FAILED", 0}};
  for (const ModelInfo& model : models) {
    ++by_state[std::string(ModelStateName(model.state))];
    if (model.state != ModelState::kReady && model.state != ModelState::kUnloading) continue;
    const metrics::Labels labels = {model.identity.name, model.identity.version};
    m.queue_depth.WithLabels(labels).Set(static_cast<double>(model.queue_depth));
    m.model_load_seconds.WithLabels(labels).Set(absl::ToDoubleSeconds(model.load_duration));
  }
  for (const auto& [state, count] : by_state) m.models.WithLabels({state}).Set(count);

  const WorkerPool& workers = registry_->workers();
  const std::vector<bool> executing = workers.ExecutingByCore();
  const absl::Time now = absl::Now();
  MutexLock lock(&busy_mutex_);
  const uint32_t cores = inventory_.visible_cores;
  if (busy_at_last_scrape_.size() != cores) {
    busy_at_last_scrape_.assign(cores, 0.0);
    last_busy_ratio_.assign(cores, 0.0);
    last_scrape_ = runtime_started_;
  }
  const double elapsed = absl::ToDoubleSeconds(now - last_scrape_);
  for (uint32_t core = 0; core < cores; ++core) {
    const metrics::Labels labels = {std::to_string(core)};
    const double busy = m.ForCore(core).busy_seconds->value();
    // Over the time since the previous scrape; scrapes closer than 100 ms apart keep the ratio
    // of the previous interval rather than divide by almost nothing.
    if (elapsed >= 0.1) {
      last_busy_ratio_[core] = std::clamp((busy - busy_at_last_scrape_[core]) / elapsed, 0.0, 1.0);
      busy_at_last_scrape_[core] = busy;
    }
    m.core_busy_ratio.WithLabels(labels).Set(last_busy_ratio_[core]);
    m.executions_in_flight.WithLabels(labels).Set(core < executing.size() && executing[core] ? 1 : 0);
    m.core_healthy.WithLabels(labels).Set(workers.CoreHealthy(core) ? 1 : 0);
    absl::StatusOr<CoreMemoryStats> memory = runtime_->MemoryStats(core);
    if (memory.ok()) m.device_memory_used.WithLabels(labels).Set(static_cast<double>(memory->bytes_used));
    if (core < inventory_.cores.size()) {
      m.device_memory_total.WithLabels(labels).Set(
          static_cast<double>(inventory_.cores[core].memory_bytes));
    }
  }
  if (elapsed >= 0.1) last_scrape_ = now;
  const HealthReport health = health_ != nullptr ? health_->Latest() : HealthReport{};
  m.ready.WithLabels({}).Set(health.serving ? 1 : 0);
  m.live.WithLabels({}).Set(health.live ? 1 : 0);
}

std::map<std::string, HttpServer::Handler> Daemon::HttpRoutes() {
  std::map<std::string, HttpServer::Handler> routes;
  routes["/metrics"] = [this] {
    return HttpResponse{200, metrics::MetricsRegistry::kContentType,
                        metrics_registry_.RenderText()};
  };
  routes["/livez"] = [this] {
    const HealthReport health = health_->Latest();
    return health.live ? HttpResponse{200, "text/plain; charset=utf-8", "ok\n"}
                       : HttpResponse{503, "text/plain; charset=utf-8",
                                      absl::StrCat("not live: ", health.live_reason, "\n")};
  };
  routes["/readyz"] = [this] {
    const HealthReport health = health_->Latest();
    return health.serving ? HttpResponse{200, "text/plain; charset=utf-8", "ok\n"}
                          : HttpResponse{503, "text/plain; charset=utf-8",
                                         absl::StrCat("not ready: ", health.serving_reason, "\n")};
  };
  routes["/v1/models"] = [this] {
    return HttpResponse{200, "application/json", ModelsJson(registry_->List(),
                                                            health_->Latest())};
  };
  return routes;
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
  gate_.BeginDrain();
  http_.reset();  // its probes read the health monitor
  // No more publishing: the server's own shutdown turns every service NOT_SERVING.
  state_changes_.Unplug();
  health_.reset();
  // Every service NOT_SERVING (this one-argument form sets them all) for the calls still open.
  if (auto* health = server_->GetHealthCheckService(); health != nullptr) {
    health->SetServingStatus(false);
  }
  server_->Shutdown(absl::ToChronoTime(absl::Now() + grace));
  server_->Wait();
  server_.reset();
}

Daemon::~Daemon() {
  // A failed Start may stop anywhere: every step below copes with what does not exist.
  state_changes_.Unplug();
  health_.reset();
  Shutdown(absl::ZeroDuration());
  http_.reset();  // its handlers read the registry
  service_.reset();
  registry_.reset();  // unloads every model
  access_log_.reset();
}

}  // namespace neuronserve
