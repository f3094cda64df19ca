// server/admission/upload_slots: the bound on uploads open at once, and its RAII release, also
// from many threads at once (this test runs under ThreadSanitizer).
#include "server/admission/upload_slots.h"

#include <atomic>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace neuronserve {
namespace {

TEST(UploadSlotsTest, TheLimitHoldsAndAReleasedSlotCanBeTakenAgain) {
  UploadSlots slots(2);
  std::optional<UploadSlots::Slot> first = slots.TryTake();
  std::optional<UploadSlots::Slot> second = slots.TryTake();
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(second.has_value());
  EXPECT_FALSE(slots.TryTake().has_value());
  EXPECT_EQ(slots.taken(), 2u);
  first.reset();
  EXPECT_EQ(slots.taken(), 1u);
  EXPECT_TRUE(slots.TryTake().has_value());  // taken and released again at once
  EXPECT_EQ(slots.taken(), 1u);
}

TEST(UploadSlotsTest, AMovedSlotReleasesOnce) {
  UploadSlots slots(1);
  {
    std::optional<UploadSlots::Slot> taken = slots.TryTake();
    ASSERT_TRUE(taken.has_value());
    UploadSlots::Slot moved(std::move(*taken));
    taken.reset();  // the moved-from slot releases nothing
    EXPECT_EQ(slots.taken(), 1u);
    EXPECT_FALSE(slots.TryTake().has_value());
  }
  EXPECT_EQ(slots.taken(), 0u);
}

TEST(UploadSlotsTest, ManyThreadsNeverHoldMoreThanTheLimit) {
  constexpr uint32_t kLimit = 3;
  UploadSlots slots(kLimit);
  std::atomic<int> holding{0};
  std::atomic<int> most{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        std::optional<UploadSlots::Slot> slot = slots.TryTake();
        if (!slot.has_value()) {
          refused.fetch_add(1);
          continue;
        }
        const int now = holding.fetch_add(1) + 1;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        holding.fetch_sub(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_LE(most.load(), static_cast<int>(kLimit));
  EXPECT_GE(most.load(), 1);
  EXPECT_EQ(slots.taken(), 0u);
}

}  // namespace
}  // namespace neuronserve
