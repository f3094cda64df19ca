#include "server/load_model_reactor.h"

#include <utility>

#include "server/grpc_status.h"
#include "server/model_status.h"

namespace neuronserve {

LoadModelReactor::LoadModelReactor(const ModelLoadingContext& context,
                                   v1::LoadModelResponse* response,
                                   std::optional<UploadSlots::Slot> slot)
    : context_(context),
      response_(response),
      upload_(context.repository, context.max_model_bytes),
      slot_(std::move(slot)) {
  StartRead(&request_);
}

void LoadModelReactor::OnReadDone(bool ok) {
  if (!ok) {  // the client finished sending (or went away; Finish is then a no-op)
    absl::StatusOr<LoadSpec> spec = upload_.Finish();
    if (!spec.ok()) {
      Finish(ToGrpcStatus(spec.status()));
      return;
    }
    StartLoad(*std::move(spec));
    return;
  }
  if (absl::Status taken = upload_.TakeMessage(request_); !taken.ok()) {
    Finish(ToGrpcStatus(taken));
    return;
  }
  StartRead(&request_);
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
