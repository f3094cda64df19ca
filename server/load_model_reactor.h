// LoadModelReactor: the server side of the client-streaming LoadModel call.
//
// The first message is the header; an upload's chunks follow and are appended and hashed as
// they arrive, bounded by --max-model-bytes. At the end of the stream the size and SHA-256 are
// checked (DATA_LOSS on a mismatch, and nothing is kept), then the registry loads the model on
// its own thread and the call finishes from there: no gRPC thread waits for nrt_load.
#ifndef NEURON_SERVE_SERVER_LOAD_MODEL_REACTOR_H_
#define NEURON_SERVE_SERVER_LOAD_MODEL_REACTOR_H_

#include <memory>
#include <string>

#include "core/lifecycle/model_registry.h"
#include "grpcpp/support/server_callback.h"
#include "neuronserve/v1/neuron_serving.pb.h"
#include "server/model_repository.h"
#include "util/sha256.h"

namespace neuronserve {

struct ModelLoadingContext {
  ModelRegistry* registry = nullptr;
  const ModelRepository* repository = nullptr;  // null without --model-repository
  uint64_t max_model_bytes = 0;
};

class LoadModelReactor final : public grpc::ServerReadReactor<v1::LoadModelRequest> {
 public:
  LoadModelReactor(const ModelLoadingContext& context, v1::LoadModelResponse* response);

  void OnReadDone(bool ok) override;
  void OnDone() override { delete this; }

 private:
  // Returns an error to finish with, or OK to read on.
  absl::Status TakeHeader(const v1::LoadModelHeader& header);
  absl::Status TakeChunk(const std::string& chunk);
  void OnEndOfStream();
  void StartLoad(LoadSpec spec);

  const ModelLoadingContext context_;
  v1::LoadModelResponse* const response_;
  v1::LoadModelRequest request_;
  bool have_header_ = false;
  v1::LoadModelHeader header_;
  std::string neff_;
  Sha256 digest_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_LOAD_MODEL_REACTOR_H_
