// ModelLoadingContext: what every front end that loads models needs (the gRPC LoadModel stream,
// the v2 repository calls over gRPC and over HTTP): the registry, the repository folder, the
// byte limit and the upload slots. gRPC-free, so the HTTP front end can hold one.
//
// Thread safety: a plain struct of pointers, copied into each service; what they point to is
// safe to use from any thread. Ownership: borrows everything; the daemon owns it all and keeps
// it alive longer than every call.
#ifndef NEURON_SERVE_SERVER_REPOSITORY_MODEL_LOADING_CONTEXT_H_
#define NEURON_SERVE_SERVER_REPOSITORY_MODEL_LOADING_CONTEXT_H_

#include <cstdint>

namespace neuronserve {

class ModelRegistry;
class ModelRepository;
class UploadSlots;

struct ModelLoadingContext {
  ModelRegistry* registry = nullptr;
  const ModelRepository* repository = nullptr;  // null without --model-repository
  uint64_t max_model_bytes = 0;
  // --max-concurrent-uploads: each LoadModel call holds a slot until gRPC is done with it
  // (null: no limit). Must outlive every call.
  UploadSlots* uploads = nullptr;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REPOSITORY_MODEL_LOADING_CONTEXT_H_
