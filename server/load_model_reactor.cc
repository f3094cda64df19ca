#include "server/load_model_reactor.h"

#include <utility>

#include "server/grpc_status.h"
#include "server/model_status.h"
#include "server/security/rpc_scope.h"

namespace neuronserve {

LoadModelReactor::LoadModelReactor(const ModelLoadingContext& context,
                                   v1::LoadModelResponse* response, AdminCallAudit audit,
                                   std::optional<UploadSlots::Slot> slot)
    : context_(context),
      response_(response),
      upload_(context.repository, context.max_model_bytes),
      audit_(std::move(audit)),
      slot_(std::move(slot)) {
  StartRead(&request_);
}

void LoadModelReactor::OnReadDone(bool ok) {
  if (!ok) {  // the client finished sending (or went away; Finish is then a no-op)
    absl::StatusOr<LoadSpec> spec = upload_.Finish();
    if (!spec.ok()) {
      FinishAudited(ToGrpcStatus(spec.status()));
      return;
    }
    StartLoad(*std::move(spec));
    return;
  }
  if (audit_.log != nullptr && model_.empty() && request_.has_header()) {
    const v1::LoadModelHeader& header = request_.header();
    model_ = !header.config().name().empty() ? header.config().name() : header.repository_path();
  }
  if (absl::Status taken = upload_.TakeMessage(request_); !taken.ok()) {
    FinishAudited(ToGrpcStatus(taken));
    return;
  }
  StartRead(&request_);
}

void LoadModelReactor::StartLoad(LoadSpec spec) {
  context_.registry->Load(std::move(spec), [this](absl::StatusOr<ModelInfo> result) {
    if (!result.ok()) {
      FinishAudited(ToGrpcStatus(result.status()));
      return;
    }
    *response_->mutable_model() = ToModelStatus(*result);
    FinishAudited(grpc::Status::OK);
  });
}

void LoadModelReactor::FinishAudited(const grpc::Status& status) {
  // The upload is over: its slot is free before the client hears the answer, so a client that
  // loads models one after another never finds its own previous call still holding one.
  slot_.reset();
  audit_.Record(RpcName(rpc::kLoadModel), model_, status);
  Finish(status);
}

}  // namespace neuronserve
