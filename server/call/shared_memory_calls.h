// The shared-memory registry calls every front end serves (Triton's system shared memory
// extension on v2 gRPC and REST, and the native API's), once: register and unregister with
// their audit line (by region name, never the key), and the status lookup. A daemon without a
// registry (InferContext::shared_memory null) answers as one with client shared memory off.
//
// Thread safety: as the registry's (any thread). Ownership: borrows the context.
#ifndef NEURON_SERVE_SERVER_CALL_SHARED_MEMORY_CALLS_H_
#define NEURON_SERVE_SERVER_CALL_SHARED_MEMORY_CALLS_H_

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/call/infer_context.h"
#include "server/shared_memory/shared_memory_registry.h"

namespace neuronserve {

// Writes one audit line: the call's status and the region it named ("*" for all).
using RegionAudit = std::function<void(const absl::Status& status, std::string_view region)>;

absl::Status RegisterSharedMemoryRegion(const InferContext& context, const RegionAudit& audit,
                                        std::string_view name, std::string_view key,
                                        uint64_t offset, uint64_t byte_size);

// Never fails and never waits (the registry's Unregister); empty `name`: every region.
void UnregisterSharedMemoryRegions(const InferContext& context, const RegionAudit& audit,
                                   std::string_view name);

// Every region (empty `name`) or the one named: NOT_FOUND for an unknown name.
absl::StatusOr<std::vector<SharedMemoryRegionStatus>> SharedMemoryRegions(
    const InferContext& context, std::string_view name);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_CALL_SHARED_MEMORY_CALLS_H_
