#include "server/repository/model_upload.h"

#include <memory>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "server/repository/load_spec.h"
#include "util/posix_file.h"

namespace neuronserve {

ModelUpload::ModelUpload(const ModelRepository* repository, uint64_t max_model_bytes)
    : repository_(repository), max_model_bytes_(max_model_bytes) {}

absl::Status ModelUpload::TakeMessage(const v1::LoadModelRequest& request) {
  if (!have_header_) {
    return request.has_header()
               ? TakeHeader(request.header())
               : absl::InvalidArgumentError(
                     "LoadModel: the first message must be the header, not a chunk");
  }
  if (request.has_header()) {
    return absl::InvalidArgumentError(
        absl::StrCat("LoadModel '", header_.config().name(), "': a second header after the first"));
  }
  return TakeChunk(request.chunk());
}

absl::Status ModelUpload::TakeHeader(const v1::LoadModelHeader& header) {
  have_header_ = true;
  header_ = header;
  const std::string& name = header.config().name();
  if (!header.repository_path().empty()) {
    if (repository_ == nullptr) {
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
  if (header.total_size() > max_model_bytes_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("LoadModel '", name, "': the NEFF is ", header.total_size(),
                     " bytes, more than --max-model-bytes=", max_model_bytes_));
  }
  const std::string digest = absl::AsciiStrToLower(header.sha256());
  if (!IsSha256Hex(digest)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LoadModel '", name, "': sha256 must be 64 hex digits, got '", header.sha256(), "'"));
  }
  header_.set_sha256(digest);
  neff_.reserve(header.total_size());
  return absl::OkStatus();
}

absl::Status ModelUpload::TakeChunk(const std::string& chunk) {
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

absl::StatusOr<LoadSpec> ModelUpload::Finish() {
  if (!have_header_) return absl::InvalidArgumentError("LoadModel: no header was sent");
  if (!header_.repository_path().empty()) return FinishRepositoryLoad();
  const std::string& name = header_.config().name();
  if (neff_.size() != header_.total_size()) {
    return absl::DataLossError(
        absl::StrCat("LoadModel '", name, "': received ", neff_.size(),
                     " bytes, the header announced total_size=", header_.total_size()));
  }
  const std::string digest = digest_.FinalHex();
  if (digest != header_.sha256()) {
    return absl::DataLossError(
        absl::StrCat("LoadModel '", name, "': SHA-256 of the received bytes is ", digest,
                     ", the header announced ", header_.sha256(), "; nothing was loaded"));
  }
  LoadSpec spec =
      LoadSpecFromConfig(header_.config(), std::make_shared<const std::string>(std::move(neff_)),
                         ModelSource::kUpload, /*persist=*/true);
  spec.neff_sha256 = digest;  // verified just above: the store records it without hashing again
  return spec;
}

absl::StatusOr<LoadSpec> ModelUpload::FinishRepositoryLoad() {
  absl::StatusOr<RepositoryModel> model = repository_->Resolve(header_.repository_path());
  if (!model.ok()) return model.status();
  absl::StatusOr<std::string> bytes = ReadFile(model->neff_path);
  if (!bytes.ok()) return bytes.status();
  const v1::ModelConfig config = MergeConfig(model->config, header_.config());
  return LoadSpecFromConfig(config, std::make_shared<const std::string>(*std::move(bytes)),
                            ModelSource::kRepository, /*persist=*/true);
}

}  // namespace neuronserve
