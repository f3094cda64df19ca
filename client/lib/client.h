// neuronserve::client::Client: the C++ API of a neuron-serve daemon (neuronserve.v1 and
// grpc.health.v1, and inference through the Open Inference Protocol's
// inference.GRPCInferenceService with InferOptions::protocol) over one gRPC channel.
//
// Every method returns absl::Status / absl::StatusOr. A server's error comes back with its gRPC
// code and message unchanged; a server that cannot be reached is UNAVAILABLE naming the target.
// A Client is thread-safe: any number of threads may call it at once. The header names no gRPC
// type (the channel and stubs live in the private Impl), so applications see only Abseil and the
// generated neuronserve.v1 messages.
//
//   absl::StatusOr<std::unique_ptr<Client>> client = Client::Connect({.target = "127.0.0.1:8001"});
//   absl::StatusOr<v1::LoadModelResponse> loaded = (*client)->LoadModelFromFile(config, path);
//   absl::StatusOr<InferResult> result = (*client)->Infer("mlp", {{"input", {1, 4}, values}});
//   // Any dtype: the elements' little-endian bytes and the dtype's name.
//   absl::StatusOr<InferResult> logits = (*client)->Infer(
//       "classifier", {{"input_ids", {1, 16}, {}, "int64", ids_bytes},
//                      {"attention_mask", {1, 16}, {}, "int64", mask_bytes}});
//   // Tensors through shared memory instead of the request (shared_memory_object.h):
//   absl::StatusOr<SharedMemoryObject> shm = SharedMemoryObject::Create("/my-tensors", 1 << 20);
//   (*client)->RegisterSharedMemory("tensors", shm->key(), 0, shm->size());
//   InferOptions options;
//   options.output_shared_memory["output"] = {"tensors", 4096, 4096};
//   result = (*client)->Infer("mlp", {{"input", {1, 4}, {}, "float32", {}, {{"tensors", 0, 16}}}},
//                             options);
//   ReadSharedMemoryOutput(shm->bytes(), result->outputs["output"]);  // shared_memory_tensors.h
#ifndef NEURON_SERVE_CLIENT_LIB_CLIENT_H_
#define NEURON_SERVE_CLIENT_LIB_CLIENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "client/lib/connect_options.h"
#include "client/lib/health_status.h"
#include "client/lib/infer_session.h"
#include "client/lib/infer_types.h"
#include "neuronserve/v1/model_config.pb.h"
#include "neuronserve/v1/neuron_serving.pb.h"

namespace neuronserve::client {

// Called after each chunk of an upload with the bytes sent so far and the NEFF's size.
using LoadProgress = std::function<void(uint64_t sent, uint64_t total)>;

class Client {
 public:
  // Validates the options, reads the token and TLS files, and makes the channel. Does not wait
  // for the server (channels connect lazily, on the first call); see WaitForReady.
  static absl::StatusOr<std::unique_ptr<Client>> Connect(const ConnectOptions& options);

  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client();

  const std::string& target() const;

  // Connects and waits up to `timeout` for the channel to be ready; UNAVAILABLE naming the
  // target if it is not.
  absl::Status WaitForReady(absl::Duration timeout);

  absl::StatusOr<v1::EnumerateResponse> Enumerate();

  // Uploads a NEFF: a header (config, size, SHA-256), then the bytes in 1 MiB chunks, calling
  // `progress` after each. Answers once the model is READY (or failed to load). The whole upload
  // and load run under the client's default deadline, so raise ConnectOptions.timeout for very
  // large models.
  absl::StatusOr<v1::LoadModelResponse> LoadModel(const v1::ModelConfig& config,
                                                  absl::Span<const uint8_t> neff,
                                                  LoadProgress progress = {});
  // The same from a local file, read twice (to hash, then to send) rather than held in memory.
  // NOT_FOUND / PERMISSION_DENIED name the path.
  absl::StatusOr<v1::LoadModelResponse> LoadModelFromFile(const v1::ModelConfig& config,
                                                          const std::string& path,
                                                          LoadProgress progress = {});
  // Uploads a batched model: the same network compiled for several batch sizes, one file
  // each. `config` holds the batching settings (max_batch_size, dynamic_batching) and leaves
  // `variant` and `file` empty; the header lists each file's batch size, size and SHA-256, and
  // the files follow one after another, each read twice as above.
  struct VariantFile {
    uint32_t batch_size = 0;
    std::string path;
  };
  absl::StatusOr<v1::LoadModelResponse> LoadVariantsFromFiles(const v1::ModelConfig& config,
                                                              const std::vector<VariantFile>& files,
                                                              LoadProgress progress = {});
  // Loads a model folder or NEFF under the daemon's --model-repository; `config` overrides its
  // config.pbtxt (an empty config keeps it as it is).
  absl::StatusOr<v1::LoadModelResponse> LoadModelFromRepository(const v1::ModelConfig& config,
                                                                const std::string& repository_path);

  absl::StatusOr<v1::UnloadModelResponse> Unload(const std::string& name);
  absl::StatusOr<std::vector<v1::ModelStatus>> ListModels();
  absl::StatusOr<v1::ModelStatus> GetModel(const std::string& name);

  // Infer, or ModelInfer with options.protocol == Protocol::kV2: the same tensors and result.
  absl::StatusOr<InferResult> Infer(const std::string& model,
                                    const std::vector<NamedTensor>& inputs,
                                    const InferOptions& options = {});

  // A bidirectional InferStream. `timeout` is the deadline of the whole stream: zero means the
  // client's default, absl::InfiniteDuration() none (for a long-lived session). The session
  // keeps the channel alive, so it may outlive this Client. With Protocol::kV2 the stream is
  // ModelStreamInfer (Triton's extension), and every Send must say the same protocol.
  absl::StatusOr<std::unique_ptr<InferSession>> OpenStream(
      absl::Duration timeout = absl::ZeroDuration(), Protocol protocol = Protocol::kNative);

  // Shared memory (Triton's system shared memory extension over Protocol::kV2, the native
  // API's own RPCs otherwise: one registry behind both). The daemon must run with
  // --allow-client-shared-memory, as the same user as this process, sharing its /dev/shm.
  //
  // Registers bytes offset..offset+byte_size of the object `key` (SharedMemoryObject::key(),
  // with its leading '/') under `name`, which requests then use in SharedMemorySpan::region.
  absl::Status RegisterSharedMemory(const std::string& name, const std::string& key,
                                    uint64_t offset, uint64_t byte_size,
                                    Protocol protocol = Protocol::kNative);
  // Unregisters `name` ("" for every region); a region the server does not have is no error.
  // Requests already using it finish first, on the server's side; this does not wait for them.
  absl::Status UnregisterSharedMemory(const std::string& name,
                                      Protocol protocol = Protocol::kNative);
  // The region `name` ("" for all), by name; NOT_FOUND from the server for a name it does not
  // have.
  absl::StatusOr<std::vector<SharedMemoryRegionStatus>> SharedMemoryStatus(
      const std::string& name = "", Protocol protocol = Protocol::kNative);

  // grpc.health.v1 Check. "" is the daemon as a whole; a model's name is that model. A service
  // the server does not know is its NOT_FOUND, returned as the error.
  absl::StatusOr<HealthStatus> CheckHealth(const std::string& service = "");

 private:
  // The channel, the stubs, the token and the default deadline: every gRPC type, in client.cc.
  class Impl;

  explicit Client(std::unique_ptr<Impl> impl);

  const std::unique_ptr<Impl> impl_;
};

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_CLIENT_H_
