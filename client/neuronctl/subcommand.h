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

// Where a subcommand writes. Results go to `out` (what a script parses); progress and notes go
// to `err`, so `--output=json > file` stays clean.
struct CommandIo {
  std::ostream& out;
  std::ostream& err;
  // `err` is a terminal: live progress lines redrawn with '\r' are welcome. When false, a
  // command prints occasional whole lines instead (or nothing), so logs stay readable.
  bool err_is_terminal = false;
};

struct Subcommand {
  absl::string_view name;         // "sim-model"
  absl::string_view summary;      // one line, for `neuronctl --help`
  absl::string_view description;  // a paragraph, for `neuronctl NAME --help`
  std::span<const FlagSpec> flags;
  // Runs with parsed flags (never called for --help). Returns an error for the dispatcher to
  // print, marked with UsageError() when the command line is at fault or WithExitCode() for
  // another documented exit code (usage_error.h).
  absl::Status (*run)(const ParsedArgs& args, const CommandIo& io);
  // The positional arguments the usage line shows ("NAME", "FILE"); "" for none.
  absl::string_view positional = "";
};

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_SUBCOMMAND_H_
