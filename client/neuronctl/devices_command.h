// `neuronctl devices`: the daemon's runtime, instance and NeuronCores (Enumerate).
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_DEVICES_COMMAND_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_DEVICES_COMMAND_H_

#include "client/neuronctl/subcommand.h"

namespace neuronserve::neuronctl {

const Subcommand& DevicesCommand();

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_DEVICES_COMMAND_H_
