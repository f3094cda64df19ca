#include "client/lib/client.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "client/lib/bearer_token.h"
#include "client/lib/channel_factory.h"
#include "client/lib/file_contents.h"
#include "client/lib/grpc_status.h"
#include "client/lib/infer_codec.h"
#include "client/lib/model_upload.h"
#include "util/sha256.h"

namespace neuronserve::client {

absl::StatusOr<std::unique_ptr<Client>> Client::Connect(const ConnectOptions& options) {
  if (options.timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("timeout must be positive (or absl::InfiniteDuration())");
  }
  absl::StatusOr<std::string> token = LoadBearerToken(options);
  if (!token.ok()) return token.status();
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = CreateClientChannel(options);
  if (!channel.ok()) return channel.status();
  return std::unique_ptr<Client>(
      new Client(options.target, *std::move(token), options.timeout, *std::move(channel)));
}

Client::Client(std::string target, std::string token, absl::Duration timeout,
               std::shared_ptr<grpc::Channel> channel)
    : target_(std::move(target)),
      token_(std::move(token)),
      timeout_(timeout),
      channel_(std::move(channel)),
      serving_(v1::NeuronServing::NewStub(channel_)),
      health_(grpc::health::v1::Health::NewStub(channel_)) {}

Client::~Client() = default;

void Client::Prepare(grpc::ClientContext& context, absl::Duration timeout) const {
  const absl::Duration deadline = timeout == absl::ZeroDuration() ? timeout_ : timeout;
  if (deadline != absl::InfiniteDuration()) {
    context.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
  }
  if (!token_.empty()) context.AddMetadata(kAuthorizationKey, AuthorizationValue(token_));
}

absl::Status Client::CallStatus(const grpc::Status& status) const {
  return FromCallStatus(status, *channel_, target_);
}

absl::Status Client::WaitForReady(absl::Duration timeout) {
  if (channel_->WaitForConnected(absl::ToChronoTime(absl::Now() + timeout))) {
    return absl::OkStatus();
  }
  return absl::UnavailableError(absl::StrCat(
      "neuron-serve at ", target_, " is not reachable after ", absl::FormatDuration(timeout)));
}

absl::StatusOr<v1::EnumerateResponse> Client::Enumerate() {
  grpc::ClientContext context;
  Prepare(context, absl::ZeroDuration());
  v1::EnumerateResponse response;
  grpc::Status status = serving_->Enumerate(&context, v1::EnumerateRequest(), &response);
  if (!status.ok()) return CallStatus(status);
  return response;
}

absl::StatusOr<v1::LoadModelResponse> Client::RunLoad(
    const v1::LoadModelHeader& header,
    const std::function<absl::StatusOr<absl::Span<const uint8_t>>()>& next_chunk,
    const LoadProgress& progress) {
  grpc::ClientContext context;
  Prepare(context, absl::ZeroDuration());
  return StreamLoadModel(*serving_, context, header, next_chunk, progress,
                         [this](const grpc::Status& status) { return CallStatus(status); });
}

absl::StatusOr<v1::LoadModelResponse> Client::LoadModel(const v1::ModelConfig& config,
                                                        absl::Span<const uint8_t> neff,
                                                        LoadProgress progress) {
  return RunLoad(UploadHeader(config, neff.size(), Sha256Hex(neff)), SpanChunks(neff), progress);
}

absl::StatusOr<v1::LoadModelResponse> Client::LoadModelFromFile(const v1::ModelConfig& config,
                                                                const std::string& path,
                                                                LoadProgress progress) {
  absl::StatusOr<FileReader> reader = FileReader::Open(path);
  if (!reader.ok()) return reader.status();
  uint64_t size = 0;
  absl::StatusOr<std::string> sha256 = HashFile(*reader, &size);
  if (!sha256.ok()) return sha256.status();
  std::vector<uint8_t> buffer;
  return RunLoad(UploadHeader(config, size, *std::move(sha256)), FileChunks(*reader, size, buffer),
                 progress);
}

absl::StatusOr<v1::LoadModelResponse> Client::LoadModelFromRepository(
    const v1::ModelConfig& config, const std::string& repository_path) {
  v1::LoadModelHeader header;
  *header.mutable_config() = config;
  header.set_repository_path(repository_path);
  // Nothing follows a repository header.
  return RunLoad(
      header,
      []() -> absl::StatusOr<absl::Span<const uint8_t>> { return absl::Span<const uint8_t>(); },
      {});
}

absl::StatusOr<v1::UnloadModelResponse> Client::Unload(const std::string& name) {
  grpc::ClientContext context;
  Prepare(context, absl::ZeroDuration());
  v1::UnloadModelRequest request;
  request.set_name(name);
  v1::UnloadModelResponse response;
  grpc::Status status = serving_->UnloadModel(&context, request, &response);
  if (!status.ok()) return CallStatus(status);
  return response;
}

absl::StatusOr<std::vector<v1::ModelStatus>> Client::ListModels() {
  grpc::ClientContext context;
  Prepare(context, absl::ZeroDuration());
  v1::ListModelsResponse response;
  grpc::Status status = serving_->ListModels(&context, v1::ListModelsRequest(), &response);
  if (!status.ok()) return CallStatus(status);
  return std::vector<v1::ModelStatus>(response.models().begin(), response.models().end());
}

absl::StatusOr<v1::ModelStatus> Client::GetModel(const std::string& name) {
  grpc::ClientContext context;
  Prepare(context, absl::ZeroDuration());
  v1::GetModelRequest request;
  request.set_name(name);
  v1::ModelStatus response;
  grpc::Status status = serving_->GetModel(&context, request, &response);
  if (!status.ok()) return CallStatus(status);
  return response;
}

absl::StatusOr<InferResult> Client::Infer(const std::string& model,
                                          const std::vector<NamedTensor>& inputs,
                                          const InferOptions& options) {
  grpc::ClientContext context;
  Prepare(context, options.timeout);
  v1::InferResponse response;
  grpc::Status status =
      serving_->Infer(&context, BuildInferRequest(model, inputs, options), &response);
  if (!status.ok()) return CallStatus(status);
  return DecodeInferResponse(response);
}

absl::StatusOr<std::unique_ptr<InferSession>> Client::OpenStream(absl::Duration timeout) {
  auto context = std::make_unique<grpc::ClientContext>();
  Prepare(*context, timeout);
  // Starting the stream does not wait for the server; a server that cannot be reached shows as
  // the first Send or Receive ending the stream, and Finish names the target.
  // The session holds the channel and a copy of the target, not the Client, so it may outlive
  // the Client that opened it.
  return std::unique_ptr<InferSession>(
      new InferSession(*serving_, std::move(context),
                       [channel = channel_, target = target_](const grpc::Status& status) {
                         return FromCallStatus(status, *channel, target);
                       }));
}

absl::StatusOr<HealthStatus> Client::CheckHealth(const std::string& service) {
  grpc::ClientContext context;
  Prepare(context, absl::ZeroDuration());
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  grpc::Status status = health_->Check(&context, request, &response);
  if (!status.ok()) return CallStatus(status);
  switch (response.status()) {
    case grpc::health::v1::HealthCheckResponse::SERVING:
      return HealthStatus::kServing;
    case grpc::health::v1::HealthCheckResponse::NOT_SERVING:
      return HealthStatus::kNotServing;
    case grpc::health::v1::HealthCheckResponse::SERVICE_UNKNOWN:
      return HealthStatus::kServiceUnknown;
    default:
      return HealthStatus::kUnknown;
  }
}

}  // namespace neuronserve::client
