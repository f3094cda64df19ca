// Reduce (sim/compute/kernels.h): sum and mean over the first, a middle and the last axis
// on every dtype. Expected elements are computed here from coordinates: float32 sums in index
// order rounded once by the reference encoders, integer sums exact and then wrapped.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/compute/kernels.h"
#include "tests/sim/compute/test_tensor.h"

namespace neuronserve::nrtsim::compute {
namespace {

using testing::Int128;
using testing::TestTensor;

const Shape kShape = {2, 3, 4};

// The flat index of coordinates (c0, c1, c2) in kShape.
size_t FlatIndex(size_t c0, size_t c1, size_t c2) { return (c0 * 3 + c1) * 4 + c2; }

TestTensor ExpectedReduce(ReduceOp op, const TestTensor& in, uint32_t axis) {
  TestTensor expected{in.dtype, {}, {}};
  const size_t count = kShape[axis];
  // Output coordinates are in's with the axis fixed at 0, in row-major order.
  for (size_t c0 = 0; c0 < (axis == 0 ? 1 : kShape[0]); ++c0) {
    for (size_t c1 = 0; c1 < (axis == 1 ? 1 : kShape[1]); ++c1) {
      for (size_t c2 = 0; c2 < (axis == 2 ? 1 : kShape[2]); ++c2) {
        float float_sum = 0.0f;
        Int128 integer_sum = 0;
        for (size_t r = 0; r < count; ++r) {
          const size_t index =
              FlatIndex(axis == 0 ? r : c0, axis == 1 ? r : c1, axis == 2 ? r : c2);
          if (testing::IsFloatType(in.dtype)) {
            float_sum += static_cast<float>(in.float_value(index));
          } else {
            integer_sum += in.integer_value(index);
          }
        }
        std::vector<std::byte> bytes;
        if (testing::IsFloatType(in.dtype)) {
          const float result =
              op == ReduceOp::kMean ? float_sum / static_cast<float>(count) : float_sum;
          bytes = testing::ReferenceFloatBytes(in.dtype, result);
        } else {
          // The kernel sums in 64 bits, wrapping: uint64 sums of wrapped negative values do
          // wrap. C++ integer division then truncates toward zero.
          const Int128 sum64 = testing::IsSignedType(in.dtype)
                                   ? static_cast<Int128>(static_cast<int64_t>(integer_sum))
                                   : static_cast<Int128>(static_cast<uint64_t>(integer_sum));
          const Int128 result = op == ReduceOp::kMean ? sum64 / static_cast<Int128>(count) : sum64;
          bytes = testing::IntegerBytes(in.dtype, result);
        }
        expected.bytes.insert(expected.bytes.end(), bytes.begin(), bytes.end());
      }
    }
  }
  return expected;
}

std::vector<double> Values(DataType type) {
  std::vector<double> values;
  for (size_t i = 0; i < ElementCount(kShape); ++i) {
    const double base = static_cast<double>((i * 5) % 23) - 11;
    values.push_back(testing::IsFloatType(type) ? base * 0.3 : base * 9);
  }
  return values;
}

TEST(Reduce, SumAndMeanOverEveryAxisOnEveryDtype) {
  std::vector<DataType> types(std::begin(testing::kFloatTypes), std::end(testing::kFloatTypes));
  types.insert(types.end(), std::begin(testing::kIntegerTypes), std::end(testing::kIntegerTypes));
  for (DataType type : types) {
    const TestTensor in = testing::AnyTensor(type, kShape, Values(type));
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMean}) {
      for (uint32_t axis = 0; axis < 3; ++axis) {
        TestTensor expected = ExpectedReduce(op, in, axis);
        // The axis removed, and kept as 1: the same elements either way.
        Shape removed = kShape;
        removed.erase(removed.begin() + axis);
        Shape kept = kShape;
        kept[axis] = 1;
        for (const Shape& out_shape : {removed, kept}) {
          expected.shape = out_shape;
          TestTensor out = testing::UnwrittenTensor(type, out_shape);
          Reduce(op, in.view(), axis, out.mutable_view());
          testing::ExpectSameElements(expected, out,
                                      std::string(op == ReduceOp::kSum ? "sum" : "mean") +
                                          " over axis " + std::to_string(axis) + " of rank " +
                                          std::to_string(out_shape.size()));
        }
      }
    }
  }
}

TEST(Reduce, HandComputedIntegerCases) {
  // int8 sum wraps: 100 + 100 + 101 = 301 -> 301 - 256 = 45.
  const TestTensor bytes = testing::IntegerTensor(DataType::kInt8, {3}, {100, 100, 101});  // 301
  TestTensor out = testing::UnwrittenTensor(DataType::kInt8, {1});
  Reduce(ReduceOp::kSum, bytes.view(), 0, out.mutable_view());
  EXPECT_TRUE(out.integer_value(0) == 45);
  // The mean divides the 64-bit sum, not a wrapped int8 one: 301 / 3 = 100.
  Reduce(ReduceOp::kMean, bytes.view(), 0, out.mutable_view());
  EXPECT_TRUE(out.integer_value(0) == 100);
  // Truncation toward zero: -7 / 2 = -3.
  const TestTensor negative = testing::IntegerTensor(DataType::kInt32, {2}, {-7, 0});
  TestTensor mean = testing::UnwrittenTensor(DataType::kInt32, {1});
  Reduce(ReduceOp::kMean, negative.view(), 0, mean.mutable_view());
  EXPECT_TRUE(mean.integer_value(0) == -3);
}

TEST(Reduce, LongInnerDimensionsAreSummedInBlocks) {
  // An inner dimension longer than the kernel's accumulator block (4096) for a converted dtype.
  const uint32_t inner = 5000;
  std::vector<double> values;
  // Both rows hold j % 7 at column j.
  for (uint32_t i = 0; i < 2 * inner; ++i) values.push_back(static_cast<double>(i % inner % 7));
  const TestTensor in = testing::FloatTensor(DataType::kFloat16, {2, inner}, values);
  TestTensor out = testing::UnwrittenTensor(DataType::kFloat16, {inner});
  Reduce(ReduceOp::kSum, in.view(), 0, out.mutable_view());
  for (uint32_t j = 0; j < inner; ++j) {
    ASSERT_EQ(out.float_value(j), 2.0 * (j % 7)) << j;
  }
}

}  // namespace
}  // namespace neuronserve::nrtsim::compute
