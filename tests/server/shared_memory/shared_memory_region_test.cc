#include "server/shared_memory/shared_memory_region.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/shared_memory/sigbus_guard.h"
#include "tests/support/shm_object.h"

namespace neuronserve {
namespace {

using ::neuronserve::testing::ShmObject;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr size_t kPage = 4096;

TEST(SharedMemoryRegionTest, MapsTheBytesAtAnUnalignedOffset) {
  ShmObject object(4 * kPage);
  ASSERT_TRUE(object.ok());
  // Not page-aligned: the mapping starts at the page below and the region where asked.
  const uint64_t offset = kPage + 100;
  auto region = SharedMemoryRegion::Open("r", object.key(), offset, 2 * kPage);
  ASSERT_TRUE(region.ok()) << region.status();
  auto all = (*region)->Slice(0, 2 * kPage, "input 'x'");
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2 * kPage);
  for (size_t i = 0; i < all->size(); ++i) {
    ASSERT_EQ((*all)[i], ShmObject::Expected(offset + i)) << i;
  }
  // Both ways: the daemon's writes are the client's bytes.
  auto tail = (*region)->Slice(kPage, 16, "output 'y'");
  ASSERT_TRUE(tail.ok()) << tail.status();
  std::memset(tail->data(), 0xAB, tail->size());
  EXPECT_EQ(object.bytes()[offset + kPage], 0xAB);
  EXPECT_EQ(object.bytes()[offset + kPage + 16], ShmObject::Expected(offset + kPage + 16));
  EXPECT_EQ((*region)->name(), "r");
  EXPECT_EQ((*region)->key(), object.key());
  EXPECT_EQ((*region)->offset(), offset);
  EXPECT_EQ((*region)->byte_size(), 2 * kPage);
  EXPECT_FALSE((*region)->lost());
}

TEST(SharedMemoryRegionTest, TheKeyWithoutItsSlashOpensTheSameObject) {
  ShmObject object(kPage);
  ASSERT_TRUE(object.ok());
  auto region = SharedMemoryRegion::Open("r", object.key().substr(1), 0, kPage);
  ASSERT_TRUE(region.ok()) << region.status();
  EXPECT_EQ((*(*region)->Slice(0, 1, "input 'x'"))[0], ShmObject::Expected(0));
}

TEST(SharedMemoryRegionTest, RefusesRangesOutsideTheObjectWithoutOverflowing) {
  ShmObject object(2 * kPage);
  ASSERT_TRUE(object.ok());
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  struct Case {
    uint64_t offset;
    uint64_t byte_size;
  };
  for (const Case& c : std::vector<Case>{{0, 2 * kPage + 1},
                                         {2 * kPage, 1},
                                         {2 * kPage + 1, 0 + 1},
                                         {kPage, max},
                                         {max, 2},
                                         {max - 1, 2}}) {
    auto region = SharedMemoryRegion::Open("big", object.key(), c.offset, c.byte_size);
    ASSERT_FALSE(region.ok()) << c.offset << " " << c.byte_size;
    EXPECT_EQ(region.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(region.status().message(), HasSubstr("shared memory region 'big'"));
    EXPECT_THAT(region.status().message(), HasSubstr("8192 bytes"));
    EXPECT_THAT(region.status().message(), Not(HasSubstr(object.key().substr(1))));
  }
  auto empty = SharedMemoryRegion::Open("empty", object.key(), 0, 0);
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.status().message(), HasSubstr("byte_size is 0"));
}

TEST(SharedMemoryRegionTest, SliceChecksOffsetAndSizeWithoutOverflowing) {
  ShmObject object(kPage);
  ASSERT_TRUE(object.ok());
  auto region = SharedMemoryRegion::Open("r", object.key(), 0, 1000);
  ASSERT_TRUE(region.ok()) << region.status();
  EXPECT_TRUE((*region)->Slice(0, 1000, "input 'x'").ok());
  EXPECT_TRUE((*region)->Slice(1000, 0, "input 'x'").ok());
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  for (auto [offset, size] : std::vector<std::pair<uint64_t, uint64_t>>{
           {0, 1001}, {1001, 0}, {999, 2}, {1, max}, {max, 1}}) {
    auto slice = (*region)->Slice(offset, size, "input 'x'");
    ASSERT_FALSE(slice.ok()) << offset << " " << size;
    EXPECT_EQ(slice.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(slice.status().message(),
                HasSubstr("shared memory region 'r': input 'x''s offset"));
    EXPECT_THAT(slice.status().message(), HasSubstr("(1000 bytes)"));
  }
}

TEST(SharedMemoryRegionTest, MissingAndMalformedKeysAreRefusedWithoutNamingTheKey) {
  const std::string missing = "/neuron-serve-test-no-such-object-" + std::to_string(getpid());
  auto absent = SharedMemoryRegion::Open("r", missing, 0, 10);
  EXPECT_EQ(absent.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(absent.status().message(), HasSubstr("shared memory region 'r'"));
  EXPECT_THAT(absent.status().message(), Not(HasSubstr("no-such-object")));

  for (const std::string& key :
       std::vector<std::string>{"", "/", "///", "/a/b", "../etc/passwd", std::string(300, 'k')}) {
    auto region = SharedMemoryRegion::Open("r", key, 0, 10);
    ASSERT_FALSE(region.ok()) << key;
    EXPECT_EQ(region.status().code(), absl::StatusCode::kInvalidArgument) << key;
    if (!key.empty() && key.find_first_not_of('/') != std::string::npos) {
      EXPECT_THAT(region.status().message(), Not(HasSubstr(key.substr(1, 3))));
    }
  }
}

TEST(SharedMemoryRegionTest, AnObjectTruncatedUnderTheMappingIsRepairedAndMarkedLost) {
  ShmObject object(16 * kPage);
  ASSERT_TRUE(object.ok());
  auto region = SharedMemoryRegion::Open("r", object.key(), 100, 8 * kPage);
  ASSERT_TRUE(region.ok()) << region.status();
  absl::Span<uint8_t> bytes = *(*region)->Slice(0, 8 * kPage, "input 'x'");
  ASSERT_TRUE((*region)->CheckNotLost().ok());

  // The client shrinks its object to 2 pages: the region's bytes past them are gone.
  ASSERT_TRUE(object.Truncate(2 * kPage));
  const uint64_t repaired_before = GuardedRange::RepairedFaults();
  std::vector<uint8_t> copy(bytes.size());
  std::memcpy(copy.data(), bytes.data(), bytes.size());  // would be SIGBUS unguarded
  std::memset(bytes.data(), 0x5A, bytes.size());         // and so would the writes

  EXPECT_TRUE((*region)->lost());
  EXPECT_GE(GuardedRange::RepairedFaults(), repaired_before + 1);
  // The bytes before the truncation point are the client's still.
  EXPECT_EQ(copy[0], ShmObject::Expected(100));
  EXPECT_EQ(copy[kPage], ShmObject::Expected(100 + kPage));
  const absl::Status lost = (*region)->CheckNotLost();
  EXPECT_EQ(lost.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(lost.message(), HasSubstr("shared memory region 'r'"));
  EXPECT_THAT(lost.message(), HasSubstr("truncated"));
  region->reset();  // unmaps what is left, repaired pages included
}

TEST(SharedMemoryRegionTest, ALostRegionStaysLostAndANewRegionOfTheObjectIsNot) {
  ShmObject object(4 * kPage);
  ASSERT_TRUE(object.ok());
  auto first = SharedMemoryRegion::Open("a", object.key(), 0, 4 * kPage);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(object.Truncate(kPage));
  volatile uint8_t sink = (*(*first)->Slice(3 * kPage, 1, "input 'x'"))[0];
  (void)sink;
  ASSERT_TRUE((*first)->lost());
  // Grown back, the object maps again: a fresh registration is a fresh guard.
  ASSERT_TRUE(object.Truncate(4 * kPage));
  auto second = SharedMemoryRegion::Open("b", object.key(), 0, 4 * kPage);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_FALSE((*second)->lost());
  EXPECT_EQ((*(*second)->Slice(3 * kPage, 1, "input 'x'"))[0], 0);  // zeros after regrowth
  EXPECT_TRUE((*first)->lost());
}

// A SIGBUS outside every guarded range still ends the process as it did before the guard: the
// guard takes only what is its own. Without a sanitizer that is SIGBUS's default action; under
// AddressSanitizer or ThreadSanitizer, whose handler was there first, their report and then
// their exit code, or SIGABRT with abort_on_error=1 (as CI runs them). Either way the process
// must not reach _exit(0).
bool DiedOfTheSigbus(int status) {
  if (WIFSIGNALED(status)) return WTERMSIG(status) == SIGBUS || WTERMSIG(status) == SIGABRT;
  return WIFEXITED(status) && WEXITSTATUS(status) != 0;
}

TEST(SharedMemoryRegionDeathTest, ASigbusOutsideTheGuardedRangesStillKills) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ShmObject guarded(kPage);
  ASSERT_TRUE(guarded.ok());
  auto region = SharedMemoryRegion::Open("r", guarded.key(), 0, kPage);  // installs the guard
  ASSERT_TRUE(region.ok());
  // The death test's child runs this test again and dies: its objects must not outlive it.
  guarded.Unlink();
  EXPECT_EXIT(
      {
        ShmObject unguarded(4 * kPage);
        uint8_t* bytes = unguarded.bytes();
        unguarded.Truncate(0);
        unguarded.Unlink();
        volatile uint8_t sink = bytes[2 * kPage];
        (void)sink;
        _exit(0);
      },
      DiedOfTheSigbus, "");
}

}  // namespace
}  // namespace neuronserve
