// The one gRPC channel a Client makes its calls on: credentials from the TLS options, round_robin
// load balancing, and the message size limit.
#ifndef NEURON_SERVE_CLIENT_LIB_CHANNEL_FACTORY_H_
#define NEURON_SERVE_CLIENT_LIB_CHANNEL_FACTORY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "client/lib/connect_options.h"
#include "grpcpp/channel.h"

namespace neuronserve::client {

// round_robin, not gRPC's default pick_first: with pick_first a "dns:///" name that resolves to
// several daemons would send every call to the first address.
inline constexpr char kRoundRobinServiceConfig[] =
    R"({"loadBalancingConfig":[{"round_robin":{}}]})";

// Does not connect: gRPC channels are lazy, so a daemon that is still starting is not an error
// here (Client::WaitForReady waits for it). INVALID_ARGUMENT for an empty target, tls_* options
// without tls, a certificate without its key (or the reverse), or a message limit below 1; the
// TLS files' read errors name their paths.
absl::StatusOr<std::shared_ptr<grpc::Channel>> CreateClientChannel(const ConnectOptions& options);

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_CHANNEL_FACTORY_H_
