// `neuronctl models` (every model the daemon holds) and `neuronctl model NAME` (one in detail).
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_MODELS_COMMAND_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_MODELS_COMMAND_H_

#include "client/neuronctl/subcommand.h"

namespace neuronserve::neuronctl {

const Subcommand& ModelsCommand();
const Subcommand& ModelCommand();

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_MODELS_COMMAND_H_
