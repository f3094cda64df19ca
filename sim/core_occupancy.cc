#include "sim/core_occupancy.h"

#include <utility>

namespace neuronserve::nrtsim {

CoreOccupancy::Claim::Claim(std::shared_ptr<CoreOccupancy> owner, uint32_t start, uint32_t count)
    : owner_(std::move(owner)), start_(start), count_(count) {}

CoreOccupancy::Claim::Claim(Claim&& other) noexcept
    : owner_(std::move(other.owner_)), start_(other.start_), count_(other.count_) {}

CoreOccupancy::Claim& CoreOccupancy::Claim::operator=(Claim&& other) noexcept {
  if (this != &other) {
    Release();
    owner_ = std::move(other.owner_);
    start_ = other.start_;
    count_ = other.count_;
  }
  return *this;
}

CoreOccupancy::Claim::~Claim() { Release(); }

void CoreOccupancy::Claim::Release() {
  if (owner_ != nullptr) owner_->Release(start_, count_);
  owner_.reset();
}

CoreOccupancy::Claim CoreOccupancy::ClaimCores(uint32_t start, uint32_t count) {
  MutexLock lock(&mutex_);
  for (uint32_t core = start; core < start + count; ++core) ++models_on_core_[core];
  return Claim(shared_from_this(), start, count);
}

std::optional<CoreOccupancy::Claim> CoreOccupancy::ClaimFirstFree(uint32_t count) {
  MutexLock lock(&mutex_);
  uint32_t run = 0;  // free cores ending at `core`
  for (uint32_t core = 0; core < models_on_core_.size(); ++core) {
    run = models_on_core_[core] == 0 ? run + 1 : 0;
    if (run == count) {
      uint32_t start = core + 1 - count;
      for (uint32_t c = start; c <= core; ++c) ++models_on_core_[c];
      return Claim(shared_from_this(), start, count);
    }
  }
  return std::nullopt;
}

void CoreOccupancy::Release(uint32_t start, uint32_t count) {
  MutexLock lock(&mutex_);
  for (uint32_t core = start; core < start + count; ++core) --models_on_core_[core];
}

}  // namespace neuronserve::nrtsim
