// The malloc settings of util/malloc_tuning.h: the flag's two values, and (without a sanitizer,
// whose allocator ignores mallopt) that a tuned process takes a 4 MiB buffer from its heap
// instead of mapping it.
#include "util/malloc_tuning.h"

#include <malloc.h>

#include <cstdlib>
#include <string>

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
  EXPECT_EQ(TunedGlibcTunables(nullptr),
            "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824");
  EXPECT_EQ(TunedGlibcTunables("glibc.malloc.arena_max=2"),
            "glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=33554432:"
            "glibc.malloc.trim_threshold=1073741824");
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

}  // namespace
}  // namespace neuronserve
