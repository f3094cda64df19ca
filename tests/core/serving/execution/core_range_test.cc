#include "core/serving/execution/core_range.h"

#include <vector>

#include "gtest/gtest.h"

namespace neuronserve {
namespace {

TEST(CoreRangeTest, OneCoreIsItsIndexAndMoreAreFirstToLast) {
  EXPECT_EQ(FormatCoreRange({3, 1}), "3");
  EXPECT_EQ(FormatCoreRange({1, 2}), "1-2");
  EXPECT_EQ(NameCoreRange({3, 1}), "core 3");
  EXPECT_EQ(NameCoreRange({4, 4}), "cores 4-7");
}

TEST(CoreRangeTest, FormatCoreRangesKeepsAdjacentRangesApart) {
  const std::vector<CoreRange> ranges = {{0, 2}, {2, 2}, {5, 1}};
  EXPECT_EQ(FormatCoreRanges(ranges), "0-1, 2-3, 5");
  EXPECT_EQ(FormatCoreRanges({}), "");
}

TEST(CoreRangeTest, FormatCoreListJoinsRunsOfConsecutiveCores) {
  EXPECT_EQ(FormatCoreList({}), "");
  EXPECT_EQ(FormatCoreList({4}), "4");
  EXPECT_EQ(FormatCoreList({0, 3}), "0, 3");
  EXPECT_EQ(FormatCoreList({1, 2}), "1-2");
  EXPECT_EQ(FormatCoreList({0, 1, 2, 3, 5}), "0-3, 5");
  EXPECT_EQ(FormatCoreList({0, 2, 3, 4, 7, 9, 10}), "0, 2-4, 7, 9-10");
}

}  // namespace
}  // namespace neuronserve
