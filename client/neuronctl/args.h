// The command-line parser of neuronctl's subcommands.
//
// Each subcommand declares its flags in a table of FlagSpec; ParseArgs checks a command line
// against it. Accepted forms:
//   --name=value   --name value     a flag with a value (kValue, kRepeated)
//   --name         --name=true|false  a boolean flag (kBoolean); never consumes the next word
//   -h, --help                        asks for the subcommand's help
//   --                                everything after it is positional
// Unknown flags, a missing value and a single-value flag given twice are errors that name the
// flag. absl flags are not used: their one global registry cannot give each subcommand its own
// flags and help.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_ARGS_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_ARGS_H_

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace neuronserve::neuronctl {

enum class FlagType {
  kValue,     // one value; giving it twice is an error
  kBoolean,   // present or absent
  kRepeated,  // any number of values, in command-line order
};

struct FlagSpec {
  absl::string_view name;  // without the leading "--"
  FlagType type = FlagType::kValue;
  absl::string_view value_name;     // placeholder in the help: --seed=N
  absl::string_view default_value;  // applied when the flag is absent; "" means none
  absl::string_view help;           // one line
};

// The flags and positional arguments of one command line.
class ParsedArgs {
 public:
  // True if the flag appeared on the command line (defaults do not count).
  bool Has(absl::string_view name) const;
  // The flag's value, else its default, else nullopt. For a kRepeated flag, the last value.
  std::optional<std::string> Get(absl::string_view name) const;
  // A boolean flag's value (false when absent).
  bool GetBool(absl::string_view name) const;
  // Every value of a flag, in command-line order (empty when absent).
  std::vector<std::string> GetAll(absl::string_view name) const;

  bool help_requested() const { return help_requested_; }
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  friend absl::StatusOr<ParsedArgs> ParseArgs(std::span<const FlagSpec> specs,
                                              std::span<const std::string> args);

  std::map<std::string, std::vector<std::string>, std::less<>> values_;
  std::map<std::string, std::string, std::less<>> defaults_;
  std::vector<std::string> positional_;
  bool help_requested_ = false;
};

// Parses `args` (the words after the subcommand's name). InvalidArgument, with a message that
// names the offending flag, for a command line the specs do not accept.
absl::StatusOr<ParsedArgs> ParseArgs(std::span<const FlagSpec> specs,
                                     std::span<const std::string> args);

// The flag section of a --help text: one line per flag with its placeholder, help and default.
std::string FormatFlagHelp(std::span<const FlagSpec> specs);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_ARGS_H_
