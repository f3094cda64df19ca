#include "client/lib/bearer_token.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "client/lib/file_contents.h"

namespace neuronserve::client {

absl::StatusOr<std::string> LoadBearerToken(const ConnectOptions& options) {
  if (!options.token.empty() && !options.token_file.empty()) {
    return absl::InvalidArgumentError("give a token or a token file, not both");
  }
  std::string token = options.token;
  if (!options.token_file.empty()) {
    absl::StatusOr<std::string> contents = ReadFileContents(options.token_file);
    if (!contents.ok()) return contents.status();
    token = std::string(absl::StripTrailingAsciiWhitespace(*contents));
    if (token.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("token file ", options.token_file, " is empty"));
    }
  }
  for (char c : token) {
    if (c < 0x20 || c > 0x7e) {
      return absl::InvalidArgumentError(
          "the token holds a character that is not printable ASCII, which no HTTP/2 header "
          "value may carry");
    }
  }
  return token;
}

std::string AuthorizationValue(const std::string& token) { return absl::StrCat("Bearer ", token); }

}  // namespace neuronserve::client
