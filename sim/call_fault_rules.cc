#include "sim/call_fault_rules.h"

#include <algorithm>
#include <array>
#include <span>

#include "base/nrt_status_names.h"
#include "sim/text_parse.h"

namespace neuronserve::nrtsim {
namespace {

// The statuses each call may fail with: those a real runtime can plausibly return from it for a
// reason the caller cannot see or prevent (README.md gives the reason for each). Statuses that
// would misdescribe the caller's own state (NRT_INVALID_HANDLE, NRT_UNINITIALIZED, NRT_CLOSED)
// are left out: the simulator returns those itself when they are true.
constexpr std::array kLoadStatuses = {
    NRT_FAILURE,
    NRT_INVALID,
    NRT_RESOURCE,
    NRT_TIMEOUT,
    NRT_HW_ERROR,
    NRT_LOAD_NOT_ENOUGH_NC,
    NRT_UNSUPPORTED_NEFF_VERSION,
    NRT_FAIL_HOST_MEM_ALLOC,
};
constexpr std::array kTensorAllocateStatuses = {
    NRT_FAILURE, NRT_INVALID, NRT_RESOURCE, NRT_FAIL_HOST_MEM_ALLOC, NRT_HW_ERROR,
};
constexpr std::array kTensorSetStatuses = {
    NRT_FAILURE,
    NRT_INVALID,
    NRT_RESOURCE,
    NRT_FAIL_HOST_MEM_ALLOC,
};
constexpr std::array kCopyStatuses = {
    NRT_FAILURE,
    NRT_INVALID,
    NRT_TIMEOUT,
    NRT_HW_ERROR,
    NRT_EXEC_HW_ERR_DMA_ABORT,
    NRT_EXEC_HW_ERR_HBM_UE,
    NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE,
};
constexpr std::array kExecuteStatuses = {
    NRT_FAILURE,
    NRT_INVALID,
    NRT_RESOURCE,
    NRT_TIMEOUT,
    NRT_HW_ERROR,
    NRT_QUEUE_FULL,
    NRT_EXEC_UNIT_UNRECOVERABLE,
    NRT_EXEC_BAD_INPUT,
    NRT_EXEC_COMPLETED_WITH_NUM_ERR,
    NRT_EXEC_COMPLETED_WITH_ERR,
    NRT_EXEC_NC_BUSY,
    NRT_EXEC_OOB,
    NRT_EXEC_HW_ERR_COLLECTIVES,
    NRT_EXEC_HW_ERR_HBM_UE,
    NRT_EXEC_HW_ERR_NC_UE,
    NRT_EXEC_HW_ERR_DMA_ABORT,
    NRT_EXEC_SW_NQ_OVERFLOW,
    NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE,
};

struct CallRow {
  RuntimeCall call;
  std::string_view name;
  // Whether a call has a core a rule's core= can select (the tensor-set calls are host-only).
  bool has_core;
  std::span<const NRT_STATUS> allowed;
};

constexpr std::array<CallRow, 7> kCalls = {{
    {RuntimeCall::kLoad, "nrt_load", true, kLoadStatuses},
    {RuntimeCall::kTensorAllocate, "nrt_tensor_allocate", true, kTensorAllocateStatuses},
    {RuntimeCall::kAllocateTensorSet, "nrt_allocate_tensor_set", false, kTensorSetStatuses},
    {RuntimeCall::kAddTensorToTensorSet, "nrt_add_tensor_to_tensor_set", false, kTensorSetStatuses},
    {RuntimeCall::kTensorWrite, "nrt_tensor_write", true, kCopyStatuses},
    {RuntimeCall::kTensorRead, "nrt_tensor_read", true, kCopyStatuses},
    {RuntimeCall::kExecute, "nrt_execute", true, kExecuteStatuses},
}};

const CallRow& RowOf(RuntimeCall call) {
  return *std::find_if(kCalls.begin(), kCalls.end(),
                       [call](const CallRow& row) { return row.call == call; });
}

// "NRT_TIMEOUT", or the number of a status the ABI does not declare.
std::string StatusText(NRT_STATUS status) {
  std::string_view name = NrtStatusName(status);
  return name.empty() ? std::to_string(static_cast<int32_t>(status)) : std::string(name);
}

std::string AllowedList(const CallRow& row) {
  std::string list;
  for (NRT_STATUS status : row.allowed) {
    if (!list.empty()) list += ", ";
    list += StatusText(status);
  }
  return list;
}

std::string CallNames() {
  std::string names;
  for (const CallRow& row : kCalls) {
    if (!names.empty()) names += ", ";
    names += row.name;
  }
  return names;
}

std::string_view Trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  const size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

// The ':'-separated fields of a rule.
std::vector<std::string_view> SplitFields(std::string_view rule) {
  std::vector<std::string_view> fields;
  while (true) {
    const size_t colon = rule.find(':');
    fields.push_back(rule.substr(0, colon));
    if (colon == std::string_view::npos) return fields;
    rule.remove_prefix(colon + 1);
  }
}

constexpr std::string_view kSyntax = "<call>:<status>[:after=N][:count=M|all][:core=C]";

bool ParseStatus(const CallRow& row, std::string_view text, CallFaultRule* rule,
                 std::string* problem) {
  std::optional<NRT_STATUS> status = ParseNrtStatus(text);
  if (!status) {
    *problem =
        "'" + std::string(text) + "' is not an NRT_STATUS name (such as NRT_TIMEOUT) or number";
    return false;
  }
  if (*status == NRT_SUCCESS) {
    *problem = "NRT_SUCCESS is no fault";
    return false;
  }
  if (std::find(row.allowed.begin(), row.allowed.end(), *status) == row.allowed.end()) {
    *problem = std::string(row.name) + " cannot fail with " + StatusText(*status) +
               " (it may fail with " + AllowedList(row) + ")";
    return false;
  }
  rule->status = *status;
  return true;
}

// One `key=value` field of a rule into *rule; `seen` keeps each key to one use.
bool ParseOption(const CallRow& row, std::string_view field, uint32_t visible_cores,
                 std::array<bool, 3>* seen, CallFaultRule* rule, std::string* problem) {
  constexpr std::array<std::string_view, 3> kKeys = {"after", "count", "core"};
  const size_t equals = field.find('=');
  const std::string_view key = field.substr(0, equals);
  const auto known = std::find(kKeys.begin(), kKeys.end(), key);
  if (equals == std::string_view::npos || known == kKeys.end()) {
    *problem =
        "'" + std::string(field) + "' is not an option (after=N, count=M, count=all or core=C)";
    return false;
  }
  bool& used = (*seen)[static_cast<size_t>(known - kKeys.begin())];
  if (used) {
    *problem = std::string(key) + "= is given twice";
    return false;
  }
  used = true;
  const std::string_view value = field.substr(equals + 1);
  const std::optional<uint64_t> number = ParseUnsigned(value);
  if (key == "after") {
    if (!number) {
      *problem = std::string(field) + " is not a whole number of calls to let through";
      return false;
    }
    rule->after = *number;
  } else if (key == "count") {
    if (value == "all") {
      rule->count = std::nullopt;
    } else if (!number || *number == 0) {
      *problem = std::string(field) + " is not a number of calls to fail (1 or more, or all)";
      return false;
    } else {
      rule->count = *number;
    }
  } else {
    if (!row.has_core) {
      *problem = std::string(row.name) + " has no core, so core= cannot select its calls";
      return false;
    }
    if (!number || *number >= visible_cores) {
      *problem = std::string(field) + " is not a visible core (" + std::to_string(visible_cores) +
                 " visible cores, from 0)";
      return false;
    }
    rule->core = static_cast<uint32_t>(*number);
  }
  return true;
}

// One rule, already trimmed and not empty.
std::optional<CallFaultRule> ParseRule(std::string_view text, uint32_t visible_cores,
                                       std::string* problem) {
  const std::vector<std::string_view> fields = SplitFields(text);
  const auto row = std::find_if(kCalls.begin(), kCalls.end(),
                                [&](const CallRow& r) { return r.name == fields[0]; });
  if (row == kCalls.end()) {
    *problem = "'" + std::string(fields[0]) + "' is not a call a rule can fail (one of " +
               CallNames() + ")";
    return std::nullopt;
  }
  if (fields.size() < 2) {
    *problem = "has no status (" + std::string(kSyntax) + ")";
    return std::nullopt;
  }
  CallFaultRule rule;
  rule.call = row->call;
  rule.text = std::string(text);
  if (!ParseStatus(*row, fields[1], &rule, problem)) return std::nullopt;
  std::array<bool, 3> seen = {false, false, false};
  for (size_t i = 2; i < fields.size(); ++i) {
    if (!ParseOption(*row, fields[i], visible_cores, &seen, &rule, problem)) return std::nullopt;
  }
  return rule;
}

// Appends the ';'-separated rules of `text` to *rules.
bool ParseRuleList(std::string_view text, uint32_t visible_cores, std::vector<CallFaultRule>* rules,
                   std::string* error) {
  while (true) {
    const size_t semicolon = text.find(';');
    const std::string_view rule_text = Trim(text.substr(0, semicolon));
    if (!rule_text.empty()) {
      std::string problem;
      std::optional<CallFaultRule> rule = ParseRule(rule_text, visible_cores, &problem);
      if (!rule) {
        *error = "rule \"" + std::string(rule_text) + "\": " + problem;
        return false;
      }
      rules->push_back(std::move(*rule));
    }
    if (semicolon == std::string_view::npos) return true;
    text.remove_prefix(semicolon + 1);
  }
}

}  // namespace

std::string_view RuntimeCallName(RuntimeCall call) { return RowOf(call).name; }

std::optional<std::vector<CallFaultRule>> ParseCallFaultRules(std::string_view text,
                                                              uint32_t visible_cores,
                                                              std::string* error) {
  std::vector<CallFaultRule> rules;
  if (!ParseRuleList(text, visible_cores, &rules, error)) return std::nullopt;
  return rules;
}

std::optional<std::vector<CallFaultRule>> ParseCallFaultFile(std::string_view content,
                                                             uint32_t visible_cores,
                                                             std::string* error) {
  std::vector<CallFaultRule> rules;
  for (size_t line_number = 1;; ++line_number) {
    const size_t newline = content.find('\n');
    std::string_view line = content.substr(0, newline);
    line = line.substr(0, line.find('#'));
    std::string problem;
    if (!ParseRuleList(line, visible_cores, &rules, &problem)) {
      *error = "line " + std::to_string(line_number) + ": " + problem;
      return std::nullopt;
    }
    if (newline == std::string_view::npos) return rules;
    content.remove_prefix(newline + 1);
  }
}

}  // namespace neuronserve::nrtsim
