// The serving status grpc.health.v1 reports for a service, without the generated proto type,
// so that callers of Client::CheckHealth need not know the health proto.
#ifndef NEURON_SERVE_CLIENT_LIB_HEALTH_STATUS_H_
#define NEURON_SERVE_CLIENT_LIB_HEALTH_STATUS_H_

#include "absl/strings/string_view.h"

namespace neuronserve::client {

// Mirrors grpc.health.v1.HealthCheckResponse.ServingStatus value for value.
enum class HealthStatus {
  kUnknown = 0,
  kServing = 1,
  kNotServing = 2,
  // Only the Watch RPC uses it; Check answers NOT_FOUND for a service it does not know.
  kServiceUnknown = 3,
};

// "SERVING", "NOT_SERVING", ... as the health protocol spells them, for output and logs.
constexpr absl::string_view HealthStatusName(HealthStatus status) {
  switch (status) {
    case HealthStatus::kServing:
      return "SERVING";
    case HealthStatus::kNotServing:
      return "NOT_SERVING";
    case HealthStatus::kServiceUnknown:
      return "SERVICE_UNKNOWN";
    case HealthStatus::kUnknown:
      break;
  }
  return "UNKNOWN";
}

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_HEALTH_STATUS_H_
