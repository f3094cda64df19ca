#include "server/load_model_reactor.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "server/grpc_status.h"
#include "server/load_spec.h"
#include "server/model_status.h"
#include "util/posix_file.h"

namespace neuronserve {

LoadModelReactor::LoadModelReactor(const ModelLoadingContext& context,
                                   v1::LoadModelResponse* response)
    : context_(context), response_(response) {
  StartRead(&request_);
}

void LoadModelReactor::OnReadDone(bool ok) {
  if (!ok) {  // the client finished sending (or went away; Finish is then a no-op)
    OnEndOfStream();
    return;
  }
  absl::Status status;
  if (!have_header_) {
    status = request_.has_header()
                 ? TakeHeader(request_.header())
                 : absl::InvalidArgumentError(
                       "LoadModel: the first message must be the header, not a chunk");
  } else if (request_.has_header()) {
    status = absl::InvalidArgumentError(
        absl::StrCat("LoadModel '", header_.config().name(), "': a second header after the first"));
  } else {
    status = TakeChunk(request_.chunk());
  }
  if (!status.ok()) {
    Finish(ToGrpcStatus(status));
    return;
  }
  StartRead(&request_);
}

absl::Status LoadModelReactor::TakeHeader(const v1::LoadModelHeader& header) {
  have_header_ = true;
  header_ = header;
  const std::string& name = header.config().name();
  if (!header.repository_path().empty()) {
    if (context_.repository == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("LoadModel '", name, "': repository_path '", header.repository_path(),
                       "' given, but the daemon has no --model-repository"));
    }
    return absl::OkStatus();
  }
  if (name.empty()) {
    return absl::InvalidArgumentError("LoadModel: the header's config.name is required");
  }
  if (header.total_size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LoadModel '", name, "': total_size is 0; give the NEFF's size (or a repository_path)"));
  }
  if (header.total_size() > context_.max_model_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("LoadModel '", name, "': the NEFF is ", header.total_size(),
                     " bytes, more than --max-model-bytes=", context_.max_model_bytes));
  }
  const std::string digest = absl::AsciiStrToLower(header.sha256());
  if (digest.size() != 64 || digest.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LoadModel '", name, "': sha256 must be 64 hex digits, got '", header.sha256(), "'"));
  }
  header_.set_sha256(digest);
  neff_.reserve(header.total_size());
  return absl::OkStatus();
}

absl::Status LoadModelReactor::TakeChunk(const std::string& chunk) {
  const std::string& name = header_.config().name();
  if (!header_.repository_path().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("LoadModel '", name, "': chunks sent for a repository load"));
  }
  if (neff_.size() + chunk.size() > header_.total_size()) {
    // Bounded by total_size, itself bounded by --max-model-bytes: a client cannot make the
    // daemon buffer more than it announced.
    return absl::DataLossError(absl::StrCat(
        "LoadModel '", name, "': more bytes than total_size=", header_.total_size(), " were sent"));
  }
  neff_.append(chunk);
  digest_.Update(chunk);
  return absl::OkStatus();
}

void LoadModelReactor::OnEndOfStream() {
  if (!have_header_) {
    Finish(ToGrpcStatus(absl::InvalidArgumentError("LoadModel: no header was sent")));
    return;
  }
  if (!header_.repository_path().empty()) {
    absl::StatusOr<RepositoryModel> model = context_.repository->Resolve(header_.repository_path());
    if (!model.ok()) {
      Finish(ToGrpcStatus(model.status()));
      return;
    }
    absl::StatusOr<std::string> bytes = ReadFile(model->neff_path);
    if (!bytes.ok()) {
      Finish(ToGrpcStatus(bytes.status()));
      return;
    }
    v1::ModelConfig config = MergeConfig(model->config, header_.config());
    StartLoad(LoadSpecFromConfig(config, std::make_shared<const std::string>(*std::move(bytes)),
                                 ModelSource::kRepository, /*persist=*/true));
    return;
  }
  const std::string& name = header_.config().name();
  if (neff_.size() != header_.total_size()) {
    Finish(ToGrpcStatus(absl::DataLossError(
        absl::StrCat("LoadModel '", name, "': received ", neff_.size(),
                     " bytes, the header announced total_size=", header_.total_size()))));
    return;
  }
  const std::string digest = digest_.FinalHex();
  if (digest != header_.sha256()) {
    Finish(ToGrpcStatus(absl::DataLossError(
        absl::StrCat("LoadModel '", name, "': SHA-256 of the received bytes is ", digest,
                     ", the header announced ", header_.sha256(), "; nothing was loaded"))));
    return;
  }
  StartLoad(LoadSpecFromConfig(
      header_.config(), std::make_shared<const std::string>(std::move(neff_)), ModelSource::kUpload,
      /*persist=*/true));
}

void LoadModelReactor::StartLoad(LoadSpec spec) {
  context_.registry->Load(std::move(spec), [this](absl::StatusOr<ModelInfo> result) {
    if (!result.ok()) {
      Finish(ToGrpcStatus(result.status()));
      return;
    }
    *response_->mutable_model() = ToModelStatus(*result);
    Finish(grpc::Status::OK);
  });
}

}  // namespace neuronserve
