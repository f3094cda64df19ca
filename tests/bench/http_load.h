// HTTP load for the bench's REST table: a minimal HTTP/1.1 client over one keep-alive TCP
// connection per slot (no libcurl: the bench must not measure curl's process or its setup), and
// RunHttpLoad, the HTTP counterpart of RunLoad (load_generator.h) with the same LoadResult, so
// that the REST and gRPC columns are measured and reported alike.
//
// Thread safety: an HttpConnection is used by one thread; RunHttpLoad runs one thread per slot.
// Ownership: a connection owns its socket and closes it when destroyed.
#ifndef NEURON_SERVE_TESTS_BENCH_HTTP_LOAD_H_
#define NEURON_SERVE_TESTS_BENCH_HTTP_LOAD_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "tests/bench/load_generator.h"

namespace neuronserve::bench {

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

// Checks an answer: empty when right, else what is wrong.
using HttpCheck = std::function<std::string(const HttpAnswer& answer)>;

LoadResult RunHttpLoad(const std::string& address, const HttpPost& post, const HttpCheck& check,
                       const LoadOptions& options);

}  // namespace neuronserve::bench

#endif  // NEURON_SERVE_TESTS_BENCH_HTTP_LOAD_H_
