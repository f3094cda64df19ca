// One bank of simulated HBM: a byte budget that one or more cores allocate from. Usually a pool
// belongs to one core; on trn2 with NEURON_LOGICAL_NC_CONFIG=1 the two cores of a pair share
// one, so an allocation on one reduces what the other can take (and both report the pool's
// limit and use). Thread-safe; shared (shared_ptr) by the cores that use it.
#ifndef NEURON_SERVE_SIM_HBM_POOL_H_
#define NEURON_SERVE_SIM_HBM_POOL_H_

#include <cstdint>

#include "base/mutex.h"

namespace neuronserve::nrtsim {

class HbmPool {
 public:
  explicit HbmPool(uint64_t bytes_limit) : bytes_limit_(bytes_limit) {}
  HbmPool(const HbmPool&) = delete;
  HbmPool& operator=(const HbmPool&) = delete;

  uint64_t bytes_limit() const { return bytes_limit_; }
  uint64_t bytes_used() const;

  // Takes `bytes` if they fit; false (and nothing taken) if not. Counted in the process-wide
  // device_bytes_used counter.
  bool TryReserve(uint64_t bytes);
  void Release(uint64_t bytes);

 private:
  const uint64_t bytes_limit_;
  mutable Mutex mutex_;
  uint64_t bytes_used_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_HBM_POOL_H_
