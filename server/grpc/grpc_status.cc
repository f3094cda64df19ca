#include "server/grpc/grpc_status.h"

#include <string>

namespace neuronserve {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // absl::StatusCode mirrors grpc::StatusCode value for value (0..16); both enums are the
  // canonical google.rpc.Code.
  static_assert(static_cast<int>(absl::StatusCode::kUnauthenticated) ==
                static_cast<int>(grpc::StatusCode::UNAUTHENTICATED));
  static_assert(static_cast<int>(absl::StatusCode::kResourceExhausted) ==
                static_cast<int>(grpc::StatusCode::RESOURCE_EXHAUSTED));
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

}  // namespace neuronserve
