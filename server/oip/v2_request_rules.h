// The rules of an Open Inference Protocol inference request that do not depend on how it came:
// the gRPC front end (server/v2/v2_infer_call.h) and the REST one
// (server/rest/v2_rest_infer_call.h, server/rest/v2_rest_request.h) both apply these, so a
// request refused over one is refused over the other with the same message. What each carrier
// adds of its own (a protobuf oneof, a JSON scalar, REST's binary tensors) stays with it.
//
// Thread safety: pure functions. Ownership: the returned TensorSpec pointer is into the vector
// given, which must outlive it.
#ifndef NEURON_SERVE_SERVER_OIP_V2_REQUEST_RULES_H_
#define NEURON_SERVE_SERVER_OIP_V2_REQUEST_RULES_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/nrt/nrt_handles.h"

namespace neuronserve {

// Request parameter "timeout" (the most time the request may wait in the model's queue, in
// microseconds) given as anything but an integer; the front ends prefix "model 'NAME': ".
inline constexpr char kV2TimeoutMustBeAnInteger[] =
    "request parameter 'timeout' must be an int64 number of microseconds";

// An unsigned "timeout" as the int64 the rules take: past int64's range it saturates (a wait
// that long is no limit anyway).
int64_t V2TimeoutFromUnsigned(uint64_t micros);

// The queue-time limit a "timeout" of `micros` asks for: zero for none (0), or
// INVALID_ARGUMENT naming `model` when it is negative.
absl::StatusOr<absl::Duration> V2QueueTimeout(std::string_view model, int64_t micros);

// The model's tensor named `name`, or null (an unknown name is left to request validation,
// which reports it with the list of the model's tensors).
const TensorSpec* V2FindTensor(const std::vector<TensorSpec>& tensors, std::string_view name);

// A given shape of `rank` dimensions against the model's input `spec`: [] is a scalar's shape
// in the protocol, not "no shape" as validation reads an empty one, so it is INVALID_ARGUMENT
// ("WHERE: expected shape [..], got []") for a tensor that has dimensions. `where` names the
// model and the input.
absl::Status V2CheckEmptyShape(std::string_view where, const TensorSpec& spec, size_t rank);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_OIP_V2_REQUEST_RULES_H_
