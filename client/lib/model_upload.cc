#include "client/lib/model_upload.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "util/sha256.h"

namespace neuronserve::client {

absl::StatusOr<v1::LoadModelResponse> StreamLoadModel(v1::NeuronServing::StubInterface& stub,
                                                      grpc::ClientContext& context,
                                                      const v1::LoadModelHeader& header,
                                                      const ChunkSource& next_chunk,
                                                      const UploadProgress& progress,
                                                      const CallStatusConverter& convert) {
  v1::LoadModelResponse response;
  std::unique_ptr<grpc::ClientWriterInterface<v1::LoadModelRequest>> writer =
      stub.LoadModel(&context, &response);

  v1::LoadModelRequest request;
  *request.mutable_header() = header;
  // A failed Write means the call is over (the server answered early, or the connection went);
  // Finish then has the reason, so stop writing and ask it.
  bool open = writer->Write(request);
  absl::Status local_error;
  uint64_t sent = 0;
  while (open) {
    absl::StatusOr<absl::Span<const uint8_t>> chunk = next_chunk();
    if (!chunk.ok()) {
      local_error = chunk.status();
      break;
    }
    if (chunk->empty()) break;
    request.set_chunk(reinterpret_cast<const char*>(chunk->data()), chunk->size());
    open = writer->Write(request);
    if (!open) break;
    sent += chunk->size();
    if (progress) progress(sent, UploadBytes(header));
  }
  if (!local_error.ok()) {
    // Nothing may be kept of a partial upload; cancelling tells the server so at once.
    context.TryCancel();
    static_cast<void>(writer->Finish());
    return local_error;
  }
  if (open) writer->WritesDone();
  grpc::Status status = writer->Finish();
  if (!status.ok()) return convert(status);
  return response;
}

v1::LoadModelHeader UploadHeader(const v1::ModelConfig& config, uint64_t total_size,
                                 std::string sha256) {
  v1::LoadModelHeader header;
  *header.mutable_config() = config;
  header.set_total_size(total_size);
  header.set_sha256(std::move(sha256));
  return header;
}

uint64_t UploadBytes(const v1::LoadModelHeader& header) {
  uint64_t total = header.total_size();
  for (const v1::VariantUpload& variant : header.variants()) total += variant.size();
  return total;
}

ChunkSource ChainedChunks(std::vector<ChunkSource> sources) {
  return [sources = std::move(sources),
          current = size_t{0}]() mutable -> absl::StatusOr<absl::Span<const uint8_t>> {
    for (; current < sources.size(); ++current) {
      absl::StatusOr<absl::Span<const uint8_t>> chunk = sources[current]();
      if (!chunk.ok() || !chunk->empty()) return chunk;
    }
    return absl::Span<const uint8_t>();
  };
}

ChunkSource SpanChunks(absl::Span<const uint8_t> bytes) {
  return [bytes, offset = size_t{0}]() mutable -> absl::StatusOr<absl::Span<const uint8_t>> {
    absl::Span<const uint8_t> chunk = bytes.subspan(offset, kUploadChunkBytes);
    offset += chunk.size();
    return chunk;
  };
}

absl::StatusOr<std::string> HashFile(FileReader& reader, uint64_t* size) {
  Sha256 digest;
  std::vector<uint8_t> buffer(kUploadChunkBytes);
  *size = 0;
  while (true) {
    absl::StatusOr<size_t> got = reader.Read(absl::MakeSpan(buffer));
    if (!got.ok()) return got.status();
    if (*got == 0) break;
    digest.Update(absl::MakeConstSpan(buffer.data(), *got));
    *size += *got;
  }
  absl::Status rewound = reader.Rewind();
  if (!rewound.ok()) return rewound;
  return digest.FinalHex();
}

ChunkSource FileChunks(FileReader& reader, uint64_t total, std::vector<uint8_t>& buffer) {
  buffer.resize(kUploadChunkBytes);
  return
      [&reader, &buffer, remaining = total]() mutable -> absl::StatusOr<absl::Span<const uint8_t>> {
        const size_t wanted = static_cast<size_t>(std::min<uint64_t>(remaining, buffer.size()));
        absl::StatusOr<size_t> got = reader.Read(absl::MakeSpan(buffer.data(), wanted));
        if (!got.ok()) return got.status();
        // A file that shrank since it was hashed simply ends early; the server then sees fewer
        // bytes than total_size and answers DATA_LOSS, which is the truth.
        remaining -= *got;
        return absl::MakeConstSpan(buffer.data(), *got);
      };
}

}  // namespace neuronserve::client
