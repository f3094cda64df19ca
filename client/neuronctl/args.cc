#include "client/neuronctl/args.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace neuronserve::neuronctl {
namespace {

const FlagSpec* FindSpec(std::span<const FlagSpec> specs, absl::string_view name) {
  for (const FlagSpec& spec : specs) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

absl::StatusOr<std::string> ParseBooleanValue(absl::string_view name, absl::string_view value) {
  if (value == "true" || value == "1") return std::string("true");
  if (value == "false" || value == "0") return std::string("false");
  return absl::InvalidArgumentError(absl::StrCat("flag --", name, " is a boolean: give --", name,
                                                 " or --", name, "=true|false, not '", value, "'"));
}

std::string Placeholder(const FlagSpec& spec) {
  if (spec.type == FlagType::kBoolean) return absl::StrCat("--", spec.name);
  return absl::StrCat("--", spec.name, "=", spec.value_name.empty() ? "VALUE" : spec.value_name);
}

}  // namespace

bool ParsedArgs::Has(absl::string_view name) const { return values_.find(name) != values_.end(); }

std::optional<std::string> ParsedArgs::Get(absl::string_view name) const {
  if (auto it = values_.find(name); it != values_.end() && !it->second.empty()) {
    return it->second.back();
  }
  if (auto it = defaults_.find(name); it != defaults_.end()) return it->second;
  return std::nullopt;
}

bool ParsedArgs::GetBool(absl::string_view name) const { return Get(name) == "true"; }

std::vector<std::string> ParsedArgs::GetAll(absl::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

absl::StatusOr<ParsedArgs> ParseArgs(std::span<const FlagSpec> specs,
                                     std::span<const std::string> args) {
  ParsedArgs parsed;
  for (const FlagSpec& spec : specs) {
    if (!spec.default_value.empty()) {
      parsed.defaults_[std::string(spec.name)] = std::string(spec.default_value);
    }
  }

  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") {
      parsed.positional_.insert(parsed.positional_.end(), args.begin() + i + 1, args.end());
      break;
    }
    if (word == "-h" || word == "--help") {
      parsed.help_requested_ = true;
      continue;
    }
    if (!absl::StartsWith(word, "-") || word == "-") {
      parsed.positional_.push_back(word);
      continue;
    }
    if (!absl::StartsWith(word, "--")) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag '", word, "' (flags are spelled --name)"));
    }

    const absl::string_view body = absl::string_view(word).substr(2);
    const size_t equals = body.find('=');
    const absl::string_view name = body.substr(0, equals);
    const FlagSpec* spec = FindSpec(specs, name);
    if (spec == nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));

    std::string value;
    if (spec->type == FlagType::kBoolean) {
      absl::StatusOr<std::string> boolean = equals == absl::string_view::npos
                                                ? std::string("true")
                                                : ParseBooleanValue(name, body.substr(equals + 1));
      if (!boolean.ok()) return boolean.status();
      value = *std::move(boolean);
    } else if (equals != absl::string_view::npos) {
      value = std::string(body.substr(equals + 1));
    } else {
      // "--out FILE": the value is the next word, unless that is itself a flag, which almost
      // always means the value was forgotten ("--out --seed 3").
      if (i + 1 == args.size() || absl::StartsWith(args[i + 1], "--")) {
        return absl::InvalidArgumentError(
            absl::StrCat("flag --", name, " needs a value (", Placeholder(*spec), ")"));
      }
      value = args[++i];
    }

    std::vector<std::string>& values = parsed.values_[std::string(name)];
    if (spec->type != FlagType::kRepeated && !values.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("flag --", name, " is given more than once"));
    }
    values.push_back(std::move(value));
  }
  return parsed;
}

std::string FormatFlagHelp(std::span<const FlagSpec> specs) {
  constexpr size_t kHelpColumn = 30;
  std::string text;
  for (const FlagSpec& spec : specs) {
    std::string line = absl::StrCat("  ", Placeholder(spec));
    line.append(line.size() + 2 <= kHelpColumn ? kHelpColumn - line.size() : 2, ' ');
    absl::StrAppend(&line, spec.help);
    if (!spec.default_value.empty()) absl::StrAppend(&line, " (default: ", spec.default_value, ")");
    if (spec.type == FlagType::kRepeated) absl::StrAppend(&line, " (repeatable)");
    absl::StrAppend(&text, line, "\n");
  }
  absl::StrAppend(&text, "  -h, --help", std::string(kHelpColumn - 12, ' '), "show this help\n");
  return text;
}

}  // namespace neuronserve::neuronctl
