// `neuronctl unload NAME`: unloads a model from every core it is on.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_UNLOAD_COMMAND_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_UNLOAD_COMMAND_H_

#include "client/neuronctl/subcommand.h"

namespace neuronserve::neuronctl {

const Subcommand& UnloadCommand();

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_UNLOAD_COMMAND_H_
