// What a neuronctl subcommand provides to the dispatcher (dispatch.h): its name and help, its
// flag table, and the function that runs it.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_SUBCOMMAND_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_SUBCOMMAND_H_

#include <ostream>
#include <span>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "client/neuronctl/args.h"

namespace neuronserve::neuronctl {

struct Subcommand {
  absl::string_view name;         // "sim-model"
  absl::string_view summary;      // one line, for `neuronctl --help`
  absl::string_view description;  // a paragraph, for `neuronctl NAME --help`
  std::span<const FlagSpec> flags;
  // Runs with parsed flags (never called for --help). Writes results to `out`; returns an error
  // for the dispatcher to print, marked with UsageError() when the command line is at fault.
  absl::Status (*run)(const ParsedArgs& args, std::ostream& out);
};

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_SUBCOMMAND_H_
