// HttpExchange: one HTTP request the daemon's HTTP server (http_server.h) received, and the one
// answer it owes. A route's handler gets the exchange and answers it with Respond(), at once on
// the HTTP thread or later from any thread (a core worker finishing an inference), so that no
// HTTP thread waits on a device.
//
// Thread safety: the accessors and Respond may be called from any one thread at a time; the
// handoff from the HTTP thread to the thread that answers must be ordered by the caller (the
// inference queue does that). OnClientGone's callback is the exception: it runs on a thread of
// the server's, concurrently with the thread that holds the exchange, and may call Respond.
// Ownership: the server owns the exchange. It stays valid, body included, until Respond returns;
// the handler must not touch it after that. Every exchange must be answered exactly once, even
// one whose client went away: the server's destructor waits for the exchanges still owed.
#ifndef NEURON_SERVE_SERVER_HTTP_HTTP_EXCHANGE_H_
#define NEURON_SERVE_SERVER_HTTP_HTTP_EXCHANGE_H_

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace neuronserve {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  // Sent after `body`, in order, without joining them first: a large binary tensor the device
  // wrote into its own buffer goes out as it is (Content-Length counts every part).
  std::vector<std::string> more_body;
  // More headers, e.g. {"Inference-Header-Content-Length", "123"}. The server writes
  // Content-Type, Content-Length and Cache-Control: no-store itself.
  std::vector<std::pair<std::string, std::string>> headers;
};

class HttpExchange {
 public:
  virtual ~HttpExchange() = default;

  // "GET", "HEAD", "POST", ...
  virtual std::string_view method() const = 0;
  // The path, percent-decoded, without the query: "/v2/models/mlp/infer".
  virtual std::string_view path() const = 0;
  // The value of the route pattern's parameter `name` ("{name}" in the pattern), percent-decoded;
  // empty when the pattern has no such parameter.
  virtual std::string_view param(std::string_view name) const = 0;
  // The request header `name` (any case), empty when absent.
  virtual std::string_view header(std::string_view name) const = 0;
  // The whole body, contiguous, at most the server's body limit (a longer one is answered 413
  // before any handler runs).
  virtual std::string_view body() const = 0;
  // The client's address, as gRPC writes peers: "ipv4:127.0.0.1:5000", "ipv6:[::1]:5000".
  virtual std::string_view peer() const = 0;
  // Who the caller is for the access and audit logs: the label of the bearer token that let it
  // in, empty when the route needs none or no token files are configured.
  virtual std::string_view identity() const = 0;

  // Asks to be told if the client goes away before the answer, so that the request can be
  // cancelled at once instead of keeping its place in a queue. Call it from the handler, at most
  // once, before the handler returns. Then `on_gone` runs at most once, on a thread of the
  // server's (not the handler's), when the client closes its connection (or shuts down its
  // sending side, or the connection breaks) while the exchange waits for Respond, including a
  // client that left before the handler returned. Its guarantees:
  //  - it never runs once Respond has returned, nor when the handler answered before returning;
  //  - Respond called on another thread while `on_gone` runs waits until `on_gone` has returned
  //    (and its captures are destroyed), so `on_gone` may use what the caller of Respond frees
  //    afterwards; it must therefore not wait for a thread that may be inside Respond;
  //  - `on_gone` may itself call Respond, directly or through what it triggers (a cancellation
  //    that answers the request), once nothing else will touch the exchange (the request left
  //    its queue before a worker took it); nothing may touch the exchange after that Respond;
  //  - it runs with no lock held that Respond or the server's HTTP threads take;
  //  - bytes the client sends meanwhile (a pipelined next request) are not a departure.
  // The exchange is still owed its answer after `on_gone`: Respond (whatever the response; the
  // client will not read it) settles it. The server's destructor returns only after every
  // `on_gone` that started has returned.
  virtual void OnClientGone(std::function<void()> on_gone) = 0;

  // Sends `response` (for HEAD, without its body). Call exactly once; the exchange may be gone
  // when it returns.
  virtual void Respond(HttpResponse response) = 0;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_HTTP_HTTP_EXCHANGE_H_
