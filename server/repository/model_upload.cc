#include "server/repository/model_upload.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "server/repository/load_spec.h"

namespace neuronserve {

ModelUpload::ModelUpload(const ModelRepository* repository, uint64_t max_model_bytes)
    : repository_(repository), max_model_bytes_(max_model_bytes) {}

std::string ModelUpload::Which(const ExpectedNeff& neff) {
  return neff.batch_size == 0 ? "" : absl::StrCat(" of the variant of batch ", neff.batch_size);
}

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
    if (!header.variants().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "LoadModel '", name, "': variants given with repository_path '", header.repository_path(),
          "'; a repository model's config.pbtxt names its variants"));
    }
    return absl::OkStatus();
  }
  if (name.empty()) {
    return absl::InvalidArgumentError("LoadModel: the header's config.name is required");
  }
  if (!header.config().variant().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("LoadModel '", name,
                     "': config.variant is set; an upload lists its variants in the header's "
                     "`variants` (batch size, size and SHA-256 of each), and config.variant "
                     "stays empty"));
  }
  if (!header.variants().empty()) return TakeVariants(header);
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
  // Batching fields without variants, and a pipeline_depth past its limit, are refused before
  // any byte is taken.
  if (absl::Status status = CheckModelConfig(header_.config()); !status.ok()) {
    return absl::Status(status.code(), absl::StrCat("LoadModel: ", status.message()));
  }
  header_.set_sha256(digest);
  ExpectedNeff& neff = neffs_.emplace_back();
  neff.size = header.total_size();
  neff.sha256 = digest;
  neff.bytes.reserve(neff.size);
  return absl::OkStatus();
}

absl::Status ModelUpload::TakeVariants(const v1::LoadModelHeader& header) {
  const std::string& name = header.config().name();
  if (header.total_size() != 0 || !header.sha256().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("LoadModel '", name,
                     "': both total_size/sha256 and variants given; an upload of one NEFF "
                     "gives the first, a batched model's the second"));
  }
  uint64_t total = 0;
  for (int i = 0; i < header.variants_size(); ++i) {
    const v1::VariantUpload& variant = header.variants(i);
    if (variant.size() == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("LoadModel '", name, "': the variant of batch ", variant.batch_size(),
                       " (variant ", i + 1, ") has size 0; give its NEFF's size"));
    }
    if (variant.size() > max_model_bytes_ - total) {
      return absl::ResourceExhaustedError(
          absl::StrCat("LoadModel '", name, "': the variants' NEFFs are more than ",
                       "--max-model-bytes=", max_model_bytes_, " bytes together"));
    }
    total += variant.size();
    const std::string digest = absl::AsciiStrToLower(variant.sha256());
    if (!IsSha256Hex(digest)) {
      return absl::InvalidArgumentError(
          absl::StrCat("LoadModel '", name, "': the variant of batch ", variant.batch_size(),
                       ": sha256 must be 64 hex digits, got '", variant.sha256(), "'"));
    }
    v1::BatchVariant* in_config = header_.mutable_config()->add_variant();
    in_config->set_batch_size(variant.batch_size());
    in_config->set_sha256(digest);
    ExpectedNeff& neff = neffs_.emplace_back();
    neff.batch_size = variant.batch_size();
    neff.size = variant.size();
    neff.sha256 = digest;
  }
  // Batch sizes (none 0, none twice), the batching fields and pipeline_depth, before any byte
  // is taken.
  if (absl::Status status = CheckModelConfig(header_.config()); !status.ok()) {
    return absl::Status(status.code(), absl::StrCat("LoadModel: ", status.message()));
  }
  for (ExpectedNeff& neff : neffs_) neff.bytes.reserve(neff.size);
  return absl::OkStatus();
}

absl::Status ModelUpload::TakeChunk(const std::string& chunk) {
  const std::string& name = header_.config().name();
  if (!header_.repository_path().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("LoadModel '", name, "': chunks sent for a repository load"));
  }
  // Bounded by the announced sizes, themselves bounded by --max-model-bytes: a client cannot
  // make the daemon buffer more than it announced. Checked before any byte is taken, so that
  // too many bytes are named as such (not as the digest they would spoil).
  uint64_t room = 0;
  for (size_t i = receiving_; i < neffs_.size(); ++i)
    room += neffs_[i].size - neffs_[i].bytes.size();
  if (chunk.size() > room) {
    return absl::DataLossError(
        header_.variants().empty()
            ? absl::StrCat("LoadModel '", name,
                           "': more bytes than total_size=", header_.total_size(), " were sent")
            : absl::StrCat("LoadModel '", name,
                           "': more bytes than the variants' sizes add up to were sent"));
  }
  absl::string_view rest = chunk;
  while (!rest.empty()) {
    ExpectedNeff& neff = neffs_[receiving_];
    const absl::string_view part = rest.substr(0, neff.size - neff.bytes.size());
    neff.bytes.append(part.data(), part.size());
    digest_.Update(part);
    rest.remove_prefix(part.size());
    if (neff.bytes.size() < neff.size) break;
    // The NEFF is whole: check it now, so that a wrong variant ends the stream at once.
    if (std::string digest = digest_.FinalHex(); digest != neff.sha256) {
      return absl::DataLossError(absl::StrCat(
          "LoadModel '", name, "': SHA-256 of the received ", "bytes", Which(neff), " is ", digest,
          ", the header announced ", neff.sha256, "; nothing was loaded"));
    }
    ++receiving_;
  }
  return absl::OkStatus();
}

absl::StatusOr<LoadSpec> ModelUpload::Finish() {
  if (!have_header_) return absl::InvalidArgumentError("LoadModel: no header was sent");
  if (!header_.repository_path().empty()) return FinishRepositoryLoad();
  const std::string& name = header_.config().name();
  if (receiving_ < neffs_.size()) {
    const ExpectedNeff& neff = neffs_[receiving_];
    if (header_.variants().empty()) {
      return absl::DataLossError(
          absl::StrCat("LoadModel '", name, "': received ", neff.bytes.size(),
                       " bytes, the header announced total_size=", header_.total_size()));
    }
    return absl::DataLossError(absl::StrCat("LoadModel '", name, "': received ", neff.bytes.size(),
                                            " bytes", Which(neff), ", the header announced ",
                                            neff.size, "; nothing was loaded"));
  }
  ModelNeffs neffs;
  for (ExpectedNeff& neff : neffs_) {
    neffs.push_back(std::make_shared<const std::string>(std::move(neff.bytes)));
  }
  absl::StatusOr<LoadSpec> spec = LoadSpecFromConfig(header_.config(), std::move(neffs),
                                                     ModelSource::kUpload, /*persist=*/true);
  if (!spec.ok()) return spec;
  // Verified as the bytes arrived: the store records the digests without hashing again.
  if (spec->variants.empty()) {
    spec->neff_sha256 = neffs_.front().sha256;
  } else {
    for (size_t i = 0; i < spec->variants.size(); ++i) {
      spec->variants[i].neff_sha256 = neffs_[i].sha256;
    }
  }
  return spec;
}

absl::StatusOr<LoadSpec> ModelUpload::FinishRepositoryLoad() {
  absl::StatusOr<RepositoryModel> model = repository_->Resolve(header_.repository_path());
  if (!model.ok()) return model.status();
  return RepositoryModelLoadSpec(*model, MergeConfig(model->config, header_.config()),
                                 /*persist=*/true);
}

}  // namespace neuronserve
