#include "core/health/health_evaluator.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace neuronserve {

HealthReport EvaluateHealth(const HealthInputs& inputs) {
  HealthReport report;
  const bool any_core_healthy =
      std::any_of(inputs.core_healthy.begin(), inputs.core_healthy.end(),
                  [](bool healthy) { return healthy; });
  if (!inputs.startup_done) {
    report.serving_reason = "starting: the startup models are still loading";
  } else if (inputs.draining) {
    report.serving_reason = "draining: the daemon is shutting down";
  } else if (!any_core_healthy) {
    report.serving_reason = "no NeuronCore is healthy";
  } else {
    report.serving = true;
  }

  for (const ModelInfo& model : inputs.models) {
    const bool has_healthy_replica =
        std::any_of(model.replicas.begin(), model.replicas.end(),
                    [](const ReplicaInfo& replica) { return replica.healthy; });
    report.models[model.identity.name] =
        model.state == ModelState::kReady && has_healthy_replica && !inputs.draining;
  }

  if (inputs.longest_execution.has_value() &&
      inputs.longest_execution->running_for > inputs.execution_timeout) {
    report.live = false;
    report.live_reason = absl::StrFormat(
        "the worker of NeuronCore %d has been in one execution for %s (--execution-timeout %s)",
        inputs.longest_execution->core,
        absl::FormatDuration(absl::Trunc(inputs.longest_execution->running_for,
                                         absl::Milliseconds(1))),
        absl::FormatDuration(inputs.execution_timeout));
  }
  return report;
}

}  // namespace neuronserve
