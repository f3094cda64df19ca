// HttpServer::Impl::Screen: the answers the server gives itself before a handler runs (404, 405,
// 401, 403, 413 from Content-Length, 503 while stopping), and the caller's identity from its token.
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/http/http_server_internal.h"
#include "server/http/http_status.h"
#include "server/security/token_authority.h"

namespace neuronserve {

std::optional<HttpResponse> HttpServer::Impl::Screen(Exchange& exchange,
                                                     MHD_Connection* connection) {
  if (stopping_.load()) return mhd::ShuttingDown();
  exchange.match_ = routes_.Find(exchange.method_, exchange.raw_path_, exchange.decoded_);
  const HttpRouteTable::Match& match = exchange.match_;
  if (match.route == nullptr && match.allowed.empty()) {
    return HttpErrorResponse(404, absl::StrCat("no such path: ", exchange.raw_path_));
  }
  if (match.route == nullptr) {
    HttpResponse response =
        HttpErrorResponse(405, absl::StrCat(exchange.method_, " is not allowed on ",
                                            exchange.raw_path_, "; allowed: ", match.allowed));
    response.headers.push_back({"Allow", match.allowed});
    return response;
  }
  const HttpRouteTable::Route& route = *match.route;
  if (options_.tokens != nullptr && route.scope != Scope::kNone) {
    const AuthDecision decision =
        options_.tokens->Authorize(exchange.header("Authorization"), route.scope, route.name);
    if (decision.code == absl::StatusCode::kUnauthenticated) {
      HttpResponse response = HttpErrorResponse(401, decision.message);
      response.headers.push_back({"WWW-Authenticate", "Bearer"});
      return response;
    }
    if (!decision.ok()) return HttpErrorResponse(403, decision.message);
    exchange.identity_ = std::string(decision.label);
  }
  // A compressed body is inflated as it arrives (body_inflater.h); an unknown coding is 415.
  absl::StatusOr<std::optional<ContentEncoding>> encoding =
      ParseContentEncoding(exchange.header("Content-Encoding"));
  if (!encoding.ok()) {
    return HttpErrorResponse(415,
                             absl::StrCat(exchange.raw_path_, ": ", encoding.status().message()));
  }
  if (encoding->has_value()) exchange.inflater_ = std::make_unique<BodyInflater>(**encoding);
  const char* length = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Content-Length");
  if (length != nullptr) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long declared = std::strtoull(length, &end, 10);
    if (end != length && *end == '\0' && errno == 0) {
      if (declared > options_.max_body_bytes) {
        return mhd::TooLarge(exchange.raw_path_, options_.max_body_bytes,
                             absl::StrCat(declared, " bytes (Content-Length)"));
      }
      // The compressed size says little of the decoded one: no reservation then.
      if (exchange.inflater_ == nullptr) exchange.body_.reserve(declared);
    }
  }
  return std::nullopt;
}

}  // namespace neuronserve
