#include "server/security/token_set.h"

#include <openssl/crypto.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "util/posix_file.h"
#include "util/sha256.h"

namespace neuronserve {
namespace {

// Printable ASCII, no space: what may stand in a token or a label.
bool IsTokenText(std::string_view text) {
  for (const char c : text) {
    if (c <= ' ' || c > '~') return false;
  }
  return true;
}

std::string_view Trim(std::string_view text) {
  const absl::string_view trimmed =
      absl::StripAsciiWhitespace(absl::string_view(text.data(), text.size()));
  return std::string_view(trimmed.data(), trimmed.size());
}

std::string_view Basename(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

absl::StatusOr<TokenSet> TokenSet::Parse(std::string_view text, const std::string& path) {
  TokenSet set;
  size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const size_t end = text.find('\n');
    std::string_view line = Trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.empty() || line.front() == '#') continue;

    const auto error = [&](std::string_view what) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", line_number, ": ", std::string(what)));
    };
    std::string label;
    std::string_view token = line;
    if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
      const std::string_view given = Trim(line.substr(0, colon));
      token = Trim(line.substr(colon + 1));
      if (given.empty()) return error("the label before ':' is empty");
      if (!IsTokenText(given)) {
        return error("the label holds whitespace or a character that is not printable ASCII");
      }
      label = std::string(given);
    } else {
      label = absl::StrCat(std::string(Basename(path)), ":", line_number);
    }
    if (token.empty()) return error("the token is empty");
    if (!IsTokenText(token)) {
      return error("the token holds whitespace or a character that is not printable ASCII");
    }
    if (token.size() < kMinTokenLength) {
      return error(absl::StrCat("the token is shorter than ", kMinTokenLength, " characters"));
    }
    set.entries_.push_back(
        Entry{Sha256Hex(absl::string_view(token.data(), token.size())), std::move(label)});
  }
  return set;
}

absl::StatusOr<TokenSet> TokenSet::ReadFile(const std::string& path) {
  absl::StatusOr<std::string> text = neuronserve::ReadFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<TokenSet> set = Parse(*text, path);
  // The file's bytes are secrets: do not leave them in freed memory.
  OPENSSL_cleanse(text->data(), text->size());
  return set;
}

const std::string* TokenSet::Match(std::string_view presented) const {
  const std::string digest = Sha256Hex(absl::string_view(presented.data(), presented.size()));
  const std::string* found = nullptr;
  for (const Entry& entry : entries_) {
    // Every entry is compared, match or not; the digests all have the same length.
    const bool equal = CRYPTO_memcmp(entry.digest.data(), digest.data(), digest.size()) == 0;
    if (equal && found == nullptr) found = &entry.label;
  }
  return found;
}

std::vector<std::string> TokenSet::Labels() const {
  std::vector<std::string> labels;
  labels.reserve(entries_.size());
  for (const Entry& entry : entries_) labels.push_back(entry.label);
  return labels;
}

}  // namespace neuronserve
