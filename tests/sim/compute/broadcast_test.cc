// BroadcastShape (sim/compute/broadcast.h): numpy's rules, on hand-worked shapes.
#include "sim/compute/broadcast.h"

#include <gtest/gtest.h>

namespace neuronserve::nrtsim::compute {
namespace {

TEST(BroadcastShape, FollowsNumpyRules) {
  EXPECT_EQ(BroadcastShape({2, 3, 4}, {4}), (Shape{2, 3, 4}));
  EXPECT_EQ(BroadcastShape({4}, {2, 3, 4}), (Shape{2, 3, 4}));
  EXPECT_EQ(BroadcastShape({1, 5, 3}, {1, 5, 1}), (Shape{1, 5, 3}));
  EXPECT_EQ(BroadcastShape({2, 1}, {1, 3}), (Shape{2, 3}));
  EXPECT_EQ(BroadcastShape({3, 1, 2}, {4, 1}), (Shape{3, 4, 2}));
  EXPECT_EQ(BroadcastShape({7}, {1}), (Shape{7}));
  EXPECT_EQ(BroadcastShape({1}, {1}), (Shape{1}));
  EXPECT_EQ(BroadcastShape({2, 3}, {2, 3}), (Shape{2, 3}));
}

TEST(BroadcastShape, RefusesMismatchedDimensions) {
  EXPECT_EQ(BroadcastShape({2, 3}, {3, 2}), std::nullopt);
  EXPECT_EQ(BroadcastShape({2, 3, 4}, {3}), std::nullopt);
  EXPECT_EQ(BroadcastShape({5}, {4}), std::nullopt);
}

}  // namespace
}  // namespace neuronserve::nrtsim::compute
