#include "core/serving/execution/execution_failure.h"

#include "core/nrt/nrt_status.h"

namespace neuronserve {

ExecutionFailure ClassifyExecutionFailure(const absl::Status& status) {
  const std::optional<NRT_STATUS> nrt = NrtStatusOf(status);
  if (!nrt.has_value()) return ExecutionFailure::kFinal;
  switch (*nrt) {
    case NRT_HW_ERROR:
    case NRT_EXEC_COMPLETED_WITH_ERR:
    case NRT_EXEC_UNIT_UNRECOVERABLE:
    case NRT_EXEC_HW_ERR_COLLECTIVES:
    case NRT_EXEC_HW_ERR_HBM_UE:
    case NRT_EXEC_HW_ERR_NC_UE:
    case NRT_EXEC_HW_ERR_DMA_ABORT:
    case NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE:
    // "unknown/generic hang": the runtime's own log tags it FATAL-RT-UNDEFINED-STATE, so the
    // core cannot be trusted with the next execution.
    case NRT_TIMEOUT:
      return ExecutionFailure::kHardware;
    case NRT_QUEUE_FULL:
    case NRT_EXEC_NC_BUSY:
      return ExecutionFailure::kTransient;
    default:
      return ExecutionFailure::kFinal;
  }
}

}  // namespace neuronserve
