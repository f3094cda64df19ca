// Marks a Status as a usage error (a bad command line), so the dispatcher exits with 2 instead
// of 1. A payload is used rather than a status code because a runtime failure can carry any
// code, e.g. INVALID_ARGUMENT from the server for a malformed request.
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
};

absl::Status UsageError(absl::string_view message);
// The same status, marked as a usage error; OK stays OK.
absl::Status AsUsageError(absl::Status status);
bool IsUsageError(const absl::Status& status);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_USAGE_ERROR_H_
