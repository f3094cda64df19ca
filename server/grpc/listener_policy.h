// ListenerPolicy: what one gRPC listener of the daemon lets callers do, beyond what their
// token allows. The main listener and the admin listener (--admin-listen) each get a
// NeuronServingService with their own policy.
//
// Thread safety: immutable after construction; ownership: held by value.
#ifndef NEURON_SERVE_SERVER_GRPC_LISTENER_POLICY_H_
#define NEURON_SERVE_SERVER_GRPC_LISTENER_POLICY_H_

#include <cstdint>
#include <string>

namespace neuronserve {

struct ListenerPolicy {
  // Empty: this listener serves the admin RPCs (LoadModel, UnloadModel). Otherwise the address
  // of the admin listener that serves them instead (e.g. "unix:/run/neuron-serve/admin.sock"):
  // here they are PERMISSION_DENIED with a message naming it.
  std::string admin_listener_elsewhere;
  // --max-metadata-bytes: larger request metadata is RESOURCE_EXHAUSTED
  // (server/grpc/metadata_limit.h says why the handlers check it rather than gRPC alone). 0:
  // not checked.
  uint32_t max_metadata_bytes = 0;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_LISTENER_POLICY_H_
