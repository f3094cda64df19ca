// The --form flag of the commands that send inference requests (infer, bench): tensors as
// raw_data bytes, which the server writes to the device without a per-element copy, or in the
// typed field of each tensor's dtype (float_data for float32, int64_data for int64, ...; the
// 16-bit floats and fp8 stay raw_data). "float" is the older name of "typed", from when every
// tensor was float32.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_TENSOR_FORM_FLAG_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_TENSOR_FORM_FLAG_H_

#include "absl/status/statusor.h"
#include "client/neuronctl/args.h"

namespace neuronserve::neuronctl {

inline constexpr FlagSpec kTensorFormFlag = {
    "form", FlagType::kValue, "raw|typed", "raw",
    "tensor form of requests and responses: raw_data bytes, or each dtype's typed field "
    "(float_data, int32_data, int64_data, ...; 'float' is an older name of typed)"};

// True for raw (client::InferOptions.raw), false for typed (or float); a usage error naming the
// value for anything else.
absl::StatusOr<bool> GetRawTensorForm(const ParsedArgs& args);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_TENSOR_FORM_FLAG_H_
