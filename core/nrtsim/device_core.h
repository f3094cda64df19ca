// One simulated NeuronCore: its HBM budget and the lock that serializes executions on it.
#ifndef NEURON_SERVE_CORE_NRTSIM_DEVICE_CORE_H_
#define NEURON_SERVE_CORE_NRTSIM_DEVICE_CORE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

namespace neuronserve::nrtsim {

class DeviceCore {
 public:
  DeviceCore(uint32_t visible_index, uint32_t physical_index, uint64_t hbm_bytes_limit);
  DeviceCore(const DeviceCore&) = delete;
  DeviceCore& operator=(const DeviceCore&) = delete;

  uint32_t visible_index() const { return visible_index_; }
  uint32_t physical_index() const { return physical_index_; }
  uint64_t hbm_bytes_limit() const { return hbm_bytes_limit_; }
  uint64_t hbm_bytes_used() const;

  // Takes `bytes` of HBM if they fit; false (and nothing taken) if not.
  bool TryReserveHbm(uint64_t bytes);
  void ReleaseHbm(uint64_t bytes);

  // Held for the whole device section of an execution: a core runs one execution at a time.
  std::mutex& execution_mutex() { return execution_mutex_; }

 private:
  const uint32_t visible_index_;
  const uint32_t physical_index_;
  const uint64_t hbm_bytes_limit_;
  mutable std::mutex hbm_mutex_;
  uint64_t hbm_bytes_used_ = 0;  // guarded by hbm_mutex_
  std::mutex execution_mutex_;
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

#endif  // NEURON_SERVE_CORE_NRTSIM_DEVICE_CORE_H_
