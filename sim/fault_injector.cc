#include "sim/fault_injector.h"

#include "base/nrt_status_names.h"

namespace neuronserve::nrtsim {

namespace {

NRT_STATUS ResolveStatus(const simmodel::Fault& fault) {
  if (fault.latency_us) return NRT_SUCCESS;  // a slow rule has no status
  const simmodel::FaultStatus& status = fault.status;
  if (const auto* name = std::get_if<std::string>(&status)) {
    return NrtStatusFromName(*name).value_or(NRT_FAILURE);  // names were checked at load
  }
  return static_cast<NRT_STATUS>(std::get<int32_t>(status));
}

}  // namespace

FaultInjector::FaultInjector(const std::vector<simmodel::Fault>& faults) {
  for (const simmodel::Fault& fault : faults) {
    const auto* random = std::get_if<simmodel::FaultWithProbability>(&fault.trigger);
    rules_.push_back(RuleState{fault, ResolveStatus(fault), random ? random->seed : 0});
  }
}

double FaultInjector::Draw(RuleState& state) {
  // splitmix64: tiny, and the same numbers on every platform and standard library (the
  // distributions of <random> are not specified bit for bit).
  uint64_t z = (state.generator_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

std::optional<FaultInjector::Fired> FaultInjector::NextExecution() {
  MutexLock lock(&mutex_);
  uint64_t execution = ++executions_;
  std::optional<Fired> fired;
  for (RuleState& state : rules_) {
    bool fires = false;
    if (const auto* on = std::get_if<simmodel::FaultOnExecution>(&state.rule.trigger)) {
      fires = execution == on->execution;
    } else if (const auto* every = std::get_if<simmodel::FaultEvery>(&state.rule.trigger)) {
      fires = execution % every->period == 0;
    } else {
      fires = Draw(state) < std::get<simmodel::FaultWithProbability>(state.rule.trigger).probability;
    }
    if (fires && !fired) fired = Fired{state.status, state.rule.latency_us};
  }
  return fired;
}

}  // namespace neuronserve::nrtsim
