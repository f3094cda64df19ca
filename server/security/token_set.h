// TokenSet: the bearer tokens of one token file (--infer-token-file or --admin-token-file), kept
// only as SHA-256 digests beside their labels.
//
// File format: one token per line, optionally `label:token` (split at the first ':', so a token
// that holds a ':' needs a label in front of it); '#' starts a comment line; blank lines are
// ignored; whitespace around the label and the token is trimmed. A token must be at least
// kMinTokenLength characters of printable ASCII without whitespace (what gRPC carries in a header
// value; a short token is guessable). A label is printable ASCII without whitespace; a token
// without one is labelled "<file basename>:<line>". The label names the caller in the access and
// audit logs, so it must never be the token.
//
// Errors name the file and the line and say what is wrong, never what the line holds: a line
// with a typo is most likely a real token.
//
// Match hashes the presented token and compares its digest with every entry's in constant time,
// without stopping at the first match, so how long it takes does not tell how much of a guess
// was right, nor which entry matched.
//
// Thread safety: immutable after Parse; any thread may call Match. Ownership: a value type.
#ifndef NEURON_SERVE_SERVER_SECURITY_TOKEN_SET_H_
#define NEURON_SERVE_SERVER_SECURITY_TOKEN_SET_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace neuronserve {

class TokenSet {
 public:
  static constexpr size_t kMinTokenLength = 16;

  // Parses the text of the file `path` (used in errors and default labels only).
  // INVALID_ARGUMENT "PATH:LINE: <what is wrong>" on a bad line.
  static absl::StatusOr<TokenSet> Parse(std::string_view text, const std::string& path);
  // Reads and parses `path`; reading errors name the path.
  static absl::StatusOr<TokenSet> ReadFile(const std::string& path);

  TokenSet() = default;

  // The label of the entry whose token is `presented`, or nullptr. Constant time in the
  // presented token's content (its length aside) and in which entry matches.
  const std::string* Match(std::string_view presented) const;

  size_t size() const { return entries_.size(); }
  // The labels in file order (for tests and the load log line).
  std::vector<std::string> Labels() const;

 private:
  struct Entry {
    std::string digest;  // SHA-256 of the token, 64 lower-case hex digits
    std::string label;
  };
  std::vector<Entry> entries_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_SECURITY_TOKEN_SET_H_
