// HttpConnection: a minimal HTTP/1.1 client over one keep-alive TCP connection, for the bench
// (which must not measure curl's process or its setup) and for tests that send thousands of
// requests (a curl process each, HttpFetch in http_get.h, would take most of their time).
//
// Thread safety: a connection is used by one thread. Ownership: it owns its socket and closes it
// when destroyed.
#ifndef NEURON_SERVE_TESTS_SUPPORT_HTTP_CONNECTION_H_
#define NEURON_SERVE_TESTS_SUPPORT_HTTP_CONNECTION_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"

namespace neuronserve::testing {

// One request (a POST unless `method` says otherwise): the path, extra header lines
// ("Name: value"), the body.
struct HttpPost {
  std::string path;
  std::vector<std::string> headers;
  std::string body;
  std::string method = "POST";
};

struct HttpAnswer {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string error;       // the connection failed (status 0)
  bool timed_out = false;  // no answer within the connection's receive timeout (status 0)
};

class HttpConnection {
 public:
  explicit HttpConnection(std::string address);  // HOST:PORT
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Sends `post` and reads the answer on the kept-alive connection (connecting first when
  // there is none, and once more when the kept one was closed).
  HttpAnswer Send(const HttpPost& post);

  // How long Send waits for bytes of the answer before giving up (status 0, answer.timed_out,
  // the connection closed and the request not sent again); zero (the default): no limit.
  // Applies from the next connection on.
  void set_receive_timeout(absl::Duration timeout) { receive_timeout_ = timeout; }

 private:
  bool Connect(std::string& error);
  void Close();

  const std::string address_;
  int fd_ = -1;
  std::string buffer_;  // bytes read past the previous answer
  absl::Duration receive_timeout_ = absl::ZeroDuration();
};

// The daemon's HTTP endpoint (HOST:PORT) from its log, the line "HTTP endpoint on HOST:PORT (";
// empty when it has none.
std::string HttpAddressInLog(const std::string& log);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_HTTP_CONNECTION_H_
