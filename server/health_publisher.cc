#include "server/health_publisher.h"

#include "neuronserve/v1/neuron_serving.grpc.pb.h"
#include "spdlog/spdlog.h"

namespace neuronserve {

void PublishHealth(grpc::HealthCheckServiceInterface& health, const std::string& service,
                   bool serving, const HealthReport& report, bool startup_done) {
  if (service.empty()) {
    // (The one-argument SetServingStatus would set every service: name "" explicitly.)
    health.SetServingStatus("", serving);
    // The API's own service name says the same as "".
    health.SetServingStatus(v1::NeuronServing::service_full_name(), serving);
    if (!serving && startup_done) {
      spdlog::warn("health: NOT_SERVING ({})", report.serving_reason);
    } else if (serving) {
      spdlog::info("health: SERVING");
    }
  } else {
    health.SetServingStatus(service, serving);
    if (service == kLivenessService) {
      if (!serving) {
        spdlog::error("watchdog: not live: {}", report.live_reason);
      } else if (startup_done) {
        spdlog::info("watchdog: live again");
      }
    }
  }
}

}  // namespace neuronserve
