// InferSession::Impl: the gRPC side of an InferSession (the stream, its context and the locks
// of the two directions). Not installed: only client.cc (which opens sessions) and
// infer_session.cc include it, so the public header names no gRPC type.
//
// Thread safety: the members are guarded as annotated; InferSession's methods take the locks.
// Ownership: the Impl owns the context and the stream; the stub it was started on need not
// outlive it (the stream holds the channel).
#ifndef NEURON_SERVE_CLIENT_LIB_INFER_SESSION_IMPL_H_
#define NEURON_SERVE_CLIENT_LIB_INFER_SESSION_IMPL_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "client/lib/grpc_status.h"
#include "client/lib/infer_session.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/sync_stream.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"

namespace neuronserve::client {

class InferSession::Impl {
 public:
  // Starts the stream on `stub` with `context`; a failed call's status goes through `convert`.
  Impl(v1::NeuronServing::StubInterface& stub, std::unique_ptr<grpc::ClientContext> context,
       CallStatusConverter convert);

  const std::unique_ptr<grpc::ClientContext> context;
  const CallStatusConverter convert;
  // Declared after the context it was started on, so it is destroyed first.
  const std::unique_ptr<grpc::ClientReaderWriterInterface<v1::InferRequest, v1::InferResponse>>
      stream;

  absl::Mutex send_mutex;
  uint64_t next_id ABSL_GUARDED_BY(send_mutex) = 0;
  bool send_closed ABSL_GUARDED_BY(send_mutex) = false;
  bool write_failed ABSL_GUARDED_BY(send_mutex) = false;

  absl::Mutex receive_mutex;
  bool read_ended ABSL_GUARDED_BY(receive_mutex) = false;
  std::optional<absl::Status> final_status ABSL_GUARDED_BY(receive_mutex);
};

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_INFER_SESSION_IMPL_H_
