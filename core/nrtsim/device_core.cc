#include "core/nrtsim/device_core.h"

#include <utility>

#include "core/nrtsim/sim_counters.h"

namespace neuronserve::nrtsim {

DeviceCore::DeviceCore(uint32_t visible_index, uint32_t physical_index, uint64_t hbm_bytes_limit)
    : visible_index_(visible_index),
      physical_index_(physical_index),
      hbm_bytes_limit_(hbm_bytes_limit) {}

uint64_t DeviceCore::hbm_bytes_used() const {
  std::lock_guard<std::mutex> lock(hbm_mutex_);
  return hbm_bytes_used_;
}

bool DeviceCore::TryReserveHbm(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(hbm_mutex_);
  // Written as a subtraction so that a huge request cannot wrap around.
  if (bytes > hbm_bytes_limit_ - hbm_bytes_used_) return false;
  hbm_bytes_used_ += bytes;
  Counters().device_bytes_used.fetch_add(bytes);
  return true;
}

void DeviceCore::ReleaseHbm(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(hbm_mutex_);
  hbm_bytes_used_ -= bytes;
  Counters().device_bytes_used.fetch_sub(bytes);
}

std::optional<HbmReservation> HbmReservation::TryReserve(std::shared_ptr<DeviceCore> core,
                                                         uint64_t bytes) {
  if (!core->TryReserveHbm(bytes)) return std::nullopt;
  return HbmReservation(std::move(core), bytes);
}

HbmReservation::HbmReservation(std::shared_ptr<DeviceCore> core, uint64_t bytes)
    : core_(std::move(core)), bytes_(bytes) {}

HbmReservation::HbmReservation(HbmReservation&& other) noexcept
    : core_(std::move(other.core_)), bytes_(std::exchange(other.bytes_, 0)) {}

HbmReservation& HbmReservation::operator=(HbmReservation&& other) noexcept {
  if (this != &other) {
    Release();
    core_ = std::move(other.core_);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

HbmReservation::~HbmReservation() { Release(); }

void HbmReservation::Release() {
  if (core_ != nullptr && bytes_ != 0) core_->ReleaseHbm(bytes_);
  core_.reset();
  bytes_ = 0;
}

}  // namespace neuronserve::nrtsim
