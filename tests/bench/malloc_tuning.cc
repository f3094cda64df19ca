#include "tests/bench/malloc_tuning.h"

#include <malloc.h>

namespace neuronserve::bench {
namespace {

constexpr int kMmapThreshold = 32 << 20;  // glibc's maximum on 64-bit
constexpr int kTrimThreshold = 1 << 30;

}  // namespace

std::string TunedGlibcTunables(const char* existing) {
  std::string tunables =
      existing != nullptr && *existing != '\0' ? std::string(existing) + ":" : "";
  tunables += "glibc.malloc.mmap_threshold=" + std::to_string(kMmapThreshold) +
              ":glibc.malloc.trim_threshold=" + std::to_string(kTrimThreshold);
  return tunables;
}

void TuneThisProcess() {
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
}

}  // namespace neuronserve::bench
