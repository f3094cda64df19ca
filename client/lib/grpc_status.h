// grpc::Status -> absl::Status. Both use the google.rpc.Code numbers, so the code passes through
// unchanged, and so does the server's message: callers branch on codes and show messages, and
// both must be what the server said.
#ifndef NEURON_SERVE_CLIENT_LIB_GRPC_STATUS_H_
#define NEURON_SERVE_CLIENT_LIB_GRPC_STATUS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "grpcpp/channel.h"
#include "grpcpp/support/status.h"

namespace neuronserve::client {

// Same code number, same message.
absl::Status FromGrpcStatus(const grpc::Status& status);

// A google.rpc.Code number and message (e.g. an InferError) as an absl::Status; 0 is OK.
absl::Status FromCodeAndMessage(int32_t code, absl::string_view message);

// The status of a call on `channel`. An UNAVAILABLE that gRPC produced because it could not
// reach the server (the channel is not connected) is reworded to name `target`, since gRPC's own
// text ("failed to connect to all addresses") does not say which server; an UNAVAILABLE the
// server itself sent (a connected channel) is kept as it is.
absl::Status FromCallStatus(const grpc::Status& status, grpc::Channel& channel,
                            absl::string_view target);

// How a failed call's grpc::Status becomes the caller's error (FromCallStatus with the call's
// channel and target, bound by whoever made the call).
using CallStatusConverter = std::function<absl::Status(const grpc::Status&)>;

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_GRPC_STATUS_H_
