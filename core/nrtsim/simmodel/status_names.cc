#include "core/nrtsim/simmodel/status_names.h"

#include <array>

namespace neuronserve::simmodel {
namespace {

struct StatusRow {
  NRT_STATUS status;
  const char* name;
};

#define NRTSIM_STATUS_ROW(s) \
  StatusRow { s, #s }

constexpr std::array kStatusRows = {
    NRTSIM_STATUS_ROW(NRT_SUCCESS),
    NRTSIM_STATUS_ROW(NRT_FAILURE),
    NRTSIM_STATUS_ROW(NRT_INVALID),
    NRTSIM_STATUS_ROW(NRT_INVALID_HANDLE),
    NRTSIM_STATUS_ROW(NRT_RESOURCE),
    NRTSIM_STATUS_ROW(NRT_TIMEOUT),
    NRTSIM_STATUS_ROW(NRT_HW_ERROR),
    NRTSIM_STATUS_ROW(NRT_QUEUE_FULL),
    NRTSIM_STATUS_ROW(NRT_LOAD_NOT_ENOUGH_NC),
    NRTSIM_STATUS_ROW(NRT_UNSUPPORTED_NEFF_VERSION),
    NRTSIM_STATUS_ROW(NRT_FAIL_HOST_MEM_ALLOC),
    NRTSIM_STATUS_ROW(NRT_UNINITIALIZED),
    NRTSIM_STATUS_ROW(NRT_CLOSED),
    NRTSIM_STATUS_ROW(NRT_QUEUE_EMPTY),
    NRTSIM_STATUS_ROW(NRT_EXEC_UNIT_UNRECOVERABLE),
    NRTSIM_STATUS_ROW(NRT_EXEC_BAD_INPUT),
    NRTSIM_STATUS_ROW(NRT_EXEC_COMPLETED_WITH_NUM_ERR),
    NRTSIM_STATUS_ROW(NRT_EXEC_COMPLETED_WITH_ERR),
    NRTSIM_STATUS_ROW(NRT_EXEC_NC_BUSY),
    NRTSIM_STATUS_ROW(NRT_EXEC_OOB),
    NRTSIM_STATUS_ROW(NRT_COLL_PENDING),
    NRTSIM_STATUS_ROW(NRT_EXEC_HW_ERR_COLLECTIVES),
    NRTSIM_STATUS_ROW(NRT_EXEC_HW_ERR_HBM_UE),
    NRTSIM_STATUS_ROW(NRT_EXEC_HW_ERR_NC_UE),
    NRTSIM_STATUS_ROW(NRT_EXEC_HW_ERR_DMA_ABORT),
    NRTSIM_STATUS_ROW(NRT_EXEC_SW_NQ_OVERFLOW),
    NRTSIM_STATUS_ROW(NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE),
    NRTSIM_STATUS_ROW(NRT_NETWORK_PROXY_FAILURE),
};

#undef NRTSIM_STATUS_ROW

constexpr std::string_view kPrefix = "NRT_";

}  // namespace

const char* StatusName(NRT_STATUS status) {
  for (const StatusRow& row : kStatusRows) {
    if (row.status == status) return row.name;
  }
  return nullptr;
}

std::optional<NRT_STATUS> StatusFromName(std::string_view name) {
  for (const StatusRow& row : kStatusRows) {
    std::string_view full = row.name;
    if (name == full || name == full.substr(kPrefix.size())) return row.status;
  }
  return std::nullopt;
}

}  // namespace neuronserve::simmodel
