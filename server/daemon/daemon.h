// Daemon: the running neuron-serve process — the runtime, the device inventory and the gRPC
// server with its services — started and stopped as one unit.
//
// Start order: open the runtime library, nrt_init, enumerate, start gRPC (and HTTP), load the
// startup models, then report SERVING. Stop: Drain (NOT_SERVING at once, new requests
// UNAVAILABLE, the open ones finish), then the reverse of the start, so nrt_close runs only
// after the last call has finished and every model is unloaded.
//
// This file is the wiring: which parts exist, in which order they start and stop, and who
// calls whom. Start's steps are in daemon_models.cc, daemon_credentials.cc and
// daemon_endpoints.cc. What the parts do is in their own units: health_publisher.h (health to
// gRPC), gauge_refresher.h (the scrape-time gauges), server/rest/http_routes.h (the HTTP answers)
// and server/repository/startup_models.h (the models loaded at start).
//
// Thread safety: Start, Drain and Shutdown are made for one controlling thread (main.cc calls
// them in that order from main); the const accessors are safe from any thread after Start.
// Ownership: the Daemon owns every part it starts.
#ifndef NEURON_SERVE_SERVER_DAEMON_DAEMON_H_
#define NEURON_SERVE_SERVER_DAEMON_DAEMON_H_

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "core/device/device_inventory.h"
#include "core/metrics/metrics_registry.h"
#include "core/serving/scheduling/queued_bytes_budget.h"
#include "server/admission/drain_gate.h"
#include "server/call/infer_context.h"
#include "server/daemon/daemon_options.h"
#include "server/repository/model_repository.h"
#include "util/callback_relay.h"

namespace grpc {
class Server;
}  // namespace grpc

namespace neuronserve {

// Held through unique_ptr only: their definitions are needed in daemon.cc, not by includers.
class AccessLog;
struct AdminListener;
class AuditLog;
struct HealthListener;
class UploadSlots;
class FileWatcher;
class GaugeRefresher;
class HealthMonitor;
struct HealthInputs;
class HttpServer;
class HttpTls;
class ListenerTls;
class ModelRegistry;
class ModelStore;
class NeuronServingService;
class NrtRuntime;
class ServingMetrics;
class SocketLock;
struct ModelLoadingContext;
class TokenAuthority;
class V2InferenceService;
class WorkerPool;
struct HealthReport;

class Daemon {
 public:
  static absl::StatusOr<std::unique_ptr<Daemon>> Start(const DaemonOptions& options);

  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;
  ~Daemon();

  // The address actually bound (the requested port 0 replaced by the chosen one).
  const std::string& listening_address() const { return listening_address_; }
  // The HTTP endpoint's address; empty without one.
  std::string http_address() const;
  // The admin listener's address ("unix:/path" or HOST:PORT as bound); empty without one.
  std::string admin_address() const;
  // The probe listener's address (HOST:PORT as bound); empty without one.
  std::string health_address() const;
  const DeviceInventory& inventory() const { return inventory_; }
  const NrtRuntime& runtime() const { return *runtime_; }

  // The first half of a graceful stop: health turns NOT_SERVING at once, new inference calls
  // get UNAVAILABLE, open streams stop reading and finish once answered; returns when every
  // inference call is done (true) or when `deadline` passes or `give_up()` says so (false).
  bool Drain(absl::Time deadline, const std::function<bool()>& give_up);
  // Reports NOT_SERVING, stops taking calls, waits up to `grace` for open calls, then cancels
  // the rest. Idempotent; the destructor calls it with no grace.
  void Shutdown(absl::Duration grace);
  // SIGHUP: re-reads the certificates and token files now, whether or not they changed.
  // Returns once they are re-read (a bad new certificate is refused and logged, not returned).
  void ReloadCredentials();

 private:
  Daemon();  // out of line: members hold types declared above only

  // The steps of Start, each in its own file; each returns the error that stops the start.
  // daemon_models.cc: the state directory, and the repository or --model-dir; `load_models`
  // and `model_dir_model` get what to load at start.
  absl::Status OpenModelSources(const DaemonOptions& options, std::string& load_models,
                                std::optional<RepositoryModel>& model_dir_model);
  // daemon_credentials.cc: the credential files' watcher, TLS, HTTPS, bearer tokens.
  absl::Status OpenCredentials(const DaemonOptions& options);
  // daemon_endpoints.cc: the admin and probe listeners, the services and the main listener.
  absl::Status StartGrpc(const DaemonOptions& options, const ModelLoadingContext& loading,
                         std::unique_ptr<SocketLock> admin_lock);
  // daemon_endpoints.cc: the HTTP endpoint (--http-listen) and its routes.
  absl::Status StartHttp(const DaemonOptions& options, const ModelLoadingContext& loading);
  // daemon_models.cc: the startup models; with --model-dir, an error when one failed.
  absl::Status LoadStartup(const DaemonOptions& options, const std::string& load_models,
                           const std::optional<RepositoryModel>& model_dir_model);
  // The HealthMonitor's inputs, from the daemon's current state.
  HealthInputs GatherHealth() const;
  // The health monitor's latest report; nullopt while there is no monitor (before it starts,
  // and from the start of Shutdown). Any thread: the v2 probes read it.
  std::optional<HealthReport> LatestHealth() const;
  // Takes the monitor away under health_mutex_ and stops it.
  void ResetHealthMonitor();
  // Every gRPC server running (main, admin, probe), for what applies to all of them.
  std::vector<grpc::Server*> Servers() const;

  // Declared in construction order; destroyed in reverse (the destructor first stops the
  // servers and the health monitor explicitly): the models before the runtime.
  std::unique_ptr<NrtRuntime> runtime_;
  DeviceInventory inventory_;
  metrics::MetricsRegistry metrics_registry_;
  std::unique_ptr<ServingMetrics> metrics_;
  // Refreshes the current-state gauges before each /metrics scrape.
  std::unique_ptr<GaugeRefresher> gauges_;
  std::unique_ptr<AccessLog> access_log_;
  std::unique_ptr<AuditLog> audit_log_;
  // Bearer tokens (--infer-token-file, --admin-token-file); before credential_files_, whose
  // callback re-reads them.
  std::unique_ptr<TokenAuthority> tokens_;
  // Watches the certificate and token files; its callbacks reload them.
  std::unique_ptr<FileWatcher> credential_files_;
  // The main listener's TLS and the certificate copy gRPC reads; credential_files_ calls it, and
  // the destructor stops that watcher before this goes.
  std::unique_ptr<ListenerTls> listener_tls_;
  // The HTTP endpoint's certificate (--http-tls-cert); null for plain HTTP. Like
  // listener_tls_, it goes after the watcher and after the HTTP server that borrow it.
  std::unique_ptr<HttpTls> http_tls_;
  CallbackRelay state_changes_;
  DrainGate gate_;
  std::atomic<bool> startup_done_{false};
  absl::Duration execution_timeout_ = absl::InfiniteDuration();
  const absl::Time runtime_started_ = absl::Now();
  std::unique_ptr<ModelStore> store_;
  std::optional<ModelRepository> repository_;
  std::unique_ptr<QueuedBytesBudget> queued_bytes_;  // before registry_, which borrows it
  std::unique_ptr<WorkerPool> workers_;  // before registry_, which borrows it
  std::unique_ptr<ModelRegistry> registry_;
  // --max-concurrent-uploads; outlives every LoadModel call (they hold its slots).
  std::unique_ptr<UploadSlots> upload_slots_;
  // Clients' shared-memory regions; outlives every call (they hold its regions).
  std::unique_ptr<SharedMemoryRegistry> shared_memory_;
  InferContext infer_context_;
  std::unique_ptr<NeuronServingService> service_;
  // The Open Inference Protocol on the main listener (the admin listener has its own).
  std::unique_ptr<V2InferenceService> v2_service_;
  std::unique_ptr<grpc::Server> server_;
  std::string listening_address_;
  // --admin-listen and --health-listen (server/daemon/listeners.h); null without them.
  std::unique_ptr<AdminListener> admin_;
  std::unique_ptr<HealthListener> health_listener_;
  // Set and reset under health_mutex_, which LatestHealth takes: the v2 probes read it from
  // gRPC threads while Shutdown resets it. The daemon's own thread reads it without the lock.
  std::unique_ptr<HealthMonitor> health_;
  mutable Mutex health_mutex_;
  std::unique_ptr<HttpServer> http_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_DAEMON_DAEMON_H_
