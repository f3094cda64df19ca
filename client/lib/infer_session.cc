#include "client/lib/infer_session.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "client/lib/grpc_status.h"
#include "client/lib/infer_codec.h"
#include "client/lib/infer_session_impl.h"

namespace neuronserve::client {

InferSession::Impl::Impl(v1::NeuronServing::StubInterface& stub,
                         std::unique_ptr<grpc::ClientContext> context, CallStatusConverter convert)
    : context(std::move(context)),
      convert(std::move(convert)),
      stream(stub.InferStream(this->context.get())) {}

InferSession::InferSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

InferSession::~InferSession() {
  bool finished;
  {
    absl::MutexLock lock(&impl_->receive_mutex);
    finished = impl_->final_status.has_value();
  }
  if (finished) return;
  // Answers nobody will read are not worth waiting for.
  impl_->context->TryCancel();
  Finish().IgnoreError();
}

absl::StatusOr<std::string> InferSession::Send(const std::string& model,
                                               const std::vector<NamedTensor>& inputs,
                                               const InferOptions& options) {
  if (options.timeout != absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "a request on a stream cannot have its own timeout; give Client::OpenStream one");
  }
  absl::MutexLock lock(&impl_->send_mutex);
  if (impl_->send_closed) return absl::FailedPreconditionError("Send after CloseSend");
  if (impl_->write_failed) {
    return absl::UnavailableError("the InferStream has ended; Finish() returns why");
  }
  // Numbered under the lock so that ids follow the order requests go out.
  const std::string id = options.id.empty() ? absl::StrCat(++impl_->next_id) : options.id;
  v1::InferRequest request = BuildInferRequest(model, inputs, options);
  request.set_id(id);
  if (!impl_->stream->Write(request)) {
    impl_->write_failed = true;
    return absl::UnavailableError("the InferStream has ended; Finish() returns why");
  }
  return id;
}

absl::StatusOr<std::optional<InferStreamResult>> InferSession::Receive() {
  absl::MutexLock lock(&impl_->receive_mutex);
  if (impl_->read_ended) return std::nullopt;
  v1::InferResponse response;
  if (!impl_->stream->Read(&response)) {
    impl_->read_ended = true;
    return std::nullopt;
  }
  InferStreamResult result;
  result.id = response.id();
  result.status = FromCodeAndMessage(response.error().code(), response.error().message());
  if (result.status.ok()) {
    absl::StatusOr<InferResult> decoded = DecodeInferResponse(response);
    if (decoded.ok()) {
      result.result = *std::move(decoded);
    } else {
      result.status = decoded.status();
    }
  }
  return result;
}

absl::Status InferSession::CloseSend() {
  absl::MutexLock lock(&impl_->send_mutex);
  if (impl_->send_closed) return absl::OkStatus();
  impl_->send_closed = true;
  // WritesDone fails only when the stream has already ended, which Finish reports.
  if (!impl_->write_failed) impl_->stream->WritesDone();
  return absl::OkStatus();
}

absl::Status InferSession::Finish() {
  CloseSend().IgnoreError();
  absl::MutexLock lock(&impl_->receive_mutex);
  if (impl_->final_status.has_value()) return *impl_->final_status;
  // gRPC's Finish is only valid once every message has been read.
  v1::InferResponse discarded;
  while (!impl_->read_ended) impl_->read_ended = !impl_->stream->Read(&discarded);
  impl_->final_status = impl_->convert(impl_->stream->Finish());
  return *impl_->final_status;
}

}  // namespace neuronserve::client
