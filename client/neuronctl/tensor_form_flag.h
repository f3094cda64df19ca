// The --form flag of the commands that send inference requests (infer, bench): tensors as
// raw_data bytes, which the server writes to the device without a per-element copy, or as
// packed float_data.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_TENSOR_FORM_FLAG_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_TENSOR_FORM_FLAG_H_

#include "absl/status/statusor.h"
#include "client/neuronctl/args.h"

namespace neuronserve::neuronctl {

inline constexpr FlagSpec kTensorFormFlag = {
    "form", FlagType::kValue, "raw|float", "raw",
    "tensor form of requests and responses: raw_data bytes or packed float_data"};

// True for raw (client::InferOptions.raw), false for float; a usage error naming the value
// for anything else.
absl::StatusOr<bool> GetRawTensorForm(const ParsedArgs& args);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_TENSOR_FORM_FLAG_H_
