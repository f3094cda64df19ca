// What the daemon's health probes report, computed from the daemon's state in one place, so
// gRPC health, /readyz and /livez always tell the same truth.
//
//   ""                 SERVING once the runtime is up and every startup model has reached
//                      READY or FAILED, while not draining and at least one core is healthy.
//   each model's name  SERVING while READY with at least one healthy replica.
//   kLivenessService   SERVING while no core worker has been stuck in one execution past the
//                      execution timeout (the watchdog): a liveness probe restarts the daemon.
#ifndef NEURON_SERVE_CORE_HEALTH_HEALTH_EVALUATOR_H_
#define NEURON_SERVE_CORE_HEALTH_HEALTH_EVALUATOR_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "core/serving/execution/running_execution.h"
#include "core/serving/model/model_info.h"

namespace neuronserve {

// A '/' can never be part of a model name, so this never collides with one.
inline constexpr char kLivenessService[] = "neuronserve/liveness";

struct HealthInputs {
  bool startup_done = false;
  bool draining = false;
  std::vector<bool> core_healthy;  // per visible core
  std::vector<ModelInfo> models;
  std::optional<RunningExecution> longest_execution;
  absl::Duration execution_timeout = absl::InfiniteDuration();
};

struct HealthReport {
  bool serving = false;  // service ""
  std::string serving_reason;  // why not, when not
  bool live = true;
  std::string live_reason;  // why not, when not
  std::map<std::string, bool> models;  // by name: SERVING or not
};

HealthReport EvaluateHealth(const HealthInputs& inputs);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_HEALTH_HEALTH_EVALUATOR_H_
