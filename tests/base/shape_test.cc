#include "base/shape.h"

#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace neuronserve {
namespace {

TEST(ShapeTest, ShapeToStringIsBracketedAndCommaSeparated) {
  const Shape shape = {1, 16};
  EXPECT_EQ(ShapeToString(shape), "[1,16]");
  EXPECT_EQ(ShapeToString({}), "[]");
  EXPECT_EQ(ShapeToString(Shape{4294967295u}), "[4294967295]");
}

TEST(ShapeTest, CheckedElementCountMultipliesAndRefusesOverflow) {
  EXPECT_EQ(CheckedElementCount({}), 1u);
  EXPECT_EQ(CheckedElementCount(Shape{2, 3, 4}), 24u);
  EXPECT_EQ(CheckedElementCount(Shape{5, 0}), 0u);
  const uint32_t max = std::numeric_limits<uint32_t>::max();
  EXPECT_EQ(CheckedElementCount(Shape{max, max}), uint64_t{max} * max);
  EXPECT_EQ(CheckedElementCount(Shape{max, max, 2}), std::nullopt);
}

TEST(ShapeTest, ElementCountIsTheCheckedCountOfAShapeThatFits) {
  const uint32_t max = std::numeric_limits<uint32_t>::max();
  for (const Shape& shape : {Shape{}, Shape{2, 3, 4}, Shape{5, 0}, Shape{max, max}}) {
    EXPECT_EQ(ElementCount(shape), CheckedElementCount(shape)) << ShapeToString(shape);
  }
}

}  // namespace
}  // namespace neuronserve
