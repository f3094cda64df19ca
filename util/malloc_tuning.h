// How a process of neuron-serve sets up glibc's malloc: the daemon (--malloc) and the benchmark
// (for itself and its echo server) use the same settings.
//
// Why: with glibc's defaults a process that frees a multi-MiB buffer at the top of its heap
// hands the pages back to the kernel (trim), and faults them in again, zero-filled, on the next
// request; and buffers over the dynamic mmap threshold are mapped and unmapped per request.
// Whether that happens on every request depends on the order of a server's allocations, not on
// how much work it does: the benchmark measured at 1 MiB a bare echo server taking several
// times as many page faults per request as the daemon. Keeping freed memory (a trim threshold
// of 1 GiB) and heap-allocating up to 32 MiB (glibc's largest mmap threshold) takes the kernel
// out of both paths. The cost: memory a burst freed stays with the process (up to the peak of
// what it held), which a server that runs for long at a steady load holds again soon anyway.
//
// Under a sanitizer (which brings its own allocator) the settings do nothing.
//
// Thread safety: ApplyMallocMode before the process starts threads; HeapInUseBytes from any
// thread; the rest are pure.
#ifndef NEURON_SERVE_UTIL_MALLOC_TUNING_H_
#define NEURON_SERVE_UTIL_MALLOC_TUNING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

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

}  // namespace neuronserve

#endif  // NEURON_SERVE_UTIL_MALLOC_TUNING_H_
