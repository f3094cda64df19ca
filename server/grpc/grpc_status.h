// absl::Status -> grpc::Status at the edge of the gRPC services.
//
// core/ reports errors as absl::Status whose codes are chosen to be the gRPC codes a client
// should see (absl::StatusCode and grpc::StatusCode share their numbering), so this is a
// one-to-one conversion that keeps the message, which names the operation and, for runtime
// errors, the NRT status name and number.
#ifndef NEURON_SERVE_SERVER_GRPC_GRPC_STATUS_H_
#define NEURON_SERVE_SERVER_GRPC_GRPC_STATUS_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace neuronserve {

grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_GRPC_STATUS_H_
