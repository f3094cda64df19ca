#include "server/grpc/trace_metadata.h"

#include <iterator>
#include <string_view>

#include "server/logs/traceparent.h"

namespace neuronserve {

std::string TraceparentOf(const grpc::ServerContextBase& context) {
  const auto [first, last] = context.client_metadata().equal_range("traceparent");
  if (first == last || std::next(first) != last) return {};
  const std::string_view value(first->second.data(), first->second.size());
  return std::string(LoggableTraceparent(value));
}

}  // namespace neuronserve
