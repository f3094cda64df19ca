// LoadModelReactor: the server side of the client-streaming LoadModel call.
//
// A thin adapter: each message read goes to a ModelUpload (server/repository/model_upload.h: the
// header, the chunks bounded by --max-model-bytes, the size and SHA-256 checks), whose first error
// finishes the call. The method is raw (server/grpc/raw_message.h): a message that does not
// parse ends the call with INVALID_ARGUMENT naming LoadModel and the message's position in the
// stream, and what was received is dropped. At the end of the stream the registry loads what the
// upload produced on its own thread and the call finishes from there: no gRPC thread waits for
// nrt_load.
//
// Ownership: gRPC owns the reactor from its construction until OnDone, which deletes it; the
// context's registry and repository outlive every call.
#ifndef NEURON_SERVE_SERVER_NATIVE_LOAD_MODEL_REACTOR_H_
#define NEURON_SERVE_SERVER_NATIVE_LOAD_MODEL_REACTOR_H_

#include <cstdint>
#include <optional>

#include "core/lifecycle/model_registry.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/server_callback.h"
#include "neuronserve/v1/neuron_serving.pb.h"
#include "server/admission/upload_slots.h"
#include "server/grpc/call_guard.h"
#include "server/repository/model_loading_context.h"
#include "server/repository/model_repository.h"
#include "server/repository/model_upload.h"

namespace neuronserve {

class LoadModelReactor final : public grpc::ServerReadReactor<grpc::ByteBuffer> {
 public:
  // `audit`: where the call's audit line goes when it ends (nowhere without an audit log).
  // `slot`: the upload slot this call took (see ModelLoadingContext::uploads), given back when
  // the call finishes. `raw_response` is gRPC's buffer for the serialized LoadModelResponse.
  LoadModelReactor(const ModelLoadingContext& context, grpc::ByteBuffer* raw_response,
                   AdminCallAudit audit = {}, std::optional<UploadSlots::Slot> slot = std::nullopt);

  void OnReadDone(bool ok) override;
  void OnDone() override { delete this; }

 private:
  void StartLoad(LoadSpec spec);
  // Finishes the call, writing its audit line first.
  void FinishAudited(const grpc::Status& status);

  const ModelLoadingContext context_;
  grpc::ByteBuffer* const raw_response_;
  grpc::ByteBuffer raw_request_;  // the message the outstanding read fills
  v1::LoadModelRequest request_;  // parsed from it
  size_t messages_read_ = 0;      // for a parse error's position
  // Reset when the call fails, so that the bytes received are dropped at once.
  std::optional<ModelUpload> upload_;
  const AdminCallAudit audit_;
  std::optional<UploadSlots::Slot> slot_;  // given back at Finish
  std::string model_;  // the header's model name (or repository path), for the audit line
  // An upload's bytes received so far, for the audit line; unset for a repository load.
  std::optional<uint64_t> uploaded_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_NATIVE_LOAD_MODEL_REACTOR_H_
