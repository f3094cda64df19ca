#include "client/lib/infer_session.h"

#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "client/lib/grpc_status.h"
#include "client/lib/infer_codec.h"
#include "client/lib/infer_session_impl.h"

namespace neuronserve::client {

namespace {

class NativeSessionStream : public SessionStream {
 public:
  NativeSessionStream(v1::NeuronServing::StubInterface& stub, grpc::ClientContext& context)
      : stream_(stub.InferStream(&context)) {}

  bool Write(const std::string& model, const std::vector<NamedTensor>& inputs,
             const InferOptions& options, const std::string& id) override {
    v1::InferRequest request = BuildInferRequest(model, inputs, options);
    request.set_id(id);
    return stream_->Write(request);
  }

  std::optional<InferStreamResult> Read() override {
    v1::InferResponse response;
    if (!stream_->Read(&response)) return std::nullopt;
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

  void WritesDone() override { stream_->WritesDone(); }
  grpc::Status Finish() override { return stream_->Finish(); }

 private:
  const std::unique_ptr<grpc::ClientReaderWriterInterface<v1::InferRequest, v1::InferResponse>>
      stream_;
};

class V2SessionStream : public SessionStream {
 public:
  V2SessionStream(inference::GRPCInferenceService::StubInterface& stub,
                  grpc::ClientContext& context)
      : stream_(stub.ModelStreamInfer(&context)) {}

  bool Write(const std::string& model, const std::vector<NamedTensor>& inputs,
             const InferOptions& options, const std::string& id) override {
    inference::ModelInferRequest request = BuildModelInferRequest(model, inputs, options);
    request.set_id(id);
    if (!options.output_shared_memory.empty()) {
      // Remembered before the write, so the answer cannot arrive before it.
      absl::MutexLock lock(&shared_mutex_);
      shared_outputs_[id] = options.output_shared_memory;
    }
    return stream_->Write(request);
  }

  std::optional<InferStreamResult> Read() override {
    inference::ModelStreamInferResponse response;
    if (!stream_->Read(&response)) return std::nullopt;
    InferStreamResult result;
    result.id = response.infer_response().id();
    if (!response.error_message().empty()) {
      // The protocol carries a message and no code.
      result.status = absl::UnknownError(response.error_message());
      TakeSharedOutputs(result.id);
      return result;
    }
    absl::StatusOr<InferResult> decoded = DecodeModelInferResponse(
        std::move(*response.mutable_infer_response()), TakeSharedOutputs(result.id));
    if (decoded.ok()) {
      result.result = *std::move(decoded);
    } else {
      result.status = decoded.status();
    }
    return result;
  }

  void WritesDone() override { stream_->WritesDone(); }
  grpc::Status Finish() override { return stream_->Finish(); }

 private:
  // The outputs request `id` sent to shared memory (none: an empty map), forgotten once its
  // answer is read. The protocol's answer does not say which they were.
  std::map<std::string, SharedMemorySpan> TakeSharedOutputs(const std::string& id) {
    absl::MutexLock lock(&shared_mutex_);
    const auto found = shared_outputs_.find(id);
    if (found == shared_outputs_.end()) return {};
    std::map<std::string, SharedMemorySpan> outputs = std::move(found->second);
    shared_outputs_.erase(found);
    return outputs;
  }

  const std::unique_ptr<grpc::ClientReaderWriterInterface<inference::ModelInferRequest,
                                                          inference::ModelStreamInferResponse>>
      stream_;
  // Written by Send's thread, read by Receive's: they hold different locks of the session.
  absl::Mutex shared_mutex_;
  std::map<std::string, std::map<std::string, SharedMemorySpan>> shared_outputs_
      ABSL_GUARDED_BY(shared_mutex_);
};

}  // namespace

std::unique_ptr<SessionStream> StartNativeSessionStream(v1::NeuronServing::StubInterface& stub,
                                                        grpc::ClientContext& context) {
  return std::make_unique<NativeSessionStream>(stub, context);
}

std::unique_ptr<SessionStream> StartV2SessionStream(
    inference::GRPCInferenceService::StubInterface& stub, grpc::ClientContext& context) {
  return std::make_unique<V2SessionStream>(stub, context);
}

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
  if (options.protocol != impl_->protocol) {
    return absl::InvalidArgumentError(
        "a request on a stream goes by the stream's protocol; give Client::OpenStream another");
  }
  absl::MutexLock lock(&impl_->send_mutex);
  if (impl_->send_closed) return absl::FailedPreconditionError("Send after CloseSend");
  if (impl_->write_failed) {
    return absl::UnavailableError("the InferStream has ended; Finish() returns why");
  }
  // Numbered under the lock so that ids follow the order requests go out.
  const std::string id = options.id.empty() ? absl::StrCat(++impl_->next_id) : options.id;
  if (!impl_->stream->Write(model, inputs, options, id)) {
    impl_->write_failed = true;
    return absl::UnavailableError("the InferStream has ended; Finish() returns why");
  }
  return id;
}

absl::StatusOr<std::optional<InferStreamResult>> InferSession::Receive() {
  absl::MutexLock lock(&impl_->receive_mutex);
  if (impl_->read_ended) return std::nullopt;
  std::optional<InferStreamResult> result = impl_->stream->Read();
  if (!result.has_value()) impl_->read_ended = true;
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
  while (!impl_->read_ended) impl_->read_ended = !impl_->stream->Read().has_value();
  impl_->final_status = impl_->convert(impl_->stream->Finish());
  return *impl_->final_status;
}

}  // namespace neuronserve::client
