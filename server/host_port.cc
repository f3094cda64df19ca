#include "server/host_port.h"

#include "absl/strings/str_cat.h"

namespace neuronserve {

std::string WithPort(const std::string& address, int port) {
  const size_t colon = address.rfind(':');
  const std::string host = colon == std::string::npos ? address : address.substr(0, colon);
  return absl::StrCat(host, ":", port);
}

}  // namespace neuronserve
