// Many inference requests in flight on one InferStream. Responses arrive in completion order
// and are matched to requests by id; a request that fails gets its own error and the stream
// goes on.
//
// The header names no gRPC type: the stream, its context and the locks live in the private
// Impl (client/lib/infer_session_impl.h, not installed).
#ifndef NEURON_SERVE_CLIENT_LIB_INFER_SESSION_H_
#define NEURON_SERVE_CLIENT_LIB_INFER_SESSION_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/lib/infer_types.h"

namespace neuronserve::client {

// Thread safety: the sending side (Send, CloseSend) and the receiving side (Receive) each take
// their own lock, so one thread may send while another receives, which is how a caller keeps
// many requests in flight without stalling on flow control. Any number of threads may Send.
// Finish may be called from either side once the caller is done sending.
class InferSession {
 public:
  // Cancels the stream if it was not finished.
  ~InferSession();
  InferSession(const InferSession&) = delete;
  InferSession& operator=(const InferSession&) = delete;

  // Queues one request and returns its id: options.id, or when that is empty the next of "1",
  // "2", ... (a caller mixing both must keep them apart). Blocks only on flow control.
  // options.timeout must be zero: the stream has one deadline, given to Client::OpenStream.
  // FAILED_PRECONDITION after CloseSend; UNAVAILABLE once the stream has ended (Finish says why).
  absl::StatusOr<std::string> Send(const std::string& model, const std::vector<NamedTensor>& inputs,
                                   const InferOptions& options = {});

  // The next answer, blocking until one arrives; nullopt once the stream has ended (every
  // request answered after CloseSend, or the stream failed: Finish has its status).
  absl::StatusOr<std::optional<InferStreamResult>> Receive();

  // Half-closes: no more requests. The server ends the stream once all are answered.
  absl::Status CloseSend();

  // The stream's final status. Half-closes if the caller did not, and discards answers not yet
  // received (so call it after Receive returned nullopt to see every one). Calling it again
  // returns the same status.
  absl::Status Finish();

 private:
  friend class Client;
  class Impl;

  explicit InferSession(std::unique_ptr<Impl> impl);

  const std::unique_ptr<Impl> impl_;
};

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_INFER_SESSION_H_
