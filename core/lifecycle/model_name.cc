#include "core/lifecycle/model_name.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "core/serving/model/loaded_model.h"

namespace neuronserve {
namespace {

// A rejected name is quoted in the message; a huge one is cut so the message stays readable.
constexpr size_t kMaxQuotedLength = 160;

bool IsAllowedChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

// Printable ASCII as is; quotes, backslashes, control characters and every byte >= 0x80 escaped
// (\n, \t, \r, \xNN), so the message stays on one line and shows exactly the bytes received.
std::string Escape(absl::string_view text, char quote) {
  std::string escaped;
  for (char c : text) {
    unsigned char byte = static_cast<unsigned char>(c);
    if (c == quote || c == '\\') {
      absl::StrAppend(&escaped, "\\", std::string(1, c));
    } else if (c == '\n') {
      escaped += "\\n";
    } else if (c == '\t') {
      escaped += "\\t";
    } else if (c == '\r') {
      escaped += "\\r";
    } else if (byte < 0x20 || byte >= 0x7f) {
      absl::StrAppend(&escaped, "\\x", absl::Hex(byte, absl::kZeroPad2));
    } else {
      escaped += c;
    }
  }
  return escaped;
}

std::string Quote(absl::string_view text) {
  bool cut = text.size() > kMaxQuotedLength;
  if (cut) text = text.substr(0, kMaxQuotedLength);
  return absl::StrCat("\"", Escape(text, '"'), cut ? "...\"" : "\"");
}

std::string QuoteChar(char c) {
  return absl::StrCat("'", Escape(absl::string_view(&c, 1), '\''), "'");
}

// `what` is "model name" or "model version".
absl::Status Validate(absl::string_view what, absl::string_view text, size_t max_length,
                      bool empty_allowed) {
  std::string rule =
      absl::StrCat("a ", what, " is ", empty_allowed ? "empty or " : "", "1 to ", max_length,
                   " characters from A-Z a-z 0-9 '_' '.' '-', not starting with "
                   "'.' or '-'");
  auto invalid = [&](absl::string_view problem) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid ", what, " ", Quote(text), ": ", problem, "; ", rule));
  };
  if (text.empty()) return invalid("it is empty");
  if (text.size() > max_length) {
    return invalid(absl::StrCat("it is ", text.size(), " characters long"));
  }
  for (size_t i = 0; i < text.size(); ++i) {
    if (!IsAllowedChar(text[i])) {
      return invalid(
          absl::StrCat("character ", QuoteChar(text[i]), " at position ", i, " is not allowed"));
    }
  }
  if (text[0] == '.' || text[0] == '-') {
    return invalid(absl::StrCat("it starts with '", text.substr(0, 1), "'"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateModelName(absl::string_view name) {
  return Validate("model name", name, kMaxModelNameLength, /*empty_allowed=*/false);
}

absl::Status ValidateModelVersion(absl::string_view version) {
  if (version.empty()) return absl::OkStatus();
  return Validate("model version", version, kMaxModelVersionLength, /*empty_allowed=*/true);
}

std::string QuotedModel(const ModelIdentity& identity) {
  if (identity.version.empty()) return absl::StrCat("'", identity.name, "'");
  return absl::StrCat("'", identity.name, "' version '", identity.version, "'");
}

}  // namespace neuronserve
