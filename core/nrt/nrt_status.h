// NRT_STATUS values as errors: every status has a name and a canonical error code, and a failed
// runtime call becomes an absl::Status that names the operation and the status (name and number).
//
// The canonical codes are absl::StatusCode values, which are numerically the gRPC codes; server/
// turns them into grpc::Status without a second table. The number travels as a payload so a
// caller can still tell, say, NRT_HW_ERROR from NRT_EXEC_NC_BUSY (both UNAVAILABLE).
//
// Thread safety: free functions on values, over constant tables; callable from any thread (the
// core workers map execution errors while the loader maps load errors). Ownership: the returned
// statuses and strings are the caller's; the list AllKnownNrtStatuses returns is a static that
// lives as long as the process.
#ifndef NEURON_SERVE_CORE_NRT_NRT_STATUS_H_
#define NEURON_SERVE_CORE_NRT_NRT_STATUS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "base/nrt_abi.h"
#include "base/nrt_status_names.h"  // NrtStatusName, NrtStatusFromName

namespace neuronserve {

// The payload key under which NrtError stores the decimal NRT_STATUS number.
inline constexpr absl::string_view kNrtStatusPayloadUrl = "neuronserve.dev/nrt-status";

// "NRT_INVALID (2)", or "unknown NRT_STATUS (4711)".
std::string NrtStatusToString(NRT_STATUS status);

// The error code a caller (and, through server/, a gRPC client) sees for the status.
absl::StatusCode NrtStatusCode(NRT_STATUS status);

// OkStatus() for NRT_SUCCESS; otherwise "<operation>: NRT_INVALID (2)[: <detail>]" with the code
// from NrtStatusCode and the number attached under kNrtStatusPayloadUrl.
absl::Status NrtError(absl::string_view operation, NRT_STATUS status,
                      absl::string_view detail = {});

// The NRT_STATUS an error produced by NrtError carries; nullopt for any other status.
std::optional<NRT_STATUS> NrtStatusOf(const absl::Status& status);

// "<context>: <error's message>" with the error's code and payloads, so that the NRT status
// stays readable (NrtStatusOf) through the layers that say where the call failed: what a core's
// health depends on (ClassifyExecutionFailure) must not be lost to a message.
absl::Status WithContext(const absl::Status& error, absl::string_view context);

// Every status value the runtime headers define, in header order (for tests and docs).
const std::vector<NRT_STATUS>& AllKnownNrtStatuses();

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_NRT_NRT_STATUS_H_
