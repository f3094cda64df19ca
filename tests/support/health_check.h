// HealthCheck: one grpc.health.v1 Check call, as a probe makes it, for tests of the daemon's
// health services.
#ifndef NEURON_SERVE_TESTS_SUPPORT_HEALTH_CHECK_H_
#define NEURON_SERVE_TESTS_SUPPORT_HEALTH_CHECK_H_

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "grpcpp/channel.h"

namespace neuronserve::testing {

// Check(service) on `channel`: the HealthCheckResponse status number (1 = SERVING), or -1 when
// the call failed (NOT_FOUND for an unknown service, say, or nothing listening).
int HealthCheck(const std::shared_ptr<grpc::Channel>& channel, const std::string& service,
                absl::Duration deadline = absl::Seconds(60));

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_HEALTH_CHECK_H_
