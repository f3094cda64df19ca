// The --shared-memory flags of the commands that send inference requests (infer, bench): the
// tensors go through a POSIX shared-memory object registered with the daemon
// (registered_tensor_region.h) instead of through the requests.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_SHARED_MEMORY_FLAGS_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_SHARED_MEMORY_FLAGS_H_

#include "client/neuronctl/args.h"

namespace neuronserve::neuronctl {

inline constexpr FlagSpec kSharedMemoryFlag = {
    "shared-memory", FlagType::kBoolean, "", "",
    "inputs and outputs through a shared-memory object registered with the daemon instead of "
    "the request (the daemon needs --allow-client-shared-memory, the same user and /dev/shm)"};
inline constexpr FlagSpec kSharedMemoryPrefixFlag = {
    "shared-memory-prefix", FlagType::kValue, "PREFIX", "neuronctl",
    "the object's key is /PREFIX-<pid>-<random>-<n> (match the daemon's "
    "--shared-memory-key-prefix)"};

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_SHARED_MEMORY_FLAGS_H_
