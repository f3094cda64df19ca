// HttpServer: the daemon's HTTP endpoint (--http-listen): Prometheus scrapes, HTTP probes, the
// JSON model summary and the Open Inference Protocol's REST form, optionally over HTTPS.
//
// Built on libmicrohttpd (Debian's libmicrohttpd, which links GnuTLS): a small pool of its
// threads reads requests; a handler answers at once or suspends the exchange and answers later
// from any thread (http_exchange.h), so an inference never holds an HTTP thread.
//
// Before any handler runs, the server itself answers, with a JSON body {"error": "..."}:
//   404 no route for the path, 405 a method the path does not have (with Allow),
//   401 a route that needs a token and the request has none or an unknown one (with
//       WWW-Authenticate: Bearer), 403 a token of too small a scope (TokenAuthority, the same
//       files and scopes as gRPC; a route of Scope::kNone needs no token),
//   413 a body longer than max_body_bytes (told from Content-Length before the body is read,
//       or once a chunked body passes the limit), 400 a request the HTTP parser refuses.
// Bodies are read whole before the handler runs.
//
// Thread safety: Start and the destructor on one thread; handlers run on the server's threads,
// concurrently. Ownership: the server borrows `tokens` and `tls` (both must outlive it) and
// owns the route table. The destructor stops accepting, waits until every exchange handed to a
// handler has been answered and its answer sent (the daemon drains inference first), then
// stops the threads.
#ifndef NEURON_SERVE_SERVER_HTTP_HTTP_SERVER_H_
#define NEURON_SERVE_SERVER_HTTP_HTTP_SERVER_H_

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/http/http_route_table.h"

namespace neuronserve {

class HttpTls;
class TokenAuthority;

struct HttpServerOptions {
  std::string address;  // "HOST:PORT"; port 0 picks a free one
  // Longest body accepted (the daemon passes --max-message-bytes).
  size_t max_body_bytes = 64 << 20;
  // Token check on routes that need a scope; null: every route open.
  const TokenAuthority* tokens = nullptr;
  // HTTPS with this certificate (rotated for new connections); null: plain HTTP.
  HttpTls* tls = nullptr;
  int threads = 4;
};

class HttpServer {
 public:
  // UNAVAILABLE when it cannot listen (in use, bad host), naming the address.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(HttpServerOptions options,
                                                           HttpRouteTable routes);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // HOST:PORT actually bound.
  const std::string& address() const;
  bool tls() const;

 private:
  class Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_HTTP_HTTP_SERVER_H_
