#include "core/nrt/nrt_status.h"

#include <array>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace neuronserve {
namespace {

using Code = absl::StatusCode;

struct StatusRow {
  NRT_STATUS status;
  Code code;
};

// Why each code: the caller should be able to act on it.
//  - INVALID_ARGUMENT: the model or the request is wrong; retrying the same call will fail again.
//  - RESOURCE_EXHAUSTED: memory, cores or queue slots ran out; may succeed once something frees.
//  - UNAVAILABLE: the device or its core is not usable right now (hardware faults, busy core,
//    runtime closed); another core or a later retry may work.
//  - INTERNAL: the execution ran but the result is not trustworthy, or the runtime reports a
//    state that points at a bug in the caller or the runtime.
constexpr std::array<StatusRow, 28> kRows = {{
    {NRT_SUCCESS, Code::kOk},
    {NRT_FAILURE, Code::kInternal},
    {NRT_INVALID, Code::kInvalidArgument},
    {NRT_INVALID_HANDLE, Code::kInternal},
    {NRT_RESOURCE, Code::kResourceExhausted},
    // A hang (NEURON_RT_EXEC_TIMEOUT): the core is faulty, not the caller's deadline too short.
    {NRT_TIMEOUT, Code::kUnavailable},
    {NRT_HW_ERROR, Code::kUnavailable},
    {NRT_QUEUE_FULL, Code::kResourceExhausted},
    {NRT_LOAD_NOT_ENOUGH_NC, Code::kResourceExhausted},
    {NRT_UNSUPPORTED_NEFF_VERSION, Code::kInvalidArgument},
    {NRT_FAIL_HOST_MEM_ALLOC, Code::kResourceExhausted},
    {NRT_UNINITIALIZED, Code::kFailedPrecondition},
    {NRT_CLOSED, Code::kUnavailable},
    {NRT_QUEUE_EMPTY, Code::kInternal},
    {NRT_EXEC_UNIT_UNRECOVERABLE, Code::kUnavailable},
    {NRT_EXEC_BAD_INPUT, Code::kInvalidArgument},
    {NRT_EXEC_COMPLETED_WITH_NUM_ERR, Code::kInternal},
    {NRT_EXEC_COMPLETED_WITH_ERR, Code::kInternal},
    {NRT_EXEC_NC_BUSY, Code::kUnavailable},
    {NRT_EXEC_OOB, Code::kInternal},
    {NRT_COLL_PENDING, Code::kUnavailable},
    {NRT_EXEC_HW_ERR_COLLECTIVES, Code::kUnavailable},
    {NRT_EXEC_HW_ERR_HBM_UE, Code::kUnavailable},
    {NRT_EXEC_HW_ERR_NC_UE, Code::kUnavailable},
    {NRT_EXEC_HW_ERR_DMA_ABORT, Code::kUnavailable},
    {NRT_EXEC_SW_NQ_OVERFLOW, Code::kResourceExhausted},
    {NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE, Code::kUnavailable},
    {NRT_NETWORK_PROXY_FAILURE, Code::kUnavailable},
}};

const StatusRow* FindRow(NRT_STATUS status) {
  for (const StatusRow& row : kRows) {
    if (row.status == status) return &row;
  }
  return nullptr;
}

}  // namespace

std::string NrtStatusToString(NRT_STATUS status) {
  const int number = static_cast<int>(status);
  const std::string_view name = NrtStatusName(status);
  if (name.empty()) return absl::StrCat("unknown NRT_STATUS (", number, ")");
  return absl::StrCat(absl::string_view(name.data(), name.size()), " (", number, ")");
}

absl::StatusCode NrtStatusCode(NRT_STATUS status) {
  const StatusRow* row = FindRow(status);
  // A status this build does not know is still an error; UNKNOWN says exactly that.
  return row == nullptr ? Code::kUnknown : row->code;
}

absl::Status NrtError(absl::string_view operation, NRT_STATUS status, absl::string_view detail) {
  if (status == NRT_SUCCESS) return absl::OkStatus();
  std::string message = absl::StrCat(operation, ": ", NrtStatusToString(status));
  if (!detail.empty()) absl::StrAppend(&message, ": ", detail);
  absl::Status error(NrtStatusCode(status), message);
  error.SetPayload(kNrtStatusPayloadUrl, absl::Cord(absl::StrCat(static_cast<int>(status))));
  return error;
}

std::optional<NRT_STATUS> NrtStatusOf(const absl::Status& status) {
  auto payload = status.GetPayload(kNrtStatusPayloadUrl);
  if (!payload.has_value()) return std::nullopt;
  int number = 0;
  if (!absl::SimpleAtoi(std::string(*payload), &number)) return std::nullopt;
  return static_cast<NRT_STATUS>(number);
}

const std::vector<NRT_STATUS>& AllKnownNrtStatuses() {
  static const std::vector<NRT_STATUS>* const all = [] {
    auto* statuses = new std::vector<NRT_STATUS>();
    for (const StatusRow& row : kRows) statuses->push_back(row.status);
    return statuses;
  }();
  return *all;
}

absl::Status WithContext(const absl::Status& error, absl::string_view context) {
  absl::Status result(error.code(), absl::StrCat(context, ": ", error.message()));
  error.ForEachPayload([&result](absl::string_view url, const absl::Cord& payload) {
    result.SetPayload(url, payload);
  });
  return result;
}

}  // namespace neuronserve
