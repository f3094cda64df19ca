// Many inference requests in flight on one InferStream. Responses arrive in completion order
// and are matched to requests by id; a request that fails gets its own error and the stream
// goes on.
#ifndef NEURON_SERVE_CLIENT_LIB_INFER_SESSION_H_
#define NEURON_SERVE_CLIENT_LIB_INFER_SESSION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "client/lib/infer_types.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/status.h"
#include "grpcpp/support/sync_stream.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"

namespace neuronserve::client {

// Thread safety: the sending side (Send, CloseSend) and the receiving side (Receive) each take
// their own lock, so one thread may send while another receives, which is how a caller keeps
// many requests in flight without stalling on flow control. Any number of threads may Send.
// Finish may be called from either side once the caller is done sending.
class InferSession {
 public:
  using CallStatusConverter = std::function<absl::Status(const grpc::Status&)>;

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

  InferSession(v1::NeuronServing::StubInterface& stub, std::unique_ptr<grpc::ClientContext> context,
               CallStatusConverter convert);

  const std::unique_ptr<grpc::ClientContext> context_;
  const CallStatusConverter convert_;
  // Declared after the context it was started on, so it is destroyed first.
  const std::unique_ptr<grpc::ClientReaderWriterInterface<v1::InferRequest, v1::InferResponse>>
      stream_;

  absl::Mutex send_mutex_;
  uint64_t next_id_ ABSL_GUARDED_BY(send_mutex_) = 0;
  bool send_closed_ ABSL_GUARDED_BY(send_mutex_) = false;
  bool write_failed_ ABSL_GUARDED_BY(send_mutex_) = false;

  absl::Mutex receive_mutex_;
  bool read_ended_ ABSL_GUARDED_BY(receive_mutex_) = false;
  std::optional<absl::Status> final_status_ ABSL_GUARDED_BY(receive_mutex_);
};

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_INFER_SESSION_H_
