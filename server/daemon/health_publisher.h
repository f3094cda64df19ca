// PublishHealth: turns one health status the HealthMonitor decided (core/health) into the gRPC
// health service's statuses, and logs the changes an operator should see.
//
// Service "" is the whole server; the API's own service name (neuronserve.v1.NeuronServing)
// always says the same as "". Every other service (kLivenessService, one per model) is set
// under its own name. Before startup is done NOT_SERVING is expected and "live again" is no
// news, so neither is logged then.
//
// Thread safety: none of its own; the HealthMonitor calls it from one thread at a time, in
// order. Ownership: borrows `health` for the call only.
#ifndef NEURON_SERVE_SERVER_DAEMON_HEALTH_PUBLISHER_H_
#define NEURON_SERVE_SERVER_DAEMON_HEALTH_PUBLISHER_H_

#include <string>
#include <vector>

#include "core/health/health_evaluator.h"
#include "grpcpp/health_check_service_interface.h"

namespace neuronserve {

// The HealthMonitor's Publish callback, with the gRPC health service to publish to and whether
// the startup models are done.
void PublishHealth(grpc::HealthCheckServiceInterface& health, const std::string& service,
                   bool serving, const HealthReport& report, bool startup_done);
// The same to each of `healths` (the daemon's main, admin and probe listeners: every one says
// the same at every moment), logged once. Null entries are skipped.
void PublishHealth(const std::vector<grpc::HealthCheckServiceInterface*>& healths,
                   const std::string& service, bool serving, const HealthReport& report,
                   bool startup_done);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_DAEMON_HEALTH_PUBLISHER_H_
