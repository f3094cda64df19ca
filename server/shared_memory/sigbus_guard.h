// SigbusGuard: keeps a client that shrinks its shared-memory object from killing the daemon.
//
// A region maps a client's POSIX shared-memory object. If the client truncates the object
// (ftruncate) after registering it, touching a page past the object's new end raises SIGBUS, and
// that touch may happen anywhere: in the daemon's own copy, or inside the runtime's
// nrt_tensor_write / nrt_tensor_read, which read and write the mapping directly. Jumping out of
// the runtime (siglongjmp) could leave its locks held, so the guard repairs instead: a
// process-wide SIGBUS handler looks the faulting address up among the guarded ranges and, when
// it is in one, maps anonymous zero-filled pages over that range from the faulting page to its
// end and marks the range lost. The handler returns, the faulting instruction runs again on the
// fresh pages, and the copy finishes with meaningless bytes; whoever used the range checks
// lost() afterwards and fails the request. The pages before the faulting one stay the client's
// (a truncation takes the tail). A lost range stays lost: its region must be registered anew.
//
// A SIGBUS outside every guarded range goes to the handler installed before (or, when that was
// the default, kills the process as it would have).
//
// The handler reads a fixed table of ranges with atomics only (no lock, no allocation), so
// registration never blocks it. Thread safety: every function may be called from any thread.
// Ownership: a GuardedRange owns its slot in the table and frees it on destruction, which must
// come before the range is unmapped.
#ifndef NEURON_SERVE_SERVER_SHARED_MEMORY_SIGBUS_GUARD_H_
#define NEURON_SERVE_SERVER_SHARED_MEMORY_SIGBUS_GUARD_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"

namespace neuronserve {

class GuardedRange {
 public:
  // Guards the `length` bytes at `begin` (a mapping's start: page-aligned), installing the
  // handler on first use. RESOURCE_EXHAUSTED when kMaxRanges are guarded already.
  static absl::StatusOr<GuardedRange> Guard(void* begin, size_t length);

  // The table's size: at most this many ranges guarded at once (the region limit stays below).
  static constexpr size_t kMaxRanges = 1024;

  GuardedRange(GuardedRange&& other) noexcept : slot_(other.slot_) { other.slot_ = kNoSlot; }
  GuardedRange& operator=(GuardedRange&& other) noexcept;
  GuardedRange(const GuardedRange&) = delete;
  GuardedRange& operator=(const GuardedRange&) = delete;
  ~GuardedRange() { Release(); }

  // True once a SIGBUS hit the range (its object shrank under it); never false again.
  bool lost() const;

  // SIGBUS signals the guard repaired since the process started (for tests and metrics).
  static uint64_t RepairedFaults();

 private:
  static constexpr size_t kNoSlot = ~size_t{0};
  explicit GuardedRange(size_t slot) : slot_(slot) {}
  void Release();

  size_t slot_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_SHARED_MEMORY_SIGBUS_GUARD_H_
