// The body of an Open Inference Protocol REST inference request as Triton's binary tensor
// extension frames it: the JSON part (v2_rest_request.h parses it), then the tensors' raw bytes,
// split where the header Inference-Header-Content-Length says. gRPC-free.
//
// Thread safety: pure functions. Ownership: the parts view the body they were split from.
#ifndef NEURON_SERVE_SERVER_REST_V2_REST_BODY_H_
#define NEURON_SERVE_SERVER_REST_V2_REST_BODY_H_

#include <string_view>

#include "absl/status/statusor.h"

namespace neuronserve {

// The header of Triton's binary tensor extension that says how many bytes of the body are JSON.
inline constexpr std::string_view kRestHeaderLength = "Inference-Header-Content-Length";

// A REST inference body split into its JSON part and the binary tensor data after it.
struct RestBodyParts {
  std::string_view json;
  std::string_view binary;
};

// Splits `body` at `header_length`, the value of kRestHeaderLength as the client sent it (empty
// when it sent none: the whole body is JSON). INVALID_ARGUMENT naming the model when the value is
// not a number of bytes or is more than the body has. The parts view `body`.
absl::StatusOr<RestBodyParts> SplitRestBody(std::string_view body, std::string_view header_length,
                                            std::string_view model);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REST_V2_REST_BODY_H_
