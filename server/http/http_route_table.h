// HttpRouteTable: what the daemon's HTTP server answers, by method and path pattern, and the
// bearer-token scope each route needs (server/security/rpc_scope.h: the same scopes as gRPC).
//
// A pattern is a path whose segments are literals or parameters in braces:
//   "/metrics", "/v2/models/{name}/versions/{version}/infer".
// A parameter matches one non-empty segment (the server percent-decodes it, so a model name
// with a '/' written %2F still matches one segment). When two patterns match, the one with the
// literal at the first segment where they differ wins ("/v2/models/{name}/ready" and
// "/v2/models/{name}" never clash: segment counts differ). A route registered for GET also
// answers HEAD (the server drops the body).
//
// Lookup results: the route; or no route for the path (404); or routes for the path but not
// for the method (405, with the methods that are there for the Allow header).
//
// Thread safety: build it on one thread, then hand it to the server, which only reads it
// (from any of its threads). Ownership: holds the handlers; what they capture must outlive the
// server.
#ifndef NEURON_SERVE_SERVER_HTTP_HTTP_ROUTE_TABLE_H_
#define NEURON_SERVE_SERVER_HTTP_HTTP_ROUTE_TABLE_H_

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/http/http_exchange.h"
#include "server/security/rpc_scope.h"

namespace neuronserve {

class HttpRouteTable {
 public:
  // Answers the exchange (now or later; see http_exchange.h).
  using Handler = std::function<void(HttpExchange& exchange)>;

  struct Route {
    std::string method;   // "GET", "POST", ...
    std::string pattern;  // "/v2/models/{name}/infer"
    Scope scope = Scope::kInfer;
    // Short name for logs and token refusals ("ModelInfer", "metrics").
    std::string name;
    Handler handler;
  };

  // Adds a route. A second route with the same method and pattern replaces the first.
  void Add(Route route);

  struct Match {
    const Route* route = nullptr;  // null: see allowed
    // The parameters' values in the pattern's order, as views into the path given to Find.
    std::vector<std::pair<std::string_view, std::string_view>> params;
    // When route is null: empty for 404, else the methods the path has (405), e.g. "GET, HEAD".
    std::string allowed;
  };
  // Finds the route for `method` and `raw_path` (as sent: still percent-encoded, no query).
  // The path is split on '/' before decoding, so an encoded '/' (%2F) stays inside its segment;
  // each parameter's value is then percent-decoded into `decoded_storage`, which the returned
  // views point into (reserve is done here: the views stay valid while it is untouched). A
  // malformed escape in a segment makes the path match nothing (404).
  Match Find(std::string_view method, std::string_view raw_path,
             std::vector<std::string>& decoded_storage) const;

  const std::vector<Route>& routes() const { return routes_; }

 private:
  std::vector<Route> routes_;
};

// Percent-decodes one path segment ("a%2Fb" -> "a/b"); false when an escape is malformed.
bool PercentDecodeSegment(std::string_view segment, std::string& out);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_HTTP_HTTP_ROUTE_TABLE_H_
