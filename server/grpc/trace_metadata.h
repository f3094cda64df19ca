// The W3C traceparent of a gRPC call (its `traceparent` metadata, as OpenTelemetry's gRPC
// instrumentation sends it), checked for the access log (server/logs/traceparent.h).
//
// Thread safety: reads the context's client metadata, which gRPC fixes before the handler runs.
#ifndef NEURON_SERVE_SERVER_GRPC_TRACE_METADATA_H_
#define NEURON_SERVE_SERVER_GRPC_TRACE_METADATA_H_

#include <string>

#include "grpcpp/server_context.h"

namespace neuronserve {

// The call's traceparent as the access log writes it; empty when it sent none or an invalid
// one, or sent it more than once (which one would be the trace?).
std::string TraceparentOf(const grpc::ServerContextBase& context);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_TRACE_METADATA_H_
