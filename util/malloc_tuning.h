// How a process of neuron-serve sets up glibc's malloc: the daemon (--malloc) and the benchmark
// (for itself and its echo server) use the same settings.
//
// Why: with glibc's defaults a process that frees a multi-MiB buffer at the top of its heap
// hands the pages back to the kernel (trim), and faults them in again, zero-filled, on the next
// request; and buffers over the dynamic mmap threshold are mapped and unmapped per request.
// Whether that happens on every request depends on the order of a server's allocations, not on
// how much work it does (tests/bench/README.md has the page faults the benchmark measured).
// Keeping freed memory (a trim threshold of 1 GiB) and heap-allocating up to 32 MiB (glibc's
// largest mmap threshold) takes the kernel out of both paths. The cost: memory a burst freed
// stays with the process (up to the peak of what it held), which a server that runs for long at
// a steady load holds again soon anyway.
//
// Under a sanitizer (which brings its own allocator) the settings do nothing.
//
// What keeping freed memory costs over time: each of glibc's arenas (8 per core by default, one
// per thread that allocates while the others' are busy) keeps the high-water mark of what it
// held, so under a long mixed load the RSS climbs in steps as arenas reach new peaks, though
// what is in use stays flat (the soak's figures: tests/bench/README.md). So the tuned settings
// allow one arena per core, and PeriodicMallocTrim hands the whole free pages inside every arena
// back to the kernel every few seconds (malloc_trim; the top of an arena other than the first
// stays): with both the soak's RSS stays flat. The pages a request reuses are faulted in once
// per interval, not once per request.
//
// Thread safety: ApplyMallocMode before the process starts threads; HeapInUseBytes and
// PeriodicMallocTrim from any thread; the rest are pure.
#ifndef NEURON_SERVE_UTIL_MALLOC_TUNING_H_
#define NEURON_SERVE_UTIL_MALLOC_TUNING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/mutex.h"

namespace neuronserve {

enum class MallocMode {
  kTuned,    // the settings above
  kDefault,  // glibc's defaults (and whatever GLIBC_TUNABLES says)
};

// "tuned" or "default"; else INVALID_ARGUMENT naming the value and both choices.
absl::StatusOr<MallocMode> ParseMallocMode(std::string_view text);

// Applies `mode` to this process (mallopt); kDefault changes nothing.
void ApplyMallocMode(MallocMode mode);

// For a child process's environment: GLIBC_TUNABLES with the tuned settings added to
// `existing` (the parent's GLIBC_TUNABLES, or null), for a program that does not tune itself.
std::string TunedGlibcTunables(const char* existing);

// The bytes malloc has handed out and not had back (mallinfo2: in-use chunks of every arena
// plus mapped chunks), which unlike RSS falls when memory is freed, whatever the trim settings.
// nullopt under a sanitizer, whose allocator mallinfo2 does not describe. Walks every arena
// under its lock: for a scrape, not a hot path.
std::optional<uint64_t> HeapInUseBytes();

// A thread that calls malloc_trim(0) every `interval` until destroyed (the destructor wakes it
// and joins). malloc_trim holds one arena's lock at a time while it returns that arena's free
// pages: a thread allocating from it meanwhile waits, for well under a millisecond at the sizes
// the daemon holds.
class PeriodicMallocTrim {
 public:
  explicit PeriodicMallocTrim(absl::Duration interval);
  ~PeriodicMallocTrim();
  PeriodicMallocTrim(const PeriodicMallocTrim&) = delete;
  PeriodicMallocTrim& operator=(const PeriodicMallocTrim&) = delete;

  // How many trims have run so far.
  uint64_t trims() const;

 private:
  const absl::Duration interval_;
  mutable Mutex mutex_;
  CondVar wake_;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  uint64_t trims_ ABSL_GUARDED_BY(mutex_) = 0;
  std::thread thread_;  // last: started once everything above exists
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_UTIL_MALLOC_TUNING_H_
