#include "sim/device_core.h"

#include <utility>

namespace neuronserve::nrtsim {

DeviceCore::DeviceCore(uint32_t visible_index, uint32_t machine_index, std::shared_ptr<HbmPool> hbm)
    : visible_index_(visible_index), machine_index_(machine_index), hbm_(std::move(hbm)) {}

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
