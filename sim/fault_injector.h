// The faults of one loaded model: counts its executions and decides, before each runs, whether
// it fails and with which status.
#ifndef NEURON_SERVE_SIM_FAULT_INJECTOR_H_
#define NEURON_SERVE_SIM_FAULT_INJECTOR_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "base/mutex.h"
#include "base/nrt_abi.h"
#include "sim/simmodel/sim_model.h"

namespace neuronserve::nrtsim {

class FaultInjector {
 public:
  // `faults` passed CompileModelGraph (their status names are known) and apply to this copy of
  // the model (the caller dropped those of other cores).
  explicit FaultInjector(const std::vector<simmodel::Fault>& faults);

  // What the first rule that fires does: fail with `status`, or run with `latency_us`.
  struct Fired {
    NRT_STATUS status = NRT_FAILURE;
    std::optional<uint64_t> latency_us;
  };

  // Counts one execution; returns what the first rule that fires for it does, if any.
  // Every probability rule draws from its own generator on every execution, whether or not an
  // earlier rule fired, so each rule's sequence depends only on its seed.
  std::optional<Fired> NextExecution();

 private:
  struct RuleState {
    simmodel::Fault rule;
    NRT_STATUS status = NRT_FAILURE;  // rule.status resolved
    uint64_t generator_state = 0;     // splitmix64
  };

  // A uniform double in [0, 1) from the rule's generator.
  static double Draw(RuleState& state);

  Mutex mutex_;
  std::vector<RuleState> rules_ ABSL_GUARDED_BY(mutex_);
  uint64_t executions_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_FAULT_INJECTOR_H_
