// UploadSlots: how many LoadModel uploads may be open at once (--max-concurrent-uploads).
//
// An upload holds its NEFF in memory until the load is done, so the number open at once bounds
// the memory a burst of uploads can take (up to --max-model-bytes each). A LoadModel call takes
// a slot when it starts, or is refused (RESOURCE_EXHAUSTED) when none is free, and gives it back
// when gRPC is done with the call, however it ended: the slot is an RAII object it holds.
//
// Thread safety: every method may be called from any thread; a Slot may be released on a thread
// other than the one that took it. Ownership: a Slot borrows its UploadSlots, which must outlive
// it.
#ifndef NEURON_SERVE_SERVER_ADMISSION_UPLOAD_SLOTS_H_
#define NEURON_SERVE_SERVER_ADMISSION_UPLOAD_SLOTS_H_

#include <cstdint>
#include <optional>

#include "base/mutex.h"

namespace neuronserve {

class UploadSlots {
 public:
  // A slot taken; released on destruction (moved-from slots release nothing).
  class Slot {
   public:
    Slot(Slot&& other) noexcept : owner_(other.owner_) { other.owner_ = nullptr; }
    Slot& operator=(Slot&&) = delete;
    Slot(const Slot&) = delete;
    ~Slot();

   private:
    friend class UploadSlots;
    explicit Slot(UploadSlots* owner) : owner_(owner) {}
    UploadSlots* owner_;
  };

  // `limit` slots (0 would refuse every upload; main.cc refuses that value).
  explicit UploadSlots(uint32_t limit) : limit_(limit) {}
  UploadSlots(const UploadSlots&) = delete;
  UploadSlots& operator=(const UploadSlots&) = delete;

  // A free slot, or nullopt when `limit()` are taken.
  std::optional<Slot> TryTake();

  uint32_t limit() const { return limit_; }
  uint32_t taken() const;

 private:
  void Release();

  const uint32_t limit_;
  mutable Mutex mutex_;
  uint32_t taken_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_ADMISSION_UPLOAD_SLOTS_H_
