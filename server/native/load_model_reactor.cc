#include "server/native/load_model_reactor.h"

#include <utility>

#include "server/grpc/grpc_status.h"
#include "server/grpc/raw_message.h"
#include "server/native/model_status.h"
#include "server/security/rpc_scope.h"

namespace neuronserve {

LoadModelReactor::LoadModelReactor(const ModelLoadingContext& context,
                                   grpc::ByteBuffer* raw_response, AdminCallAudit audit,
                                   std::optional<UploadSlots::Slot> slot)
    : context_(context),
      raw_response_(raw_response),
      upload_(std::in_place, context.repository, context.max_model_bytes),
      audit_(std::move(audit)),
      slot_(std::move(slot)) {
  StartRead(&raw_request_);
}

void LoadModelReactor::OnReadDone(bool ok) {
  if (!ok) {  // the client finished sending (or went away; Finish is then a no-op)
    absl::StatusOr<LoadSpec> spec = upload_->Finish();
    if (!spec.ok()) {
      FinishAudited(ToGrpcStatus(spec.status()));
      return;
    }
    StartLoad(*std::move(spec));
    return;
  }
  const std::string_view rpc_name = RpcName(rpc::kLoadModel);
  absl::Status parsed = ParseMessage(rpc_name, raw_request_, request_, ++messages_read_);
  raw_request_.Clear();  // parsed (or not): the message holds its own copy of the bytes
  if (!parsed.ok()) {
    FinishAudited(ToGrpcStatus(parsed));
    return;
  }
  if (audit_.log != nullptr && model_.empty() && request_.has_header()) {
    const v1::LoadModelHeader& header = request_.header();
    model_ = !header.config().name().empty() ? header.config().name() : header.repository_path();
  }
  if (request_.has_header() && request_.header().repository_path().empty()) uploaded_ = 0;
  if (request_.part_case() == v1::LoadModelRequest::kChunk && uploaded_.has_value()) {
    *uploaded_ += request_.chunk().size();
  }
  if (absl::Status taken = upload_->TakeMessage(request_); !taken.ok()) {
    FinishAudited(ToGrpcStatus(taken));
    return;
  }
  StartRead(&raw_request_);
}

void LoadModelReactor::StartLoad(LoadSpec spec) {
  context_.registry->Load(std::move(spec), [this](absl::StatusOr<ModelInfo> result) {
    if (!result.ok()) {
      FinishAudited(ToGrpcStatus(result.status()));
      return;
    }
    v1::LoadModelResponse response;
    *response.mutable_model() = ToModelStatus(*result);
    const std::string_view rpc_name = RpcName(rpc::kLoadModel);
    FinishAudited(ToGrpcStatus(SerializeMessage(rpc_name, response, *raw_response_)));
  });
}

void LoadModelReactor::FinishAudited(const grpc::Status& status) {
  // The upload is over: its slot is free before the client hears the answer, so a client that
  // loads models one after another never finds its own previous call still holding one.
  slot_.reset();
  // Nothing of a failed upload is kept: its bytes go now, not when gRPC is done with the call.
  if (!status.ok()) {
    upload_.reset();
    request_.Clear();
  }
  audit_.Record(RpcName(rpc::kLoadModel), model_, status, {}, uploaded_);
  Finish(status);
}

}  // namespace neuronserve
