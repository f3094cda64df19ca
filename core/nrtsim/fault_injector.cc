#include "core/nrtsim/fault_injector.h"

namespace neuronserve::nrtsim {

FaultInjector::FaultInjector(std::vector<FaultRule> rules) {
  for (const FaultRule& rule : rules) rules_.push_back(RuleState{rule, rule.seed});
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

std::optional<NRT_STATUS> FaultInjector::NextExecution() {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t execution = ++executions_;
  std::optional<NRT_STATUS> fired;
  for (RuleState& state : rules_) {
    bool fires = false;
    switch (state.rule.trigger) {
      case FaultRule::Trigger::kOnExecution:
        fires = execution == state.rule.execution;
        break;
      case FaultRule::Trigger::kEvery:
        fires = execution % state.rule.execution == 0;
        break;
      case FaultRule::Trigger::kProbability:
        fires = Draw(state) < state.rule.probability;
        break;
    }
    if (fires && !fired) fired = state.rule.status;
  }
  return fired;
}

}  // namespace neuronserve::nrtsim
