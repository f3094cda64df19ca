// `neuronctl infer NAME`: one inference request with inputs from .npy files (or random ones),
// outputs printed or written as .npy files.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_INFER_COMMAND_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_INFER_COMMAND_H_

#include "client/neuronctl/subcommand.h"

namespace neuronserve::neuronctl {

const Subcommand& InferCommand();

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_INFER_COMMAND_H_
