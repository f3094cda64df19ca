// One simulated (logical) NeuronCore: the HBM pool it allocates from, the lock that serializes
// executions on it, its copy engine, and the time both were busy. Thread-safe; shared
// (shared_ptr) by its session and by every handle that took HBM on it.
#ifndef NEURON_SERVE_SIM_DEVICE_CORE_H_
#define NEURON_SERVE_SIM_DEVICE_CORE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

#include "base/mutex.h"
#include "sim/hbm_pool.h"
#include "sim/nrtsim_stats.h"

namespace neuronserve::nrtsim {

class DeviceCore {
 public:
  // `machine_index`: the core's number on the machine (logical numbering, before
  // NEURON_RT_VISIBLE_CORES renumbers it to `visible_index`).
  DeviceCore(uint32_t visible_index, uint32_t machine_index, std::shared_ptr<HbmPool> hbm);
  DeviceCore(const DeviceCore&) = delete;
  DeviceCore& operator=(const DeviceCore&) = delete;

  uint32_t visible_index() const { return visible_index_; }
  uint32_t machine_index() const { return machine_index_; }
  // The limit and use of the core's HBM pool (shared with its pair at LNC=1 on trn2).
  uint64_t hbm_bytes_limit() const { return hbm_->bytes_limit(); }
  uint64_t hbm_bytes_used() const { return hbm_->bytes_used(); }

  // Takes `bytes` of HBM if they fit; false (and nothing taken) if not.
  bool TryReserveHbm(uint64_t bytes) { return hbm_->TryReserve(bytes); }
  void ReleaseHbm(uint64_t bytes) { hbm_->Release(bytes); }

  // Held for the whole device section of an execution: a core runs one execution at a time.
  // It guards no memory (it stands for the device being busy), and a multi-core model takes the
  // locks of a run-time list of cores (ResidentModel::RunOnDevice), which the thread-safety
  // analysis cannot follow.
  Mutex& execution_mutex() { return execution_mutex_; }

  // An execution holding the core for `latency` (RunOnDevice, while it holds the execution
  // mutex): counted in the busy time, and seen by the copies that begin meanwhile.
  void BeginExecution() const { executing_.fetch_add(1); }
  void EndExecution(std::chrono::microseconds latency) const;

  // The core's copy engine (DMA between host memory and its HBM), apart from its execution: a
  // copy of `bytes` holds the engine for bytes / `bytes_per_second` (sleeping, as the host
  // waits on DMA), so copies queue behind copies and overlap executions. `bytes_per_second` 0:
  // the copy is free (counted, not timed). Blocks the calling thread for the copy. Const, as
  // Tensor::core() is: the engine and the counters model the device's timing, not its state.
  void Copy(uint64_t bytes, uint64_t bytes_per_second) const;

  // What the core did since its session began (nrtsim_get_core_busy).
  nrtsim_core_busy_t Busy() const;

 private:
  const uint32_t visible_index_;
  const uint32_t machine_index_;
  const std::shared_ptr<HbmPool> hbm_;
  Mutex execution_mutex_;
  // One copy at a time on the engine; a leaf lock (the copy sleeps under it, as the engine is
  // busy).
  mutable Mutex copy_mutex_;
  mutable std::atomic<uint32_t> executing_{0};
  mutable std::atomic<uint64_t> execution_ns_{0};
  mutable std::atomic<uint64_t> executions_{0};
  mutable std::atomic<uint64_t> copy_ns_{0};
  mutable std::atomic<uint64_t> copies_{0};
  mutable std::atomic<uint64_t> copy_bytes_{0};
  mutable std::atomic<uint64_t> copies_during_execution_{0};
};

// HBM taken on one core, returned when this is destroyed. It keeps the core alive, so a tensor
// or model freed after nrt_close (and even after a new nrt_init) returns its bytes to the core it
// took them from.
class HbmReservation {
 public:
  static std::optional<HbmReservation> TryReserve(std::shared_ptr<DeviceCore> core, uint64_t bytes);
  HbmReservation(HbmReservation&& other) noexcept;
  HbmReservation& operator=(HbmReservation&& other) noexcept;
  HbmReservation(const HbmReservation&) = delete;
  HbmReservation& operator=(const HbmReservation&) = delete;
  ~HbmReservation();

  const std::shared_ptr<DeviceCore>& core() const { return core_; }

 private:
  HbmReservation(std::shared_ptr<DeviceCore> core, uint64_t bytes);
  void Release();

  std::shared_ptr<DeviceCore> core_;
  uint64_t bytes_ = 0;
};

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_DEVICE_CORE_H_
