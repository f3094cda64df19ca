// One native output message (v1::OutputTensor) decoded and checked: the element bytes, whichever
// field carries them, and float numbers for float32, float16 and bfloat16. Both protocols'
// response decoders (infer_codec.h) end here; the v2 one first moves each output into the
// native message.
//
// Internal to the client library (not installed). Thread safety: a pure function.
#ifndef NEURON_SERVE_CLIENT_LIB_OUTPUT_DECODER_H_
#define NEURON_SERVE_CLIENT_LIB_OUTPUT_DECODER_H_

#include "absl/status/statusor.h"
#include "client/lib/infer_types.h"
#include "neuronserve/v1/neuron_serving.pb.h"

namespace neuronserve::client {

// INTERNAL, naming the output, when its values do not fit its shape times its dtype's size, sit
// in a field that cannot carry its dtype (or in more than one field), or are out of its dtype's
// range: the response is malformed, and guessing would hand the caller wrong numbers. A dtype
// this client does not know (a newer server's, or "unknown") is decoded as raw bytes only. An
// output with shared_memory set carries no values: it is decoded to its shape, dtype and range.
absl::StatusOr<OutputTensor> DecodeOutput(const v1::OutputTensor& output);

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_OUTPUT_DECODER_H_
