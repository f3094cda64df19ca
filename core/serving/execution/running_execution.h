// RunningExecution: a core worker inside one execution (from writing the inputs to reading the
// outputs), and for how long so far; what the watchdog looks at.
#ifndef NEURON_SERVE_CORE_SERVING_EXECUTION_RUNNING_EXECUTION_H_
#define NEURON_SERVE_CORE_SERVING_EXECUTION_RUNNING_EXECUTION_H_

#include <cstdint>

#include "absl/time/time.h"

namespace neuronserve {

struct RunningExecution {
  uint32_t core = 0;
  absl::Duration running_for;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_EXECUTION_RUNNING_EXECUTION_H_
