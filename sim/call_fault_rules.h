// The rules of NRTSIM_FAULTS and NRTSIM_FAULTS_FILE ("Faults on any call" in README.md): which
// runtime calls a rule can fail, the statuses each may fail with, and the one parser of
//
//   <call>:<status>[:after=N][:count=M|count=all][:core=C]
//
// The model file's `faults` fail executions of one model; these fail any of the calls the daemon
// makes, from outside the model, so a test can break a load, an allocation or a copy too.
// Pure functions and plain values (thread-compatible); the rules in force and their counts live
// in call_faults.h.
#ifndef NEURON_SERVE_SIM_CALL_FAULT_RULES_H_
#define NEURON_SERVE_SIM_CALL_FAULT_RULES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/nrt_abi.h"

namespace neuronserve::nrtsim {

// The calls a rule can fail: every runtime call on the daemon's load and serving paths.
enum class RuntimeCall : uint8_t {
  kLoad,
  kTensorAllocate,
  kAllocateTensorSet,
  kAddTensorToTensorSet,
  kTensorWrite,
  kTensorRead,
  kExecute,
};

// The C name: "nrt_load" for kLoad.
std::string_view RuntimeCallName(RuntimeCall call);

struct CallFaultRule {
  RuntimeCall call = RuntimeCall::kLoad;
  // One of the statuses `call` may fail with (the table in README.md), never NRT_SUCCESS.
  NRT_STATUS status = NRT_FAILURE;
  // The rule lets this many matching calls through before it fails any.
  uint64_t after = 0;
  // Then it fails this many; nullopt (count=all): every matching call from then on.
  std::optional<uint64_t> count = 1;
  // Only calls on this visible core match; nullopt: every call, with a core or without.
  std::optional<uint32_t> core = std::nullopt;
  // The rule as written, without the whitespace around it: how the log line names it.
  std::string text;
};

// NRTSIM_FAULTS: rules separated by ';', whitespace around each ignored, empty ones (a trailing
// ';') skipped. core= must name one of the `visible_cores` visible cores, so that a typo cannot
// leave a rule that never matches. On the first bad rule returns nullopt and sets *error to
// `rule "<rule>": <what is wrong>`.
std::optional<std::vector<CallFaultRule>> ParseCallFaultRules(std::string_view text,
                                                              uint32_t visible_cores,
                                                              std::string* error);

// The content of NRTSIM_FAULTS_FILE: as ParseCallFaultRules, and lines separate rules too; '#'
// starts a comment that runs to the end of its line. The error names the line:
// `line <n>: rule "<rule>": <what is wrong>`.
std::optional<std::vector<CallFaultRule>> ParseCallFaultFile(std::string_view content,
                                                             uint32_t visible_cores,
                                                             std::string* error);

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_CALL_FAULT_RULES_H_
