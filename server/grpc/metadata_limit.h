// The request metadata limit (--max-metadata-bytes): what every gRPC handler checks (through
// CallGuard) and what the daemon sets as gRPC's own limit on each server it builds. Both halves
// live here, below the front ends and the daemon's wiring, because they are one rule: gRPC's
// limit is set above ours so that ours, with its message naming the flag, is the one a client
// meets.
//
// Thread safety: pure functions. Ownership: nothing is kept.
#ifndef NEURON_SERVE_SERVER_GRPC_METADATA_LIMIT_H_
#define NEURON_SERVE_SERVER_GRPC_METADATA_LIMIT_H_

#include <cstdint>

#include "grpcpp/support/server_callback.h"
#include "grpcpp/support/status.h"

namespace neuronserve {

// gRPC's GRPC_ARG_MAX_METADATA_SIZE for a --max-metadata-bytes of `limit`. gRPC 1.51 answers a
// request past its limit with RESOURCE_EXHAUSTED "received initial metadata size exceeds limit",
// which does not name the daemon's flag; so its limit is set higher (twice ours, at least
// 8 KiB more, as it also counts the HTTP/2 pseudo-headers and 32 bytes per entry) and the
// handlers check --max-metadata-bytes themselves (CheckMetadataSize, in CallGuard), with a
// message that says which flag to raise. gRPC's limit still cuts off grossly oversized headers
// before a handler.
int MetadataLimitFor(uint32_t limit);

// OK, or RESOURCE_EXHAUSTED naming --max-metadata-bytes and its value when the call's request
// metadata (the sum of the keys' and values' sizes) is larger than `limit`.
grpc::Status CheckMetadataSize(const grpc::CallbackServerContext& context, uint32_t limit);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_GRPC_METADATA_LIMIT_H_
