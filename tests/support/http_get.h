// HttpGet: one HTTP GET with curl, for tests of the daemon's HTTP endpoint (/metrics, /readyz,
// /livez, /v1/models).
#ifndef NEURON_SERVE_TESTS_SUPPORT_HTTP_GET_H_
#define NEURON_SERVE_TESTS_SUPPORT_HTTP_GET_H_

#include <string>

namespace neuronserve::testing {

struct HttpResult {
  int status = 0;  // 0: curl could not connect
  std::string body;
};
// GET `url` with curl (-s, 10 s timeout).
HttpResult HttpGet(const std::string& url);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_HTTP_GET_H_
