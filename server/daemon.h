// Daemon: the running neuron-serve process — the runtime, the device inventory and the gRPC
// server with its services — started and stopped as one unit.
//
// Start order: open the runtime library, nrt_init, enumerate, start gRPC, then report SERVING.
// Stop order is the reverse, so nrt_close runs only after the last call has finished.
#ifndef NEURON_SERVE_SERVER_DAEMON_H_
#define NEURON_SERVE_SERVER_DAEMON_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/device/device_inventory.h"
#include "core/nrt/nrt_runtime.h"
#include "grpcpp/server.h"
#include "server/neuron_serving_service.h"

namespace neuronserve {

struct DaemonOptions {
  std::string listen_address = "127.0.0.1:8001";
  std::string nrt_library;  // empty: the runtime's default names
};

class Daemon {
 public:
  static absl::StatusOr<std::unique_ptr<Daemon>> Start(const DaemonOptions& options);

  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;
  ~Daemon();

  // The address actually bound (the requested port 0 replaced by the chosen one).
  const std::string& listening_address() const { return listening_address_; }
  const DeviceInventory& inventory() const { return inventory_; }
  const NrtRuntime& runtime() const { return *runtime_; }

  // Reports NOT_SERVING, stops taking calls, waits up to `grace` for open calls, then cancels
  // the rest. Idempotent; the destructor calls it with no grace.
  void Shutdown(absl::Duration grace);

 private:
  Daemon() = default;

  // Declared in construction order; destroyed in reverse, the runtime last.
  std::unique_ptr<NrtRuntime> runtime_;
  DeviceInventory inventory_;
  std::unique_ptr<NeuronServingService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string listening_address_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_DAEMON_H_
