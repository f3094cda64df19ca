#include "client/neuronctl/protocol_flag.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "client/neuronctl/usage_error.h"

namespace neuronserve::neuronctl {

absl::StatusOr<client::Protocol> GetProtocol(const ParsedArgs& args) {
  const std::string protocol = args.Get(kProtocolFlag.name).value_or("native");
  if (protocol == "native") return client::Protocol::kNative;
  if (protocol == "v2") return client::Protocol::kV2;
  return UsageError(absl::StrCat("--protocol must be native or v2, got '", protocol, "'"));
}

std::string_view ProtocolName(client::Protocol protocol) {
  return protocol == client::Protocol::kV2 ? "v2" : "native";
}

}  // namespace neuronserve::neuronctl
