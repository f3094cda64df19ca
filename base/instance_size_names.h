// Names of nrt_instance_info_t.size values ("xlarge", "24xlarge", ...), shared by the daemon's
// device tables and the simulator's startup line. Header-only and dependency-free so that the
// simulator (which links nothing of the daemon) can use it too.
#ifndef NEURON_SERVE_BASE_INSTANCE_SIZE_NAMES_H_
#define NEURON_SERVE_BASE_INSTANCE_SIZE_NAMES_H_

#include <stdint.h>

#include "base/nrt_abi.h"

namespace neuronserve {

// "unknown" for NRT_INSTANCE_SIZE_UNKNOWN and any value this build does not know.
inline const char* NrtInstanceSizeName(uint32_t size) {
  switch (size) {
    case NRT_INSTANCE_SIZE_1XL:
      return "xlarge";
    case NRT_INSTANCE_SIZE_2XL:
      return "2xlarge";
    case NRT_INSTANCE_SIZE_3XL:
      return "3xlarge";
    case NRT_INSTANCE_SIZE_4XL:
      return "4xlarge";
    case NRT_INSTANCE_SIZE_6XL:
      return "6xlarge";
    case NRT_INSTANCE_SIZE_8XL:
      return "8xlarge";
    case NRT_INSTANCE_SIZE_24XL:
      return "24xlarge";
    case NRT_INSTANCE_SIZE_32XL:
      return "32xlarge";
    case NRT_INSTANCE_SIZE_48XL:
      return "48xlarge";
    default:
      return "unknown";
  }
}

}  // namespace neuronserve

#endif  // NEURON_SERVE_BASE_INSTANCE_SIZE_NAMES_H_
