// InferSession::Impl: the gRPC side of an InferSession (the stream of either protocol, its
// context and the locks of the two directions). Not installed: only client.cc (which opens
// sessions) and infer_session.cc include it, so the public header names no gRPC type.
//
// Thread safety: the members are guarded as annotated; InferSession's methods take the locks.
// A SessionStream is not thread-safe: Write and WritesDone are called under send_mutex, Read and
// Finish under receive_mutex (gRPC allows one writer and one reader at a time).
// Ownership: the Impl owns the context and the stream; the stub it was started on need not
// outlive it (the stream holds the channel).
#ifndef NEURON_SERVE_CLIENT_LIB_INFER_SESSION_IMPL_H_
#define NEURON_SERVE_CLIENT_LIB_INFER_SESSION_IMPL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "client/lib/grpc_status.h"
#include "client/lib/infer_session.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/status.h"
#include "inference/grpc_service.grpc.pb.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"

namespace neuronserve::client {

// One protocol's bidirectional inference stream, seen as the session needs it: encode and write
// a request, read and decode an answer.
class SessionStream {
 public:
  virtual ~SessionStream() = default;
  // False once the stream has ended.
  virtual bool Write(const std::string& model, const std::vector<NamedTensor>& inputs,
                     const InferOptions& options, const std::string& id) = 0;
  // The next answer decoded; nullopt once the stream has ended.
  virtual std::optional<InferStreamResult> Read() = 0;
  virtual void WritesDone() = 0;
  // Valid once Read returned nullopt.
  virtual grpc::Status Finish() = 0;
};

// neuronserve.v1.NeuronServing/InferStream.
std::unique_ptr<SessionStream> StartNativeSessionStream(v1::NeuronServing::StubInterface& stub,
                                                        grpc::ClientContext& context);
// inference.GRPCInferenceService/ModelStreamInfer.
std::unique_ptr<SessionStream> StartV2SessionStream(
    inference::GRPCInferenceService::StubInterface& stub, grpc::ClientContext& context);

class InferSession::Impl {
 public:
  // `start` begins the stream on the context; a failed call's status goes through `convert`.
  template <typename Start>
  Impl(Protocol protocol, std::unique_ptr<grpc::ClientContext> context, CallStatusConverter convert,
       Start start)
      : protocol(protocol),
        context(std::move(context)),
        convert(std::move(convert)),
        stream(start(*this->context)) {}

  const Protocol protocol;
  const std::unique_ptr<grpc::ClientContext> context;
  const CallStatusConverter convert;
  // Declared after the context it was started on, so it is destroyed first.
  const std::unique_ptr<SessionStream> stream;

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
