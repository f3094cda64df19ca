// HttpFetch: one HTTP(S) request with the curl command line, for tests of the daemon's HTTP
// server: any method, request headers, a body from a file (optionally sent chunked), a CA file
// for HTTPS; the status, the response headers and the body come back. HttpGet is the plain GET
// (/metrics, /readyz, /livez, /v1/models).
//
// Thread safety: each call runs its own curl process; calls may run concurrently.
#ifndef NEURON_SERVE_TESTS_SUPPORT_HTTP_GET_H_
#define NEURON_SERVE_TESTS_SUPPORT_HTTP_GET_H_

#include <string>
#include <utility>
#include <vector>

namespace neuronserve::testing {

struct HttpResult {
  int status = 0;  // 0: curl could not connect, or got no HTTP answer (see `error`)
  std::string body;
  // Response headers as sent (names as the server wrote them), in order.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string error;  // curl's message when it failed (its stderr)
  // The value of header `name` (any case); empty when absent.
  std::string Header(const std::string& name) const;
  // The "error" string of a JSON body (the Open Inference Protocol's error answer); a marker
  // quoting the start of the body when it has none.
  std::string ErrorField() const;
};

struct HttpRequest {
  std::string url;
  std::string method = "GET";  // "HEAD" uses curl --head
  // "Name: value" lines.
  std::vector<std::string> headers;
  // The body, read by curl from this file; empty: no body.
  std::string body_file;
  // Send the body with Transfer-Encoding: chunked instead of a Content-Length.
  bool chunked = false;
  // HTTPS: trust this PEM CA file.
  std::string cacert;
  // curl -v: its stderr (in `error`) then shows the TLS handshake and the server certificate.
  bool verbose = false;
  // curl --max-time: the whole exchange, in seconds. A sanitized daemon on a loaded machine can
  // take longer to parse a very large body.
  int max_seconds = 10;
};

HttpResult HttpFetch(const HttpRequest& request);

// GET `url` with curl (10 s timeout).
HttpResult HttpGet(const std::string& url);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_HTTP_GET_H_
