// The Open Inference Protocol's answers (server/oip/v2_answers.h, the gRPC service's messages)
// rendered as its REST form's JSON, Triton's layout: what the REST routes (v2_rest_routes.cc)
// answer besides inference (v2_rest_infer_call.h) and the model configuration (triton_json.h).
//
// Thread safety: pure functions.
#ifndef NEURON_SERVE_SERVER_REST_V2_REST_JSON_H_
#define NEURON_SERVE_SERVER_REST_V2_REST_JSON_H_

#include <vector>

#include "inference/grpc_service.pb.h"
#include "nlohmann/json.hpp"
#include "server/http/http_exchange.h"
#include "server/shared_memory/shared_memory_registry.h"

namespace neuronserve {

// A JSON answer: `json` with the HTTP status `status`, as application/json.
HttpResponse JsonResponse(int status, const nlohmann::json& json);

// {"name", "version", "extensions": [...]}
nlohmann::json ServerMetadataJson(const inference::ServerMetadataResponse& metadata);
// {"name", "versions", "platform", "inputs"/"outputs": [{"name", "datatype", "shape"}]}
nlohmann::json ModelMetadataJson(const inference::ModelMetadataResponse& metadata);
// Triton's statistics layout: {"model_stats": [{"name", "version", ..., "inference_stats",
// "batch_stats"}]}, each duration {"count", "ns"}.
nlohmann::json StatisticsJson(const inference::ModelStatisticsResponse& response);
// [{"name", "version"?, "state"?, "reason"?}]: the fields the index gives, the empty ones left out.
nlohmann::json RepositoryIndexJson(const inference::RepositoryIndexResponse& index);
// [{"name", "key", "offset", "byte_size"}]
nlohmann::json SharedMemoryRegionsJson(const std::vector<SharedMemoryRegionStatus>& regions);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REST_V2_REST_JSON_H_
