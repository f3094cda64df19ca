// The --protocol flag of the commands that send inference requests (infer, bench): the native
// API (neuronserve.v1 Infer / InferStream) or the Open Inference Protocol (KServe v2:
// inference.GRPCInferenceService ModelInfer / ModelStreamInfer), so that both front ends of the
// daemon are measured and exercised with the same tool.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_PROTOCOL_FLAG_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_PROTOCOL_FLAG_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "client/lib/infer_types.h"
#include "client/neuronctl/args.h"

namespace neuronserve::neuronctl {

inline constexpr FlagSpec kProtocolFlag = {
    "protocol", FlagType::kValue, "native|v2", "native",
    "the API requests go to: native (Infer, InferStream) or v2, the Open Inference Protocol "
    "(ModelInfer, ModelStreamInfer)"};

// The protocol the flag names; a usage error naming the value for anything else.
absl::StatusOr<client::Protocol> GetProtocol(const ParsedArgs& args);

// "native" or "v2", as the flag spells them.
std::string_view ProtocolName(client::Protocol protocol);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_PROTOCOL_FLAG_H_
