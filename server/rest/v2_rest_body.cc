#include "server/rest/v2_rest_body.h"

#include <cstdint>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace neuronserve {

absl::StatusOr<RestBodyParts> SplitRestBody(std::string_view body, std::string_view header_length,
                                            std::string_view model) {
  if (header_length.empty()) return RestBodyParts{body, {}};
  uint64_t length = 0;
  if (!absl::SimpleAtoi(absl::string_view(header_length.data(), header_length.size()), &length)) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", std::string(model), "': header ", std::string(kRestHeaderLength),
                     " is '", std::string(header_length), "', not a number of bytes"));
  }
  if (length > body.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", std::string(model), "': header ", std::string(kRestHeaderLength),
                     " says the JSON is ", length, " bytes, but the body has ", body.size()));
  }
  return RestBodyParts{body.substr(0, length), body.substr(length)};
}

}  // namespace neuronserve
