// neuronctl's exit codes, and how a subcommand's error chooses one: a payload on the Status
// rather than its code, because a runtime failure can carry any code (e.g. INVALID_ARGUMENT from
// the server for a malformed request) and must still exit 1, not 2.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_USAGE_ERROR_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_USAGE_ERROR_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace neuronserve::neuronctl {

// Process exit codes of neuronctl, documented in `neuronctl --help`.
enum ExitCode : int {
  kExitSuccess = 0,
  kExitRuntimeFailure = 1,  // the command was well formed but failed (I/O, server, ...)
  kExitUsageError = 2,      // the command line was wrong
  kExitNotServing = 3,      // `health`: the server answered, but not SERVING
};

// The exit code an error status asks for: the one it was marked with, else
// kExitRuntimeFailure. kExitSuccess for OK.
ExitCode ExitCodeOf(const absl::Status& status);
// The same status, marked to exit with `code`; OK stays OK.
absl::Status WithExitCode(absl::Status status, ExitCode code);

// INVALID_ARGUMENT marked as a usage error (exit 2).
absl::Status UsageError(absl::string_view message);
// The same status, marked as a usage error; OK stays OK.
absl::Status AsUsageError(absl::Status status);
bool IsUsageError(const absl::Status& status);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_USAGE_ERROR_H_
