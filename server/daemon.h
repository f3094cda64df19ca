// Daemon: the running neuron-serve process — the runtime, the device inventory and the gRPC
// server with its services — started and stopped as one unit.
//
// Start order: open the runtime library, nrt_init, enumerate, start gRPC, then report SERVING.
// Stop order is the reverse, so nrt_close runs only after the last call has finished.
#ifndef NEURON_SERVE_SERVER_DAEMON_H_
#define NEURON_SERVE_SERVER_DAEMON_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/device/device_inventory.h"
#include "core/model/model_registry.h"
#include "core/model/model_store.h"
#include "core/nrt/nrt_runtime.h"
#include "grpcpp/server.h"
#include "server/model_repository.h"
#include "server/neuron_serving_service.h"

namespace neuronserve {

struct DaemonOptions {
  std::string listen_address = "127.0.0.1:8001";
  std::string nrt_library;       // empty: the runtime's default names
  std::string model_repository;  // empty: none
  std::string load_models;       // "", "all", or "NAME,NAME"
  std::string state_dir;         // empty: API loads are not persisted
  uint64_t max_model_bytes = uint64_t{2} << 30;
  absl::Duration unload_timeout = absl::Seconds(30);
  uint32_t max_queue = 1024;
  // Largest message received (an Infer request carries all its tensors in one). Responses
  // are not capped: their size is the model's, and the client sets what it accepts.
  int max_message_bytes = 64 << 20;
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
  // The startup loads: the repository's (--load-models), then the state directory's; each
  // model ends READY or FAILED, and a failure never stops the others.
  void LoadStartupModels(const DaemonOptions& options);
  // Loads every spec and waits until each has answered.
  void LoadAndWait(std::vector<LoadSpec> specs);

  // Declared in construction order; destroyed in reverse: the gRPC server first, then the
  // models, the runtime last.
  std::unique_ptr<NrtRuntime> runtime_;
  DeviceInventory inventory_;
  std::unique_ptr<ModelStore> store_;
  std::optional<ModelRepository> repository_;
  std::unique_ptr<ModelRegistry> registry_;
  std::unique_ptr<NeuronServingService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string listening_address_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_DAEMON_H_
