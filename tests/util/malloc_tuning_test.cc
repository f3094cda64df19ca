// The malloc settings of util/malloc_tuning.h: the flag's two values, and (without a sanitizer,
// whose allocator ignores mallopt) that a tuned process takes a 4 MiB buffer from its heap
// instead of mapping it, that HeapInUseBytes follows allocations, and that PeriodicMallocTrim
// hands the free memory a tuned process keeps back to the kernel.
#include "util/malloc_tuning.h"

#include <malloc.h>

#include <cstdlib>
#include <fstream>
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/sanitizer_build.h"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;

TEST(MallocTuningTest, TheFlagTakesTunedOrDefault) {
  EXPECT_EQ(ParseMallocMode("tuned").value(), MallocMode::kTuned);
  EXPECT_EQ(ParseMallocMode("default").value(), MallocMode::kDefault);
  const absl::StatusOr<MallocMode> bad = ParseMallocMode("Tuned");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("--malloc must be tuned or default (got 'Tuned')"));
}

TEST(MallocTuningTest, GlibcTunablesKeepWhatWasThere) {
  // One arena per core.
  const std::string arenas =
      "glibc.malloc.arena_max=" + std::to_string(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(TunedGlibcTunables(nullptr),
            "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824:" + arenas);
  EXPECT_EQ(TunedGlibcTunables("glibc.malloc.perturb=0"),
            "glibc.malloc.perturb=0:glibc.malloc.mmap_threshold=33554432:"
            "glibc.malloc.trim_threshold=1073741824:" + arenas);
}

TEST(MallocTuningTest, ATunedProcessTakesLargeBuffersFromItsHeap) {
#ifdef NEURON_SERVE_TEST_UNDER_SANITIZER
  GTEST_SKIP() << "a sanitizer's allocator ignores mallopt";
#else
  // glibc's default maps a 4 MiB buffer of its own (over the 128 KiB starting threshold).
  ApplyMallocMode(MallocMode::kTuned);
  const size_t mapped_before = mallinfo2().hblkhd;
  void* buffer = std::malloc(size_t{4} << 20);
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(mallinfo2().hblkhd, mapped_before);  // not mapped: from the heap
  std::free(buffer);
#endif
}

#ifndef NEURON_SERVE_TEST_UNDER_SANITIZER
// This process's resident memory (VmRSS), in bytes.
uint64_t ResidentBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}
#endif

TEST(MallocTuningTest, HeapInUseBytesFollowsAnAllocation) {
#ifdef NEURON_SERVE_TEST_UNDER_SANITIZER
  EXPECT_FALSE(HeapInUseBytes().has_value()) << "mallinfo2 does not describe a sanitizer's heap";
#else
  const uint64_t before = HeapInUseBytes().value();
  void* buffer = std::malloc(size_t{8} << 20);
  ASSERT_NE(buffer, nullptr);
  EXPECT_GE(HeapInUseBytes().value(), before + (size_t{8} << 20));
  std::free(buffer);
  EXPECT_LT(HeapInUseBytes().value(), before + (size_t{1} << 20));
#endif
}

TEST(MallocTuningTest, PeriodicTrimHandsTheFreeMemoryATunedProcessKeepsBack) {
#ifdef NEURON_SERVE_TEST_UNDER_SANITIZER
  GTEST_SKIP() << "a sanitizer's allocator ignores mallopt and keeps freed memory on purpose";
#else
  ApplyMallocMode(MallocMode::kTuned);
  // 64 MiB in blocks of 64 KiB, written so that they are resident, then every other one freed:
  // the free blocks sit between used ones, where only malloc_trim can give their pages back.
  constexpr size_t kBlock = size_t{64} << 10;
  std::vector<char*> blocks;
  for (int i = 0; i < 1024; ++i) {
    blocks.push_back(static_cast<char*>(std::malloc(kBlock)));
    ASSERT_NE(blocks.back(), nullptr);
    std::fill(blocks.back(), blocks.back() + kBlock, 1);
  }
  for (size_t i = 0; i < blocks.size(); i += 2) std::free(blocks[i]);
  const uint64_t kept = ResidentBytes();
  {
    PeriodicMallocTrim trim(absl::Milliseconds(10));
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (trim.trims() == 0 && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(5));
    EXPECT_GE(trim.trims(), 1u);
  }
  // Half the blocks (32 MiB) were free; most of their pages go back.
  EXPECT_LE(ResidentBytes() + (size_t{24} << 20), kept)
      << "RSS " << ResidentBytes() << " after the trim, " << kept << " before";
  for (size_t i = 1; i < blocks.size(); i += 2) std::free(blocks[i]);
#endif
}

TEST(MallocTuningTest, PeriodicTrimStopsAtOnceWhenDestroyed) {
  const absl::Time start = absl::Now();
  { PeriodicMallocTrim trim(absl::Hours(1)); }
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
}

}  // namespace
}  // namespace neuronserve
