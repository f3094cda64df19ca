// The JSON summary of the models that GET /v1/models answers: for dashboards and scripts that
// speak HTTP, the same facts ListModels gives over gRPC, plus each model's health.
#ifndef NEURON_SERVE_SERVER_REST_MODELS_JSON_H_
#define NEURON_SERVE_SERVER_REST_MODELS_JSON_H_

#include <string>
#include <vector>

#include "core/health/health_evaluator.h"
#include "core/serving/model/model_info.h"

namespace neuronserve {

// {"ready": bool, "models": [{"name", "version", "state", "serving", "error", "source",
//   "replicas": [{"cores": [first, count], "healthy", "executions"}], "queue_depth",
//   "requests_succeeded", "requests_failed", "load_duration_seconds",
//   "inputs"/"outputs": [{"name", "dtype", "shape", "bytes"}]}]}
std::string ModelsJson(const std::vector<ModelInfo>& models, const HealthReport& health);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_REST_MODELS_JSON_H_
