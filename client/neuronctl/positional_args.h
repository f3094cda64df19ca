// Checks a subcommand's positional arguments (the words that are not flags) against what its
// usage line promises, with usage errors that say what is missing or unexpected.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_POSITIONAL_ARGS_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_POSITIONAL_ARGS_H_

#include <initializer_list>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "client/neuronctl/args.h"

namespace neuronserve::neuronctl {

// OK when there are at least `required.size()` positional arguments and at most that plus
// `optional.size()`. The names are the usage line's placeholders ("NAME", "FILE").
absl::Status ExpectPositional(const ParsedArgs& args,
                              std::initializer_list<absl::string_view> required,
                              std::initializer_list<absl::string_view> optional = {});

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_POSITIONAL_ARGS_H_
