#include "client/lib/client.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/lib/bearer_token.h"
#include "client/lib/channel_factory.h"
#include "client/lib/file_contents.h"
#include "client/lib/grpc_status.h"
#include "client/lib/infer_codec.h"
#include "client/lib/infer_session_impl.h"
#include "client/lib/model_upload.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/status.h"
#include "inference/grpc_service.grpc.pb.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"
#include "util/sha256.h"

namespace neuronserve::client {

// Everything immutable after Connect, so a Client needs no lock: gRPC's channel and stubs are
// thread-safe.
class Client::Impl {
 public:
  Impl(std::string target, std::string token, absl::Duration timeout,
       std::shared_ptr<grpc::Channel> channel)
      : target(std::move(target)),
        token(std::move(token)),
        timeout(timeout),
        channel(std::move(channel)),
        serving(v1::NeuronServing::NewStub(this->channel)),
        v2(inference::GRPCInferenceService::NewStub(this->channel)),
        health(grpc::health::v1::Health::NewStub(this->channel)) {}

  // Deadline (`call_timeout`, or the default when zero) and the token.
  void Prepare(grpc::ClientContext& context, absl::Duration call_timeout) const;
  absl::Status CallStatus(const grpc::Status& status) const;
  absl::StatusOr<v1::LoadModelResponse> RunLoad(const v1::LoadModelHeader& header,
                                                const ChunkSource& next_chunk,
                                                const LoadProgress& progress);

  const std::string target;
  const std::string token;
  const absl::Duration timeout;
  const std::shared_ptr<grpc::Channel> channel;
  const std::unique_ptr<v1::NeuronServing::Stub> serving;
  const std::unique_ptr<inference::GRPCInferenceService::Stub> v2;
  const std::unique_ptr<grpc::health::v1::Health::Stub> health;
};

absl::StatusOr<std::unique_ptr<Client>> Client::Connect(const ConnectOptions& options) {
  if (options.timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("timeout must be positive (or absl::InfiniteDuration())");
  }
  absl::StatusOr<std::string> token = LoadBearerToken(options);
  if (!token.ok()) return token.status();
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = CreateClientChannel(options);
  if (!channel.ok()) return channel.status();
  return std::unique_ptr<Client>(new Client(std::make_unique<Impl>(
      options.target, *std::move(token), options.timeout, *std::move(channel))));
}

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Client::~Client() = default;

const std::string& Client::target() const { return impl_->target; }

void Client::Impl::Prepare(grpc::ClientContext& context, absl::Duration call_timeout) const {
  const absl::Duration deadline = call_timeout == absl::ZeroDuration() ? timeout : call_timeout;
  if (deadline != absl::InfiniteDuration()) {
    context.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
  }
  if (!token.empty()) context.AddMetadata(kAuthorizationKey, AuthorizationValue(token));
}

absl::Status Client::Impl::CallStatus(const grpc::Status& status) const {
  return FromCallStatus(status, *channel, target);
}

absl::Status Client::WaitForReady(absl::Duration timeout) {
  if (impl_->channel->WaitForConnected(absl::ToChronoTime(absl::Now() + timeout))) {
    return absl::OkStatus();
  }
  return absl::UnavailableError(absl::StrCat("neuron-serve at ", impl_->target,
                                             " is not reachable after ",
                                             absl::FormatDuration(timeout)));
}

absl::StatusOr<v1::EnumerateResponse> Client::Enumerate() {
  grpc::ClientContext context;
  impl_->Prepare(context, absl::ZeroDuration());
  v1::EnumerateResponse response;
  grpc::Status status = impl_->serving->Enumerate(&context, v1::EnumerateRequest(), &response);
  if (!status.ok()) return impl_->CallStatus(status);
  return response;
}

absl::StatusOr<v1::LoadModelResponse> Client::Impl::RunLoad(const v1::LoadModelHeader& header,
                                                            const ChunkSource& next_chunk,
                                                            const LoadProgress& progress) {
  grpc::ClientContext context;
  Prepare(context, absl::ZeroDuration());
  return StreamLoadModel(*serving, context, header, next_chunk, progress,
                         [this](const grpc::Status& status) { return CallStatus(status); });
}

absl::StatusOr<v1::LoadModelResponse> Client::LoadModel(const v1::ModelConfig& config,
                                                        absl::Span<const uint8_t> neff,
                                                        LoadProgress progress) {
  return impl_->RunLoad(UploadHeader(config, neff.size(), Sha256Hex(neff)), SpanChunks(neff),
                        progress);
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
  return impl_->RunLoad(UploadHeader(config, size, *std::move(sha256)),
                        FileChunks(*reader, size, buffer), progress);
}

absl::StatusOr<v1::LoadModelResponse> Client::LoadVariantsFromFiles(
    const v1::ModelConfig& config, const std::vector<VariantFile>& files, LoadProgress progress) {
  v1::LoadModelHeader header;
  *header.mutable_config() = config;
  std::vector<FileReader> readers;
  readers.reserve(files.size());  // the chunk sources hold references to the readers
  for (const VariantFile& file : files) {
    absl::StatusOr<FileReader> reader = FileReader::Open(file.path);
    if (!reader.ok()) return reader.status();
    v1::VariantUpload* variant = header.add_variants();
    uint64_t size = 0;
    absl::StatusOr<std::string> sha256 = HashFile(*reader, &size);
    if (!sha256.ok()) return sha256.status();
    variant->set_batch_size(file.batch_size);
    variant->set_size(size);
    variant->set_sha256(*std::move(sha256));
    readers.push_back(*std::move(reader));
  }
  // One buffer serves every file: they are read one after another.
  std::vector<uint8_t> buffer;
  std::vector<ChunkSource> sources;
  for (size_t i = 0; i < readers.size(); ++i) {
    sources.push_back(FileChunks(readers[i], header.variants(static_cast<int>(i)).size(), buffer));
  }
  return impl_->RunLoad(header, ChainedChunks(std::move(sources)), progress);
}

absl::StatusOr<v1::LoadModelResponse> Client::LoadModelFromRepository(
    const v1::ModelConfig& config, const std::string& repository_path) {
  v1::LoadModelHeader header;
  *header.mutable_config() = config;
  header.set_repository_path(repository_path);
  // Nothing follows a repository header.
  return impl_->RunLoad(
      header,
      []() -> absl::StatusOr<absl::Span<const uint8_t>> { return absl::Span<const uint8_t>(); },
      {});
}

absl::StatusOr<v1::UnloadModelResponse> Client::Unload(const std::string& name) {
  grpc::ClientContext context;
  impl_->Prepare(context, absl::ZeroDuration());
  v1::UnloadModelRequest request;
  request.set_name(name);
  v1::UnloadModelResponse response;
  grpc::Status status = impl_->serving->UnloadModel(&context, request, &response);
  if (!status.ok()) return impl_->CallStatus(status);
  return response;
}

absl::StatusOr<std::vector<v1::ModelStatus>> Client::ListModels() {
  grpc::ClientContext context;
  impl_->Prepare(context, absl::ZeroDuration());
  v1::ListModelsResponse response;
  grpc::Status status = impl_->serving->ListModels(&context, v1::ListModelsRequest(), &response);
  if (!status.ok()) return impl_->CallStatus(status);
  return std::vector<v1::ModelStatus>(response.models().begin(), response.models().end());
}

absl::StatusOr<v1::ModelStatus> Client::GetModel(const std::string& name) {
  grpc::ClientContext context;
  impl_->Prepare(context, absl::ZeroDuration());
  v1::GetModelRequest request;
  request.set_name(name);
  v1::ModelStatus response;
  grpc::Status status = impl_->serving->GetModel(&context, request, &response);
  if (!status.ok()) return impl_->CallStatus(status);
  return response;
}

absl::StatusOr<InferResult> Client::Infer(const std::string& model,
                                          const std::vector<NamedTensor>& inputs,
                                          const InferOptions& options) {
  grpc::ClientContext context;
  impl_->Prepare(context, options.timeout);
  if (options.protocol == Protocol::kV2) {
    inference::ModelInferResponse response;
    grpc::Status status =
        impl_->v2->ModelInfer(&context, BuildModelInferRequest(model, inputs, options), &response);
    if (!status.ok()) return impl_->CallStatus(status);
    return DecodeModelInferResponse(std::move(response), options.output_shared_memory);
  }
  v1::InferResponse response;
  grpc::Status status =
      impl_->serving->Infer(&context, BuildInferRequest(model, inputs, options), &response);
  if (!status.ok()) return impl_->CallStatus(status);
  return DecodeInferResponse(response);
}

absl::StatusOr<std::unique_ptr<InferSession>> Client::OpenStream(absl::Duration timeout,
                                                                 Protocol protocol) {
  auto context = std::make_unique<grpc::ClientContext>();
  impl_->Prepare(*context, timeout);
  // Starting the stream does not wait for the server; a server that cannot be reached shows as
  // the first Send or Receive ending the stream, and Finish names the target.
  // The session holds the channel and a copy of the target, not the Client, so it may outlive
  // the Client that opened it.
  return std::unique_ptr<InferSession>(new InferSession(std::make_unique<InferSession::Impl>(
      protocol, std::move(context),
      [channel = impl_->channel, target = impl_->target](const grpc::Status& status) {
        return FromCallStatus(status, *channel, target);
      },
      [this, protocol](grpc::ClientContext& stream_context) {
        return protocol == Protocol::kV2
                   ? StartV2SessionStream(*impl_->v2, stream_context)
                   : StartNativeSessionStream(*impl_->serving, stream_context);
      })));
}

namespace {

// The register request of either API: the same four fields.
template <typename Request>
Request RegisterRequest(const std::string& name, const std::string& key, uint64_t offset,
                        uint64_t byte_size) {
  Request request;
  request.set_name(name);
  request.set_key(key);
  request.set_offset(offset);
  request.set_byte_size(byte_size);
  return request;
}

}  // namespace

absl::Status Client::RegisterSharedMemory(const std::string& name, const std::string& key,
                                          uint64_t offset, uint64_t byte_size, Protocol protocol) {
  grpc::ClientContext context;
  impl_->Prepare(context, absl::ZeroDuration());
  grpc::Status status;
  if (protocol == Protocol::kV2) {
    inference::SystemSharedMemoryRegisterResponse response;
    status = impl_->v2->SystemSharedMemoryRegister(
        &context,
        RegisterRequest<inference::SystemSharedMemoryRegisterRequest>(name, key, offset, byte_size),
        &response);
  } else {
    v1::RegisterSharedMemoryResponse response;
    status = impl_->serving->RegisterSharedMemory(
        &context, RegisterRequest<v1::RegisterSharedMemoryRequest>(name, key, offset, byte_size),
        &response);
  }
  return status.ok() ? absl::OkStatus() : impl_->CallStatus(status);
}

absl::Status Client::UnregisterSharedMemory(const std::string& name, Protocol protocol) {
  grpc::ClientContext context;
  impl_->Prepare(context, absl::ZeroDuration());
  grpc::Status status;
  if (protocol == Protocol::kV2) {
    inference::SystemSharedMemoryUnregisterRequest request;
    request.set_name(name);
    inference::SystemSharedMemoryUnregisterResponse response;
    status = impl_->v2->SystemSharedMemoryUnregister(&context, request, &response);
  } else {
    v1::UnregisterSharedMemoryRequest request;
    request.set_name(name);
    v1::UnregisterSharedMemoryResponse response;
    status = impl_->serving->UnregisterSharedMemory(&context, request, &response);
  }
  return status.ok() ? absl::OkStatus() : impl_->CallStatus(status);
}

absl::StatusOr<std::vector<SharedMemoryRegionStatus>> Client::SharedMemoryStatus(
    const std::string& name, Protocol protocol) {
  grpc::ClientContext context;
  impl_->Prepare(context, absl::ZeroDuration());
  std::vector<SharedMemoryRegionStatus> regions;
  const auto add = [&regions](const auto& region) {
    regions.push_back({region.name(), region.key(), region.offset(), region.byte_size()});
  };
  if (protocol == Protocol::kV2) {
    inference::SystemSharedMemoryStatusRequest request;
    request.set_name(name);
    inference::SystemSharedMemoryStatusResponse response;
    grpc::Status status = impl_->v2->SystemSharedMemoryStatus(&context, request, &response);
    if (!status.ok()) return impl_->CallStatus(status);
    for (const auto& [region_name, region] : response.regions()) add(region);
    // A protobuf map has no order; the native API answers by name.
    std::sort(regions.begin(), regions.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
  } else {
    v1::SharedMemoryStatusRequest request;
    request.set_name(name);
    v1::SharedMemoryStatusResponse response;
    grpc::Status status = impl_->serving->SharedMemoryStatus(&context, request, &response);
    if (!status.ok()) return impl_->CallStatus(status);
    for (const auto& region : response.regions()) add(region);
  }
  return regions;
}

absl::StatusOr<HealthStatus> Client::CheckHealth(const std::string& service) {
  grpc::ClientContext context;
  impl_->Prepare(context, absl::ZeroDuration());
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  grpc::Status status = impl_->health->Check(&context, request, &response);
  if (!status.ok()) return impl_->CallStatus(status);
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
