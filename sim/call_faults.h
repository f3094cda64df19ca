// Faults on any call: the rules in force in this process (NRTSIM_FAULTS, then the rules of
// NRTSIM_FAULTS_FILE; syntax and allowed statuses in call_fault_rules.h), how many calls each
// has matched, and the decision each of the seven calls a rule can fail asks for.
//
// Lifetime: nrt_init installs the rules of its environment and restarts every count; they stay
// in force until the next nrt_init (nrt_close keeps them: tensor-set calls work while the
// runtime is closed, and a rule should not change meaning with it). Before the first nrt_init
// there are none.
//
// The file is watched, not read once: at each decision, while a file was configured, its
// stat() (inode, size, modification time) is compared with that of the content in force, and a
// changed file is read again (its rules then count from zero). A missing file means no rules; a
// file that does not parse keeps the rules in force and is reported on stderr once per change,
// because the daemon is running and a typo in a test must not take it down.
//
// Thread safety: every function may be called from any thread. Counting, deciding and the
// file's re-reading happen under one mutex, so concurrent calls are each counted exactly once
// and a count=M rule fails exactly M of them. Ownership: the state is the library's, a static
// object like the runtime's own state (runtime_state.cc): it goes when the library is unloaded
// (dlclose) or the process exits, after the runtime's last call.
#ifndef NEURON_SERVE_SIM_CALL_FAULTS_H_
#define NEURON_SERVE_SIM_CALL_FAULTS_H_

#include <atomic>
#include <cstdint>
#include <optional>

#include "base/nrt_abi.h"
#include "sim/call_fault_rules.h"
#include "sim/sim_config.h"

namespace neuronserve::nrtsim {

// nrt_init, once the session is open: replaces the rules in force with `config`'s
// (call_fault_rules, then the rules of call_faults_file, read now), all counts at zero.
void InstallCallFaults(const SimConfig& config);

namespace call_faults_internal {
// True while rules may apply: the last nrt_init had rules in NRTSIM_FAULTS or a
// NRTSIM_FAULTS_FILE. Read with a relaxed load: when it is true, Decide locks the mutex, which
// orders everything else.
extern std::atomic<bool> configured;
std::optional<NRT_STATUS> Decide(RuntimeCall call, std::optional<uint32_t> core);
}  // namespace call_faults_internal

// Called by each of the seven calls once its arguments passed the checks a runtime makes first
// (so a caller's own mistake is still reported as such), before the call has any effect.
// `core`: the visible core the call is on, nullopt for one without (a HOST tensor, a tensor
// set). Counts the call for every rule of `call` that matches it and returns the status of the
// first rule that fires, after writing its "nrtsim: fault: ..." line; the caller returns that
// status and does nothing else. nullopt: go on. Costs one relaxed atomic load when no rules were
// configured.
inline std::optional<NRT_STATUS> InjectedCallFault(RuntimeCall call, std::optional<uint32_t> core) {
  if (!call_faults_internal::configured.load(std::memory_order_relaxed)) return std::nullopt;
  return call_faults_internal::Decide(call, core);
}

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_CALL_FAULTS_H_
