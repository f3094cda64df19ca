#include "server/grpc/metadata_limit.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "grpcpp/server_context.h"

namespace neuronserve {

int MetadataLimitFor(uint32_t limit) {
  const int64_t doubled = std::max<int64_t>(int64_t{2} * limit, int64_t{limit} + 8192);
  return static_cast<int>(std::min<int64_t>(doubled, INT32_MAX));
}

grpc::Status CheckMetadataSize(const grpc::CallbackServerContext& context, uint32_t limit) {
  uint64_t size = 0;
  for (const auto& [key, value] : context.client_metadata()) size += key.size() + value.size();
  if (size <= limit) return grpc::Status::OK;
  return grpc::Status(
      grpc::StatusCode::RESOURCE_EXHAUSTED,
      absl::StrCat("request metadata is ", size, " bytes, more than --max-metadata-bytes=", limit));
}

}  // namespace neuronserve
