// What a failed nrt_execute means for the core and for the request.
#ifndef NEURON_SERVE_CORE_SERVING_EXECUTION_EXECUTION_FAILURE_H_
#define NEURON_SERVE_CORE_SERVING_EXECUTION_EXECUTION_FAILURE_H_

#include "absl/status/status.h"

namespace neuronserve {

enum class ExecutionFailure {
  // The core itself failed (NRT_HW_ERROR, NRT_EXEC_COMPLETED_WITH_ERR, the NRT_EXEC_HW_ERR_*
  // family, an unrecoverable execution unit, NRT_TIMEOUT: a hang past NEURON_RT_EXEC_TIMEOUT):
  // it leaves rotation, the request may run elsewhere.
  kHardware,
  // Busy for now (NRT_QUEUE_FULL, NRT_EXEC_NC_BUSY): worth one more try on another replica.
  kTransient,
  // Anything else (bad input, numerical errors, ...): the request's answer.
  kFinal,
};

ExecutionFailure ClassifyExecutionFailure(const absl::Status& status);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_EXECUTION_EXECUTION_FAILURE_H_
