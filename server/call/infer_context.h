// InferContext: what every inference call needs besides its own messages; one per daemon.
#ifndef NEURON_SERVE_SERVER_CALL_INFER_CONTEXT_H_
#define NEURON_SERVE_SERVER_CALL_INFER_CONTEXT_H_

#include "absl/status/status.h"

namespace neuronserve {

class AccessLog;
class AuditLog;
class DrainGate;
class ModelRegistry;
class ServingMetrics;
class SharedMemoryRegistry;
class TokenAuthority;

struct InferContext {
  const ModelRegistry* registry = nullptr;
  ServingMetrics* metrics = nullptr;  // nullable: no metrics
  DrainGate* gate = nullptr;          // nullable: never drains
  AccessLog* access_log = nullptr;    // nullable: no access log
  // Read by every NeuronServing handler's CallGuard (server/grpc/call_guard.h), not only
  // inference's.
  const TokenAuthority* tokens = nullptr;  // nullable: no token files, every call allowed
  AuditLog* audit_log = nullptr;           // nullable: no audit log
  // Clients' shared-memory regions (server/shared_memory), for every front end.
  SharedMemoryRegistry* shared_memory = nullptr;  // nullable: requests may name no region
};

// What a call gets once the daemon has begun to drain.
inline absl::Status ShuttingDownError() {
  return absl::UnavailableError(
      "neuron-serve is shutting down and takes no new requests; retry on another instance");
}

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_CALL_INFER_CONTEXT_H_
