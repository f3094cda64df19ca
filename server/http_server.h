// HttpServer: the daemon's small HTTP endpoint (--http-listen) for what is not gRPC:
// Prometheus scrapes (/metrics), HTTP probes (/livez, /readyz) and a JSON model summary.
//
// civetweb (Debian's libcivetweb) serves it on its own few threads, so a scrape never takes a
// gRPC thread and never waits behind inference. Routes are exact paths answering GET (and
// HEAD); anything else is 404 or 405. Handlers run on civetweb's threads, concurrently.
#ifndef NEURON_SERVE_SERVER_HTTP_SERVER_H_
#define NEURON_SERVE_SERVER_HTTP_SERVER_H_

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

struct mg_context;
struct mg_connection;

namespace neuronserve {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse()>;

  // Listens on `address` ("HOST:PORT"; port 0 picks a free one) and serves `routes` (path ->
  // handler). UNAVAILABLE when it cannot listen (in use, bad host), naming the address.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(const std::string& address,
                                                           std::map<std::string, Handler> routes);
  // Stops listening and waits for the handlers running now (promptly: see the .cc).
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // HOST:PORT actually bound.
  const std::string& address() const { return address_; }

 private:
  HttpServer() = default;
  static int Dispatch(mg_connection* connection, void* self);

  std::map<std::string, Handler> routes_;
  mg_context* context_ = nullptr;
  std::string address_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_HTTP_SERVER_H_
