#include "client/neuronctl/bench/request_issuer.h"

#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "client/lib/infer_session.h"

namespace neuronserve::neuronctl {
namespace {

class UnaryIssuer : public RequestIssuer {
 public:
  UnaryIssuer(client::Client& client, const std::string& model,
              const std::vector<client::NamedTensor>& inputs, const client::InferOptions& options)
      : client_(client), model_(model), inputs_(inputs), options_(options) {}

  absl::StatusOr<ServerTimes> Issue() override {
    absl::StatusOr<client::InferResult> result = client_.Infer(model_, inputs_, options_);
    if (!result.ok()) return result.status();
    return ServerTimes{result->queue_time, result->device_time, result->batch_rows};
  }

 private:
  client::Client& client_;
  const std::string& model_;
  const std::vector<client::NamedTensor>& inputs_;
  const client::InferOptions options_;
};

class StreamIssuer : public RequestIssuer {
 public:
  StreamIssuer(client::Client& client, const std::string& model,
               const std::vector<client::NamedTensor>& inputs, const client::InferOptions& options,
               absl::Duration stream_timeout)
      : client_(client),
        model_(model),
        inputs_(inputs),
        stream_timeout_(stream_timeout),
        options_(options) {}

  // Every answer has been received (one request in flight, and Issue waits for it), so this
  // ends the stream cleanly rather than cancelling it.
  ~StreamIssuer() override {
    if (session_ == nullptr) return;
    session_->CloseSend().IgnoreError();
    session_->Finish().IgnoreError();
  }

  absl::StatusOr<ServerTimes> Issue() override {
    if (session_ == nullptr) {
      absl::StatusOr<std::unique_ptr<client::InferSession>> opened =
          client_.OpenStream(stream_timeout_, options_.protocol);
      if (!opened.ok()) return opened.status();
      session_ = *std::move(opened);
    }
    if (absl::StatusOr<std::string> sent = session_->Send(model_, inputs_, options_); !sent.ok()) {
      return StreamFailed(sent.status());
    }
    absl::StatusOr<std::optional<client::InferStreamResult>> answer = session_->Receive();
    if (!answer.ok()) return StreamFailed(answer.status());
    if (!answer->has_value()) {
      return StreamFailed(absl::InternalError("the stream ended before the request was answered"));
    }
    if (!(*answer)->status.ok()) return (*answer)->status;
    const client::InferResult& result = (*answer)->result;
    return ServerTimes{result.queue_time, result.device_time, result.batch_rows};
  }

 private:
  // The stream's final status says why it failed better than the Send or Receive error
  // ("stream ended"); `fallback` is kept when the final status is OK.
  absl::Status StreamFailed(absl::Status fallback) {
    absl::Status final_status = session_->Finish();
    session_.reset();
    return final_status.ok() ? fallback : final_status;
  }

  client::Client& client_;
  const std::string& model_;
  const std::vector<client::NamedTensor>& inputs_;
  const absl::Duration stream_timeout_;
  const client::InferOptions options_;
  std::unique_ptr<client::InferSession> session_;
};

}  // namespace

std::unique_ptr<RequestIssuer> MakeUnaryIssuer(client::Client& client, const std::string& model,
                                               const std::vector<client::NamedTensor>& inputs,
                                               const client::InferOptions& options) {
  return std::make_unique<UnaryIssuer>(client, model, inputs, options);
}

std::unique_ptr<RequestIssuer> MakeStreamIssuer(client::Client& client, const std::string& model,
                                                const std::vector<client::NamedTensor>& inputs,
                                                const client::InferOptions& options,
                                                absl::Duration stream_timeout) {
  return std::make_unique<StreamIssuer>(client, model, inputs, options, stream_timeout);
}

}  // namespace neuronserve::neuronctl
