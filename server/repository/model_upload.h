// ModelUpload: the sequence of one LoadModel stream, without gRPC.
//
// The first message is the header: an upload's (name, total_size bounded by --max-model-bytes,
// SHA-256; or, for a batched model, each variant's batch size, size and SHA-256, their sum so
// bounded) or a repository load's (repository_path). An upload's chunks follow and are appended
// and hashed as they arrive, the variants' bytes one after another, never beyond what the header
// announced, so a client cannot make the daemon buffer more. Each NEFF's SHA-256 is checked as
// soon as its last byte arrives, and its size at the end of the stream (DATA_LOSS on a mismatch,
// naming the variant, and nothing is kept); the result is what to load. A repository load sends
// no chunks and is resolved inside the repository at the end. LoadModelReactor feeds it the
// stream's messages and finishes the call with its errors.
//
// Thread safety: none; one stream's messages arrive one at a time (gRPC runs a reactor's reads
// in order). Ownership: holds the received bytes until Finish hands them to the LoadSpec, with
// their verified digest (so the model store does not hash them again); the repository is
// borrowed and must outlive the upload.
#ifndef NEURON_SERVE_SERVER_REPOSITORY_MODEL_UPLOAD_H_
#define NEURON_SERVE_SERVER_REPOSITORY_MODEL_UPLOAD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/lifecycle/version_loader.h"
#include "neuronserve/v1/neuron_serving.pb.h"
#include "server/repository/model_repository.h"
#include "util/sha256.h"

namespace neuronserve {

class ModelUpload {
 public:
  // `repository` is null without --model-repository.
  ModelUpload(const ModelRepository* repository, uint64_t max_model_bytes);

  // One message of the stream, in order. An error ends the stream: the call fails with it and
  // the upload takes nothing more.
  absl::Status TakeMessage(const v1::LoadModelRequest& request);

  // The client finished sending: what to load (an upload's bytes, moved out, or the repository's
  // model with the header's overrides), or why not. Call once, after every TakeMessage was OK.
  absl::StatusOr<LoadSpec> Finish();

 private:
  absl::Status TakeHeader(const v1::LoadModelHeader& header);
  absl::Status TakeChunk(const std::string& chunk);
  absl::StatusOr<LoadSpec> FinishRepositoryLoad();

  // One NEFF the stream carries: the model's one (batch 0) or a variant.
  struct ExpectedNeff {
    uint32_t batch_size = 0;
    uint64_t size = 0;
    std::string sha256;  // lower-case, checked
    std::string bytes;   // received so far
  };
  absl::Status TakeVariants(const v1::LoadModelHeader& header);
  // " (the variant of batch N)" or "", for messages.
  static std::string Which(const ExpectedNeff& neff);

  const ModelRepository* const repository_;
  const uint64_t max_model_bytes_;
  bool have_header_ = false;
  v1::LoadModelHeader header_;  // an upload's config holds its variants once checked
  std::vector<ExpectedNeff> neffs_;
  size_t receiving_ = 0;  // index in neffs_ of the NEFF the next bytes belong to
  Sha256 digest_;         // of neffs_[receiving_]'s bytes so far
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REPOSITORY_MODEL_UPLOAD_H_
