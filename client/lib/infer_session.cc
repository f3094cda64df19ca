#include "client/lib/infer_session.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "client/lib/grpc_status.h"
#include "client/lib/infer_codec.h"

namespace neuronserve::client {

InferSession::InferSession(v1::NeuronServing::StubInterface& stub,
                           std::unique_ptr<grpc::ClientContext> context,
                           CallStatusConverter convert)
    : context_(std::move(context)),
      convert_(std::move(convert)),
      stream_(stub.InferStream(context_.get())) {}

InferSession::~InferSession() {
  bool finished;
  {
    absl::MutexLock lock(&receive_mutex_);
    finished = final_status_.has_value();
  }
  if (finished) return;
  // Answers nobody will read are not worth waiting for.
  context_->TryCancel();
  Finish().IgnoreError();
}

absl::StatusOr<std::string> InferSession::Send(const std::string& model,
                                               const std::vector<NamedTensor>& inputs,
                                               const InferOptions& options) {
  if (options.timeout != absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "a request on a stream cannot have its own timeout; give Client::OpenStream one");
  }
  absl::MutexLock lock(&send_mutex_);
  if (send_closed_) return absl::FailedPreconditionError("Send after CloseSend");
  if (write_failed_) {
    return absl::UnavailableError("the InferStream has ended; Finish() returns why");
  }
  // Numbered under the lock so that ids follow the order requests go out.
  const std::string id = options.id.empty() ? absl::StrCat(++next_id_) : options.id;
  v1::InferRequest request = BuildInferRequest(model, inputs, options);
  request.set_id(id);
  if (!stream_->Write(request)) {
    write_failed_ = true;
    return absl::UnavailableError("the InferStream has ended; Finish() returns why");
  }
  return id;
}

absl::StatusOr<std::optional<InferStreamResult>> InferSession::Receive() {
  absl::MutexLock lock(&receive_mutex_);
  if (read_ended_) return std::nullopt;
  v1::InferResponse response;
  if (!stream_->Read(&response)) {
    read_ended_ = true;
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
  absl::MutexLock lock(&send_mutex_);
  if (send_closed_) return absl::OkStatus();
  send_closed_ = true;
  // WritesDone fails only when the stream has already ended, which Finish reports.
  if (!write_failed_) stream_->WritesDone();
  return absl::OkStatus();
}

absl::Status InferSession::Finish() {
  CloseSend().IgnoreError();
  absl::MutexLock lock(&receive_mutex_);
  if (final_status_.has_value()) return *final_status_;
  // gRPC's Finish is only valid once every message has been read.
  v1::InferResponse discarded;
  while (!read_ended_) read_ended_ = !stream_->Read(&discarded);
  final_status_ = convert_(stream_->Finish());
  return *final_status_;
}

}  // namespace neuronserve::client
