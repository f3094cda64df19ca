#include "util/malloc_tuning.h"

#include <malloc.h>

#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/sanitizer_build.h"

namespace neuronserve {
namespace {

constexpr int kMmapThreshold = 32 << 20;  // glibc's maximum on 64-bit
constexpr int kTrimThreshold = 1 << 30;

// One arena per core (glibc's default is 8 per core on 64-bit): each arena keeps the high-water
// mark of what it held, which malloc_trim cannot hand back for any arena but the first, so the
// fewer arenas the less memory a long mixed load leaves resident. With one per core, threads
// rarely wait for an arena: small blocks come from each thread's own cache anyway.
int ArenaMax() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

}  // namespace

absl::StatusOr<MallocMode> ParseMallocMode(std::string_view text) {
  if (text == "tuned") return MallocMode::kTuned;
  if (text == "default") return MallocMode::kDefault;
  return absl::InvalidArgumentError(
      absl::StrCat("--malloc must be tuned or default (got '", std::string(text), "')"));
}

void ApplyMallocMode(MallocMode mode) {
  if (mode != MallocMode::kTuned) return;
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
  mallopt(M_ARENA_MAX, ArenaMax());
}

std::string TunedGlibcTunables(const char* existing) {
  std::string tunables =
      existing != nullptr && *existing != '\0' ? std::string(existing) + ":" : "";
  tunables += "glibc.malloc.mmap_threshold=" + std::to_string(kMmapThreshold) +
              ":glibc.malloc.trim_threshold=" + std::to_string(kTrimThreshold) +
              ":glibc.malloc.arena_max=" + std::to_string(ArenaMax());
  return tunables;
}

std::optional<uint64_t> HeapInUseBytes() {
#if NEURON_SERVE_UNDER_SANITIZER
  // Its allocator replaces malloc: mallinfo2 would read glibc's idle one.
  return std::nullopt;
#else
  const struct mallinfo2 info = mallinfo2();
  return uint64_t{info.uordblks} + uint64_t{info.hblkhd};
#endif
}

PeriodicMallocTrim::PeriodicMallocTrim(absl::Duration interval)
    : interval_(interval), thread_([this] {
        for (;;) {
          {
            MutexLock lock(&mutex_);
            wake_.WaitWithTimeout(
                &mutex_, interval_,
                [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return stopping_; });
            if (stopping_) return;
          }
          malloc_trim(0);
          MutexLock lock(&mutex_);
          ++trims_;
        }
      }) {}

PeriodicMallocTrim::~PeriodicMallocTrim() {
  {
    MutexLock lock(&mutex_);
    stopping_ = true;
    wake_.NotifyAll();
  }
  thread_.join();
}

uint64_t PeriodicMallocTrim::trims() const {
  MutexLock lock(&mutex_);
  return trims_;
}

}  // namespace neuronserve
