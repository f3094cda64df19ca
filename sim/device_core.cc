#include "sim/device_core.h"

#include <thread>
#include <utility>

namespace neuronserve::nrtsim {

DeviceCore::DeviceCore(uint32_t visible_index, uint32_t machine_index, std::shared_ptr<HbmPool> hbm)
    : visible_index_(visible_index), machine_index_(machine_index), hbm_(std::move(hbm)) {}

void DeviceCore::EndExecution(std::chrono::microseconds latency) const {
  execution_ns_.fetch_add(
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(latency).count()));
  executions_.fetch_add(1);
  executing_.fetch_sub(1);
}

void DeviceCore::Copy(uint64_t bytes, uint64_t bytes_per_second) const {
  copies_.fetch_add(1);
  copy_bytes_.fetch_add(bytes);
  if (bytes_per_second == 0) return;
  // bytes / bandwidth in nanoseconds, without overflowing for any byte count below 2^64 / 1e9
  // times the bandwidth (rounded up: a copy of one byte still takes time).
  const uint64_t whole_seconds = bytes / bytes_per_second;
  const uint64_t rest = bytes % bytes_per_second;
  const uint64_t nanoseconds =
      whole_seconds * 1'000'000'000 +
      static_cast<uint64_t>(
          (static_cast<unsigned __int128>(rest) * 1'000'000'000 + bytes_per_second - 1) /
          bytes_per_second);
  MutexLock engine(&copy_mutex_);
  if (executing_.load() > 0) copies_during_execution_.fetch_add(1);
  std::this_thread::sleep_for(std::chrono::nanoseconds(nanoseconds));
  copy_ns_.fetch_add(nanoseconds);
}

nrtsim_core_busy_t DeviceCore::Busy() const {
  nrtsim_core_busy_t busy{};
  busy.executions = executions_.load();
  busy.execution_ns = execution_ns_.load();
  busy.copies = copies_.load();
  busy.copy_bytes = copy_bytes_.load();
  busy.copy_ns = copy_ns_.load();
  busy.copies_during_execution = copies_during_execution_.load();
  return busy;
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
