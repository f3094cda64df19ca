#include "server/daemon/health_publisher.h"

#include "neuronserve/v1/neuron_serving.grpc.pb.h"
#include "spdlog/spdlog.h"

namespace neuronserve {

void PublishHealth(grpc::HealthCheckServiceInterface& health, const std::string& service,
                   bool serving, const HealthReport& report, bool startup_done) {
  PublishHealth(std::vector<grpc::HealthCheckServiceInterface*>{&health}, service, serving, report,
                startup_done);
}

void PublishHealth(const std::vector<grpc::HealthCheckServiceInterface*>& healths,
                   const std::string& service, bool serving, const HealthReport& report,
                   bool startup_done) {
  for (grpc::HealthCheckServiceInterface* health : healths) {
    if (health == nullptr) continue;
    if (service.empty()) {
      // (The one-argument SetServingStatus would set every service: name "" explicitly.)
      health->SetServingStatus("", serving);
      // The API's own service name says the same as "".
      health->SetServingStatus(v1::NeuronServing::service_full_name(), serving);
    } else {
      health->SetServingStatus(service, serving);
    }
  }
  if (service.empty()) {
    if (!serving && startup_done) {
      spdlog::warn("health: NOT_SERVING ({})", report.serving_reason);
    } else if (serving) {
      spdlog::info("health: SERVING");
    }
  } else if (service == kLivenessService) {
    if (!serving) {
      spdlog::error("watchdog: not live: {}", report.live_reason);
    } else if (startup_done) {
      spdlog::info("watchdog: live again");
    }
  }
}

}  // namespace neuronserve
