#include "client/neuronctl/dispatch.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "client/neuronctl/usage_error.h"

namespace neuronserve::neuronctl {
namespace {

std::string TopLevelHelp(std::span<const Subcommand* const> subcommands) {
  size_t width = 0;
  for (const Subcommand* command : subcommands) width = std::max(width, command->name.size());
  std::string text =
      "neuronctl: the command-line tool of neuron-serve.\n"
      "\n"
      "Usage: neuronctl COMMAND [FLAGS]\n"
      "       neuronctl COMMAND --help\n"
      "\n"
      "Commands:\n";
  for (const Subcommand* command : subcommands) {
    absl::StrAppend(&text, "  ", command->name, std::string(width + 3 - command->name.size(), ' '),
                    command->summary, "\n");
  }
  absl::StrAppend(&text,
                  "\n"
                  "Exit codes:\n"
                  "  0  success\n"
                  "  1  runtime failure (I/O error, unreachable server, failed request)\n"
                  "  2  usage error (unknown command or flag, bad or missing flag value)\n"
                  "  3  health: the server answered, but the service is not SERVING\n");
  return text;
}

std::string CommandHelp(const Subcommand& command) {
  const std::string positional =
      command.positional.empty() ? "" : absl::StrCat(" ", command.positional);
  return absl::StrCat("Usage: neuronctl ", command.name, positional, " [FLAGS]\n\n",
                      command.description,
                      "\n\nFlags:\n", FormatFlagHelp(command.flags));
}

}  // namespace

int Dispatch(std::span<const Subcommand* const> subcommands, std::span<const std::string> args,
             std::ostream& out, std::ostream& err, bool err_is_terminal) {
  if (args.empty()) {
    err << TopLevelHelp(subcommands);
    return kExitUsageError;
  }
  const std::string& name = args[0];
  if (name == "-h" || name == "--help" || name == "help") {
    out << TopLevelHelp(subcommands);
    return kExitSuccess;
  }
  const auto found = std::find_if(subcommands.begin(), subcommands.end(),
                                  [&](const Subcommand* command) { return command->name == name; });
  if (found == subcommands.end()) {
    err << "neuronctl: unknown command '" << name << "'\n"
        << "Run 'neuronctl --help' for the list of commands.\n";
    return kExitUsageError;
  }
  const Subcommand& command = **found;

  absl::StatusOr<ParsedArgs> parsed = ParseArgs(command.flags, args.subspan(1));
  absl::Status status;
  if (!parsed.ok()) {
    status = AsUsageError(parsed.status());
  } else if (parsed->help_requested()) {
    out << CommandHelp(command);
    return kExitSuccess;
  } else {
    const CommandIo io{out, err, err_is_terminal};
    status = command.run(*parsed, io);
  }
  if (status.ok()) return kExitSuccess;

  const ExitCode code = ExitCodeOf(status);
  // A failed call says how it failed (NOT_FOUND, UNAVAILABLE, ...), as scripts and searches of
  // the API documentation want; a usage error or a health answer needs no code.
  err << "neuronctl " << command.name << ": "
      << (code == kExitRuntimeFailure ? absl::StrCat(absl::StatusCodeToString(status.code()), ": ")
                                      : "")
      << status.message() << "\n";
  if (code == kExitUsageError) {
    err << "Run 'neuronctl " << command.name << " --help' for usage.\n";
  }
  return code;
}

}  // namespace neuronserve::neuronctl
