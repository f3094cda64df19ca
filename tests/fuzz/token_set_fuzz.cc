// libFuzzer target: a bearer token file's text (TokenSet::Parse). Checks, besides the
// sanitizers: a refusal is INVALID_ARGUMENT starting "PATH:LINE: ", and a parsed set has a label
// per entry and matches no empty token.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "server/security/token_set.h"

namespace {

void Require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string path = "/fuzz/tokens";
  const absl::StatusOr<neuronserve::TokenSet> tokens = neuronserve::TokenSet::Parse(text, path);
  if (!tokens.ok()) {
    Require(tokens.status().code() == absl::StatusCode::kInvalidArgument);
    Require(tokens.status().message().substr(0, path.size() + 1) == path + ":");
    return 0;
  }
  Require(tokens->Labels().size() == tokens->size());
  Require(tokens->Match("") == nullptr);
  // Each line's last field, as a token: Match must not misbehave on any of them.
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos) line.remove_prefix(colon + 1);
    tokens->Match(line);
    start = end + 1;
  }
  return 0;
}
