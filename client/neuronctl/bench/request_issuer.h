// How a `neuronctl bench` worker sends one request and waits for its answer: a unary Infer
// call, or a Send and Receive on the worker's own InferStream.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_BENCH_REQUEST_ISSUER_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_BENCH_REQUEST_ISSUER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/lib/client.h"
#include "client/lib/infer_types.h"

namespace neuronserve::neuronctl {

// What the server reported about one successful request.
struct ServerTimes {
  absl::Duration queue_time;
  absl::Duration device_time;
  // The rows of the execution the request ran in (a batched model on the native API); 0 when
  // the server did not say.
  uint32_t batch_rows = 0;
};

// Used by one thread at a time. The model name and inputs are borrowed: they must outlive it.
class RequestIssuer {
 public:
  virtual ~RequestIssuer() = default;
  // Sends one request and blocks until its answer; the request's error as it came back.
  virtual absl::StatusOr<ServerTimes> Issue() = 0;
};

// Client::Infer per request with `options` (form and protocol; deadline: the client's default,
// i.e. --timeout).
std::unique_ptr<RequestIssuer> MakeUnaryIssuer(client::Client& client, const std::string& model,
                                               const std::vector<client::NamedTensor>& inputs,
                                               const client::InferOptions& options);

// One InferStream (ModelStreamInfer with options.protocol kV2), opened on the first request with
// `stream_timeout` as its deadline, one request in flight at a time. A request's own error leaves
// the stream open; when the stream itself fails, its final status is the request's error and the
// next request opens a new one. The stream is half-closed and finished on destruction.
std::unique_ptr<RequestIssuer> MakeStreamIssuer(client::Client& client, const std::string& model,
                                                const std::vector<client::NamedTensor>& inputs,
                                                const client::InferOptions& options,
                                                absl::Duration stream_timeout);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_BENCH_REQUEST_ISSUER_H_
