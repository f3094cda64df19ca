#include "server/admission/upload_slots.h"

namespace neuronserve {

UploadSlots::Slot::~Slot() {
  if (owner_ != nullptr) owner_->Release();
}

std::optional<UploadSlots::Slot> UploadSlots::TryTake() {
  MutexLock lock(&mutex_);
  if (taken_ >= limit_) return std::nullopt;
  ++taken_;
  return Slot(this);
}

uint32_t UploadSlots::taken() const {
  MutexLock lock(&mutex_);
  return taken_;
}

void UploadSlots::Release() {
  MutexLock lock(&mutex_);
  --taken_;
}

}  // namespace neuronserve
