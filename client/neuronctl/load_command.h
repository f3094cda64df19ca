// `neuronctl load FILE`: uploads a NEFF (or names one in the daemon's model repository) and
// loads it onto NeuronCores.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_LOAD_COMMAND_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_LOAD_COMMAND_H_

#include "client/neuronctl/subcommand.h"

namespace neuronserve::neuronctl {

const Subcommand& LoadCommand();

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_LOAD_COMMAND_H_
