// The --output flag every neuronctl subcommand shares: human-readable text or one JSON object,
// for scripts.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_OUTPUT_FORMAT_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_OUTPUT_FORMAT_H_

#include "absl/status/statusor.h"
#include "client/neuronctl/args.h"

namespace neuronserve::neuronctl {

enum class OutputFormat { kText, kJson };

inline constexpr FlagSpec kOutputFormatFlag = {"output", FlagType::kValue, "text|json", "text",
                                               "print results as text or as JSON"};

// The value of --output; a usage error naming the value for anything but text or json.
absl::StatusOr<OutputFormat> GetOutputFormat(const ParsedArgs& args);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_OUTPUT_FORMAT_H_
