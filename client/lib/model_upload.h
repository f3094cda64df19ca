// The client side of the LoadModel stream: a header, then the NEFF (or a batched model's
// variants, one after another) in 1 MiB chunks (so no message comes near a size limit however
// large the model), with progress after each chunk.
// The bytes come from a ChunkSource, so an in-memory NEFF and a file share one code path.
#ifndef NEURON_SERVE_CLIENT_LIB_MODEL_UPLOAD_H_
#define NEURON_SERVE_CLIENT_LIB_MODEL_UPLOAD_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "client/lib/file_contents.h"
#include "client/lib/grpc_status.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/status.h"
#include "neuronserve/v1/neuron_serving.grpc.pb.h"

namespace neuronserve::client {

inline constexpr size_t kUploadChunkBytes = size_t{1} << 20;

using UploadProgress = std::function<void(uint64_t sent, uint64_t total)>;
// The next piece of the NEFF (at most kUploadChunkBytes), empty at the end; valid until the
// next call.
using ChunkSource = std::function<absl::StatusOr<absl::Span<const uint8_t>>()>;

// Sends `header`, then every chunk, half-closes and waits for the answer. A chunk source error
// cancels the call and is returned as it is. When the server fails the stream early (a bad
// header, the size limit) the remaining chunks are not sent and the server's status is returned.
absl::StatusOr<v1::LoadModelResponse> StreamLoadModel(v1::NeuronServing::StubInterface& stub,
                                                      grpc::ClientContext& context,
                                                      const v1::LoadModelHeader& header,
                                                      const ChunkSource& next_chunk,
                                                      const UploadProgress& progress,
                                                      const CallStatusConverter& convert);

// The header of an upload: the config, the size, and the SHA-256 the server checks both against.
v1::LoadModelHeader UploadHeader(const v1::ModelConfig& config, uint64_t total_size,
                                 std::string sha256);

// The bytes an upload's header announces: total_size, or the sum of its variants' sizes.
uint64_t UploadBytes(const v1::LoadModelHeader& header);

// The chunks of each source in turn: a batched model's variants, one after another.
ChunkSource ChainedChunks(std::vector<ChunkSource> sources);

// Chunks of `bytes`, which must outlive the source.
ChunkSource SpanChunks(absl::Span<const uint8_t> bytes);

// Reads `reader` to its end once to hash it: *size gets the bytes actually read (not the size
// from when it was opened, in case the file is still being written) and the file is rewound.
absl::StatusOr<std::string> HashFile(FileReader& reader, uint64_t* size);

// Chunks of the first `total` bytes of `reader`, through `buffer`; both must outlive the source.
ChunkSource FileChunks(FileReader& reader, uint64_t total, std::vector<uint8_t>& buffer);

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_MODEL_UPLOAD_H_
