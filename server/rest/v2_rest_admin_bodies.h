// The JSON bodies of the Open Inference Protocol's REST calls besides inference, read into what
// the gRPC requests carry: a shared-memory region's registration, the repository index's filter
// and a repository load's parameters. The REST routes (v2_rest_routes.cc) call these; each
// refusal is INVALID_ARGUMENT saying what the body must be.
//
// Thread safety: pure functions. Ownership: the results own their values.
#ifndef NEURON_SERVE_SERVER_REST_V2_REST_ADMIN_BODIES_H_
#define NEURON_SERVE_SERVER_REST_V2_REST_ADMIN_BODIES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "google/protobuf/map.h"
#include "inference/grpc_service.pb.h"

namespace neuronserve {

// POST /v2/systemsharedmemory/region/{name}/register: {"key": "...", "offset": N,
// "byte_size": N} (offset optional, 0). Errors name the region `name`.
struct RestRegisterBody {
  std::string key;
  uint64_t offset = 0;
  uint64_t byte_size = 0;
};
absl::Status ParseRestRegisterBody(std::string_view body, const std::string& name,
                                   RestRegisterBody& out);

// POST /v2/repository/index: empty, or {"ready": true|false}; `ready_only` is left false
// unless the body says true. Errors name RepositoryIndex.
absl::Status ParseRestIndexBody(std::string_view body, bool& ready_only);

// POST /v2/repository/models/{name}/load: {"parameters": {"config": "<JSON>", "file:<path>":
// "<base64>"}}: the body's parameters as the gRPC request's (a file's base64 decoded into its
// bytes_param, as tritonclient.http encodes it); an empty body has none. Errors get
// RepositoryModelLoad's prefix from the caller (V2LoadRefusal).
absl::Status ParseRestLoadParameters(
    std::string_view body,
    google::protobuf::Map<std::string, inference::ModelRepositoryParameter>& parameters);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REST_V2_REST_ADMIN_BODIES_H_
