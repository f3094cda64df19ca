// neuronctl's top level: picks the subcommand named by the first word, parses its flags, runs
// it and turns the outcome into an exit code (usage_error.h). main() is a thin wrapper, so tests
// can run the whole tool in-process.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_DISPATCH_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_DISPATCH_H_

#include <ostream>
#include <span>
#include <string>

#include "client/neuronctl/subcommand.h"

namespace neuronserve::neuronctl {

// `args` excludes the program name. Help goes to `out`; errors to `err`, as
// "neuronctl NAME: message", followed for usage errors by a pointer to --help. `err_is_terminal`
// lets commands draw live progress lines on `err`.
int Dispatch(std::span<const Subcommand* const> subcommands, std::span<const std::string> args,
             std::ostream& out, std::ostream& err, bool err_is_terminal = false);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_DISPATCH_H_
