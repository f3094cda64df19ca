// `neuronctl health [SERVICE]`: the grpc.health.v1 status of the daemon or one of its services,
// with an exit code an exec probe or a script can use (0 only when SERVING).
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_HEALTH_COMMAND_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_HEALTH_COMMAND_H_

#include "client/neuronctl/subcommand.h"

namespace neuronserve::neuronctl {

const Subcommand& HealthCommand();

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_HEALTH_COMMAND_H_
