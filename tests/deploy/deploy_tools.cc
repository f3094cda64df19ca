#include "tests/deploy/deploy_tools.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tests/support/subprocess.h"
#include "tests/support/build_paths.h"

namespace neuronserve::testing {

namespace fs = std::filesystem;

std::string FindProgram(const std::string& program) {
  const char* path = std::getenv("PATH");
  for (absl::string_view dir :
       absl::StrSplit(path != nullptr ? path : "/usr/bin:/bin", ':', absl::SkipEmpty())) {
    const std::string candidate = absl::StrCat(dir, "/", program);
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
  }
  return "";
}

const std::map<std::string, std::string>& DaemonFlagDefaults() {
  static const std::map<std::string, std::string>* flags = [] {
    auto* result = new std::map<std::string, std::string>();
    // Each flag is printed as "    --name (help text); default: value;" at the start of a
    // line, wrapped over more lines (indented further) where it is long.
    const ProcessResult help = RunProcess({NEURON_SERVE_PATH, "--helpfull"});
    const std::string text = help.out + help.err;
    static const std::string kEntry = "\n    --";
    static const std::string kDefault = "); default: ";
    for (size_t at = text.find(kEntry); at != std::string::npos;) {
      const size_t next = text.find(kEntry, at + 1);
      // The entry with its line breaks and indentation folded into single spaces.
      std::string entry;
      for (char c : text.substr(at + kEntry.size(), next - at - kEntry.size())) {
        const bool space = c == ' ' || c == '\n';
        if (space && (entry.empty() || entry.back() == ' ')) continue;
        entry += space ? ' ' : c;
      }
      at = next;
      const size_t name_end = entry.find(" (");
      const size_t value_start = entry.rfind(kDefault);
      if (name_end == std::string::npos || value_start == std::string::npos) continue;
      const size_t value_end = entry.find(';', value_start + kDefault.size());
      std::string value =
          entry.substr(value_start + kDefault.size(), value_end - value_start - kDefault.size());
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = value.substr(1, value.size() - 2);
      }
      (*result)[entry.substr(0, name_end)] = value;
    }
    return result;
  }();
  return *flags;
}

std::string CanonicalFlagName(const std::string& name) {
  std::string canonical = name;
  for (char& c : canonical) {
    if (c == '-') c = '_';
  }
  return canonical;
}

std::string FlagForEnvironmentVariable(const std::string& variable) {
  static constexpr absl::string_view kPrefix = "NEURON_SERVE_";
  if (!absl::StartsWith(variable, kPrefix)) return "";
  std::string flag = variable.substr(kPrefix.size());
  for (char& c : flag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return flag;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::Status WriteFile(const std::string& path, const std::string& contents) {
  std::error_code error;
  fs::create_directories(fs::path(path).parent_path(), error);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::StatusOr<absl::Duration> ParseFlagDuration(const std::string& text) {
  absl::Duration duration;
  if (!absl::ParseDuration(text, &duration)) {
    return absl::InvalidArgumentError(absl::StrCat("'", text, "' is not a duration"));
  }
  return duration;
}

}  // namespace neuronserve::testing
