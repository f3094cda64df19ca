// QueuedBytesBudget: the most bytes of request inputs the daemon's queues may hold at once, all
// models together (--max-queued-bytes). Each model's scheduler bounds how many requests wait
// (max_queue), but not how large they are: 1024 queued requests of 64 MiB would hold 64 GiB.
// A scheduler adds a request's input bytes when it admits it and takes them off when the
// request leaves its queue (a worker took it, it was cancelled, the queue closed); a request
// that would take the total past the limit is refused with the overload answer
// (QueuedBytesFullError, queue_full.h) and the client retries later.
//
// Thread safety: lock-free; any thread. Ownership: the daemon owns it and it outlives every
// scheduler that borrows it.
#ifndef NEURON_SERVE_CORE_SERVING_SCHEDULING_QUEUED_BYTES_BUDGET_H_
#define NEURON_SERVE_CORE_SERVING_SCHEDULING_QUEUED_BYTES_BUDGET_H_

#include <atomic>
#include <cstdint>

namespace neuronserve {

class QueuedBytesBudget {
 public:
  // `limit` 0: no limit (the bytes are still counted).
  explicit QueuedBytesBudget(uint64_t limit) : limit_(limit) {}
  QueuedBytesBudget(const QueuedBytesBudget&) = delete;
  QueuedBytesBudget& operator=(const QueuedBytesBudget&) = delete;

  // Adds `bytes` unless the total would pass the limit. A request is admitted whatever its
  // size while nothing else is held, so that a limit below one request's size slows such
  // requests down to one at a time instead of refusing them for ever.
  bool TryAdd(uint64_t bytes) {
    uint64_t held = held_.load(std::memory_order_relaxed);
    do {
      if (limit_ != 0 && held != 0 && (bytes > limit_ || held > limit_ - bytes)) return false;
    } while (!held_.compare_exchange_weak(held, held + bytes, std::memory_order_relaxed));
    return true;
  }
  // Takes off bytes an earlier TryAdd added.
  void Remove(uint64_t bytes) { held_.fetch_sub(bytes, std::memory_order_relaxed); }

  uint64_t held() const { return held_.load(std::memory_order_relaxed); }
  uint64_t limit() const { return limit_; }

 private:
  const uint64_t limit_;
  std::atomic<uint64_t> held_{0};
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_SCHEDULING_QUEUED_BYTES_BUDGET_H_
