// `neuronctl sim-model`: writes a model file (sim NEFF) for the simulated Neuron runtime, either
// a seeded random MLP (--mlp) or an identity model (--identity).
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_SIM_MODEL_COMMAND_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_SIM_MODEL_COMMAND_H_

#include "client/neuronctl/subcommand.h"

namespace neuronserve::neuronctl {

const Subcommand& SimModelCommand();

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_SIM_MODEL_COMMAND_H_
