// Between the plain inference types (infer_types.h) and the v1 messages: one place that knows
// the tensor forms (raw_data, and the typed fields of each dtype), so unary Infer and
// InferSession encode and decode alike.
#ifndef NEURON_SERVE_CLIENT_LIB_INFER_CODEC_H_
#define NEURON_SERVE_CLIENT_LIB_INFER_CODEC_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/lib/infer_types.h"
#include "neuronserve/v1/neuron_serving.pb.h"

namespace neuronserve::client {

// The request as given; nothing is checked here, so that every mistake gets the server's own
// error (it knows the model's tensors, the client does not). The request and response form
// follow options.raw (TENSOR_FORM_RAW, else TENSOR_FORM_TYPED). options.timeout is not part of
// the message.
v1::InferRequest BuildInferRequest(const std::string& model, const std::vector<NamedTensor>& inputs,
                                   const InferOptions& options);

// Outputs decoded to their element bytes (and float numbers for float32, float16 and bfloat16)
// whichever field carries them. INTERNAL when an output's values do not fit its shape times its
// dtype's size, sit in a field that cannot carry its dtype (or in more than one field), or are
// out of its dtype's range: the response is malformed, and guessing would hand the caller wrong
// numbers.
absl::StatusOr<InferResult> DecodeInferResponse(const v1::InferResponse& response);

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_INFER_CODEC_H_
