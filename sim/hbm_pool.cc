#include "sim/hbm_pool.h"

#include "sim/sim_counters.h"

namespace neuronserve::nrtsim {

uint64_t HbmPool::bytes_used() const {
  MutexLock lock(&mutex_);
  return bytes_used_;
}

bool HbmPool::TryReserve(uint64_t bytes) {
  MutexLock lock(&mutex_);
  // Written as a subtraction so that a huge request cannot wrap around.
  if (bytes > bytes_limit_ - bytes_used_) return false;
  bytes_used_ += bytes;
  Counters().device_bytes_used.fetch_add(bytes);
  return true;
}

void HbmPool::Release(uint64_t bytes) {
  MutexLock lock(&mutex_);
  bytes_used_ -= bytes;
  Counters().device_bytes_used.fetch_sub(bytes);
}

}  // namespace neuronserve::nrtsim
