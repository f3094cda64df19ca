#include "server/rest/models_json.h"

#include "base/dtype.h"
#include "nlohmann/json.hpp"

namespace neuronserve {
namespace {

nlohmann::json TensorsJson(const std::vector<TensorSpec>& tensors, TensorUsage usage) {
  nlohmann::json list = nlohmann::json::array();
  for (const TensorSpec& tensor : tensors) {
    if (tensor.usage != usage) continue;
    list.push_back({{"name", tensor.name},
                    {"dtype", std::string(DataTypeName(tensor.dtype))},
                    {"shape", tensor.shape},
                    {"bytes", tensor.byte_size}});
  }
  return list;
}

}  // namespace

std::string ModelsJson(const std::vector<ModelInfo>& models, const HealthReport& health) {
  nlohmann::json out;
  out["ready"] = health.serving;
  out["models"] = nlohmann::json::array();
  for (const ModelInfo& model : models) {
    nlohmann::json replicas = nlohmann::json::array();
    for (const ReplicaInfo& replica : model.replicas) {
      replicas.push_back({{"cores", {replica.cores.start, replica.cores.count}},
                          {"healthy", replica.healthy},
                          {"executions", replica.executions},
                          {"tensor_sets", replica.pipeline_depth},
                          {"tensor_bytes", replica.tensor_bytes}});
    }
    auto serving = health.models.find(model.identity.name);
    out["models"].push_back({
        {"name", model.identity.name},
        {"version", model.identity.version},
        {"state", std::string(ModelStateName(model.state))},
        {"serving", serving != health.models.end() && serving->second},
        {"error", model.error},
        {"source", std::string(ModelSourceName(model.identity.source))},
        {"replicas", std::move(replicas)},
        {"queue_depth", model.queue_depth},
        {"requests_succeeded", model.requests_succeeded},
        {"requests_failed", model.requests_failed},
        {"load_duration_seconds", absl::ToDoubleSeconds(model.load_duration)},
        {"inputs", TensorsJson(model.tensors, TensorUsage::kInput)},
        {"outputs", TensorsJson(model.tensors, TensorUsage::kOutput)},
        // As GetModel's: > 0 when shape[0] of every tensor is the request's rows.
        {"max_batch_size", model.max_batch_size},
        {"batch_variants", model.batch_variants},
    });
  }
  // Invalid UTF-8 (there should be none: names are ASCII) is replaced, never thrown on.
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace neuronserve
