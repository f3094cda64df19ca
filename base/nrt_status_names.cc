#include "base/nrt_status_names.h"

#include <array>

namespace neuronserve {
namespace {

struct StatusRow {
  NRT_STATUS status;
  const char* name;
};

#define NRT_STATUS_ROW(s) \
  StatusRow { s, #s }

constexpr std::array kStatusRows = {
    NRT_STATUS_ROW(NRT_SUCCESS),
    NRT_STATUS_ROW(NRT_FAILURE),
    NRT_STATUS_ROW(NRT_INVALID),
    NRT_STATUS_ROW(NRT_INVALID_HANDLE),
    NRT_STATUS_ROW(NRT_RESOURCE),
    NRT_STATUS_ROW(NRT_TIMEOUT),
    NRT_STATUS_ROW(NRT_HW_ERROR),
    NRT_STATUS_ROW(NRT_QUEUE_FULL),
    NRT_STATUS_ROW(NRT_LOAD_NOT_ENOUGH_NC),
    NRT_STATUS_ROW(NRT_UNSUPPORTED_NEFF_VERSION),
    NRT_STATUS_ROW(NRT_FAIL_HOST_MEM_ALLOC),
    NRT_STATUS_ROW(NRT_UNINITIALIZED),
    NRT_STATUS_ROW(NRT_CLOSED),
    NRT_STATUS_ROW(NRT_QUEUE_EMPTY),
    NRT_STATUS_ROW(NRT_EXEC_UNIT_UNRECOVERABLE),
    NRT_STATUS_ROW(NRT_EXEC_BAD_INPUT),
    NRT_STATUS_ROW(NRT_EXEC_COMPLETED_WITH_NUM_ERR),
    NRT_STATUS_ROW(NRT_EXEC_COMPLETED_WITH_ERR),
    NRT_STATUS_ROW(NRT_EXEC_NC_BUSY),
    NRT_STATUS_ROW(NRT_EXEC_OOB),
    NRT_STATUS_ROW(NRT_COLL_PENDING),
    NRT_STATUS_ROW(NRT_EXEC_HW_ERR_COLLECTIVES),
    NRT_STATUS_ROW(NRT_EXEC_HW_ERR_HBM_UE),
    NRT_STATUS_ROW(NRT_EXEC_HW_ERR_NC_UE),
    NRT_STATUS_ROW(NRT_EXEC_HW_ERR_DMA_ABORT),
    NRT_STATUS_ROW(NRT_EXEC_SW_NQ_OVERFLOW),
    NRT_STATUS_ROW(NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE),
    NRT_STATUS_ROW(NRT_NETWORK_PROXY_FAILURE),
};

#undef NRT_STATUS_ROW

constexpr std::string_view kPrefix = "NRT_";

}  // namespace

std::string_view NrtStatusName(NRT_STATUS status) {
  for (const StatusRow& row : kStatusRows) {
    if (row.status == status) return row.name;
  }
  return {};
}

std::optional<NRT_STATUS> NrtStatusFromName(std::string_view name) {
  for (const StatusRow& row : kStatusRows) {
    std::string_view full = row.name;
    if (name == full || name == full.substr(kPrefix.size())) return row.status;
  }
  return std::nullopt;
}

}  // namespace neuronserve
