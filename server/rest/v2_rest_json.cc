#include "server/rest/v2_rest_json.h"

#include <cstdint>
#include <string>
#include <utility>

namespace neuronserve {
namespace {

using Json = nlohmann::json;

Json TensorsJson(
    const google::protobuf::RepeatedPtrField<inference::ModelMetadataResponse::TensorMetadata>&
        tensors) {
  Json out = Json::array();
  for (const auto& tensor : tensors) {
    out.push_back(
        Json{{"name", tensor.name()},
             {"datatype", tensor.datatype()},
             {"shape", std::vector<int64_t>(tensor.shape().begin(), tensor.shape().end())}});
  }
  return out;
}

Json DurationJson(const inference::StatisticDuration& duration) {
  return Json{{"count", duration.count()}, {"ns", duration.ns()}};
}

Json BatchStatisticsJson(const inference::ModelStatistics& stats) {
  Json batches = Json::array();
  for (const inference::InferBatchStatistics& batch : stats.batch_stats()) {
    batches.push_back(Json{{"batch_size", batch.batch_size()},
                           {"compute_input", DurationJson(batch.compute_input())},
                           {"compute_infer", DurationJson(batch.compute_infer())},
                           {"compute_output", DurationJson(batch.compute_output())}});
  }
  return batches;
}

}  // namespace

HttpResponse JsonResponse(int status, const Json& json) {
  HttpResponse response;
  response.status = status;
  response.content_type = "application/json";
  response.body = json.dump(-1, ' ', false, Json::error_handler_t::replace);
  return response;
}

Json ServerMetadataJson(const inference::ServerMetadataResponse& metadata) {
  return Json{{"name", metadata.name()},
              {"version", metadata.version()},
              {"extensions", std::vector<std::string>(metadata.extensions().begin(),
                                                      metadata.extensions().end())}};
}

Json ModelMetadataJson(const inference::ModelMetadataResponse& metadata) {
  return Json{{"name", metadata.name()},
              {"versions",
               std::vector<std::string>(metadata.versions().begin(), metadata.versions().end())},
              {"platform", metadata.platform()},
              {"inputs", TensorsJson(metadata.inputs())},
              {"outputs", TensorsJson(metadata.outputs())}};
}

Json StatisticsJson(const inference::ModelStatisticsResponse& response) {
  Json models = Json::array();
  for (const inference::ModelStatistics& stats : response.model_stats()) {
    const inference::InferStatistics& infer = stats.inference_stats();
    models.push_back(
        Json{{"name", stats.name()},
             {"version", stats.version()},
             {"last_inference", stats.last_inference()},
             {"inference_count", stats.inference_count()},
             {"execution_count", stats.execution_count()},
             {"inference_stats", Json{{"success", DurationJson(infer.success())},
                                      {"fail", DurationJson(infer.fail())},
                                      {"queue", DurationJson(infer.queue())},
                                      {"compute_input", DurationJson(infer.compute_input())},
                                      {"compute_infer", DurationJson(infer.compute_infer())},
                                      {"compute_output", DurationJson(infer.compute_output())},
                                      {"cache_hit", DurationJson(infer.cache_hit())},
                                      {"cache_miss", DurationJson(infer.cache_miss())}}},
             {"batch_stats", BatchStatisticsJson(stats)}});
  }
  return Json{{"model_stats", std::move(models)}};
}

Json RepositoryIndexJson(const inference::RepositoryIndexResponse& index) {
  Json models = Json::array();
  for (const auto& entry : index.models()) {
    Json model{{"name", entry.name()}};
    if (!entry.version().empty()) model["version"] = entry.version();
    if (!entry.state().empty()) model["state"] = entry.state();
    if (!entry.reason().empty()) model["reason"] = entry.reason();
    models.push_back(std::move(model));
  }
  return models;
}

Json SharedMemoryRegionsJson(const std::vector<SharedMemoryRegionStatus>& regions) {
  Json answer = Json::array();
  for (const SharedMemoryRegionStatus& region : regions) {
    answer.push_back(Json{{"name", region.name},
                          {"key", region.key},
                          {"offset", region.offset},
                          {"byte_size", region.byte_size}});
  }
  return answer;
}

}  // namespace neuronserve
