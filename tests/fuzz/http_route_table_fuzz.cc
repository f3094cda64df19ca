// libFuzzer target: the HTTP server's route lookup (HttpRouteTable::Find, which splits the raw
// path and percent-decodes its parameters) over the daemon's own patterns, and
// PercentDecodeSegment alone. Input: the method up to the first ' ', then the raw path.
// Checks, besides the sanitizers: a match's parameters are non-empty and view the decoded
// storage, and a decoded segment is never longer than its escaped form.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "server/http/http_route_table.h"

namespace {

void Require(bool condition) {
  if (!condition) std::abort();
}

// The patterns and methods of server/rest/http_routes.cc and server/rest/v2_rest_routes.cc (the
// handlers are never called).
const neuronserve::HttpRouteTable& Routes() {
  static const neuronserve::HttpRouteTable* const table = [] {
    auto* routes = new neuronserve::HttpRouteTable;
    const std::pair<const char*, const char*> patterns[] = {
        {"GET", "/metrics"},
        {"GET", "/livez"},
        {"GET", "/readyz"},
        {"GET", "/v1/models"},
        {"GET", "/v2/health/live"},
        {"GET", "/v2/health/ready"},
        {"GET", "/v2"},
        {"GET", "/v2/models/{name}"},
        {"GET", "/v2/models/{name}/ready"},
        {"GET", "/v2/models/{name}/stats"},
        {"POST", "/v2/models/{name}/infer"},
        {"GET", "/v2/models/{name}/versions/{version}"},
        {"GET", "/v2/models/{name}/versions/{version}/ready"},
        {"GET", "/v2/models/{name}/versions/{version}/stats"},
        {"POST", "/v2/models/{name}/versions/{version}/infer"},
        {"GET", "/v2/models/stats"},
        {"POST", "/v2/repository/index"},
        {"POST", "/v2/repository/models/{name}/load"},
        {"POST", "/v2/repository/models/{name}/unload"},
    };
    for (const auto& [method, pattern] : patterns) {
      routes->Add({method, pattern, neuronserve::Scope::kInfer, pattern,
                   [](neuronserve::HttpExchange&) {}});
    }
    return routes;
  }();
  return *table;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t space = input.find(' ');
  if (space == std::string_view::npos) return 0;
  const std::string_view method = input.substr(0, space);
  const std::string_view path = input.substr(space + 1);

  std::vector<std::string> storage;
  const neuronserve::HttpRouteTable::Match match = Routes().Find(method, path, storage);
  if (match.route != nullptr) {
    Require(match.allowed.empty());
    for (const auto& [name, value] : match.params) {
      Require(!name.empty() && !value.empty());
      bool inside = false;
      for (const std::string& decoded : storage) {
        inside = inside || (value.data() >= decoded.data() &&
                            value.data() + value.size() <= decoded.data() + decoded.size());
      }
      Require(inside);
    }
  } else {
    Require(match.params.empty());
  }

  std::string decoded;
  if (neuronserve::PercentDecodeSegment(path, decoded)) Require(decoded.size() <= path.size());
  return 0;
}
