// Binary (sim/compute/kernels.h) on every dtype with numpy broadcasting. Expected
// elements are computed here: broadcasting by coordinates, float ops in float32 rounded by the
// reference encoders, integer ops exactly in 128 bits and then wrapped.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "sim/compute/kernels.h"
#include "tests/sim/compute/test_tensor.h"

namespace neuronserve::nrtsim::compute {
namespace {

using testing::Int128;
using testing::TestTensor;

const BinaryOp kOps[] = {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul, BinaryOp::kDiv};

const char* NameOf(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "add";
    case BinaryOp::kSub:
      return "sub";
    case BinaryOp::kMul:
      return "mul";
    case BinaryOp::kDiv:
      return "div";
  }
  return "?";
}

// The flat index into an operand of shape `operand` of output element `out_index`: the output
// coordinates, aligned at the trailing dimension, with 0 wherever the operand's size is 1.
size_t OperandIndex(const Shape& operand, const Shape& out, size_t out_index) {
  const size_t missing = out.size() - operand.size();
  size_t index = 0;
  size_t stride = 1;
  size_t rest = out_index;
  for (size_t dim = out.size(); dim-- > 0;) {
    const size_t coordinate = rest % out[dim];
    rest /= out[dim];
    if (dim < missing) continue;
    const uint32_t size = operand[dim - missing];
    if (size != 1) index += coordinate * stride;
    stride *= size;
  }
  return index;
}

// Values with fractions and both signs; the divisor values are never 0.
std::vector<double> Dividends(size_t count, DataType type) {
  std::vector<double> values;
  for (size_t i = 0; i < count; ++i) {
    values.push_back(testing::IsFloatType(type) ? ((i * 7) % 13 - 6.0) * 0.75
                                                : (i * 37) % 201 - 100.0);
  }
  return values;
}
std::vector<double> Divisors(size_t count, DataType type) {
  std::vector<double> values;
  for (size_t i = 0; i < count; ++i) {
    if (testing::IsFloatType(type)) {
      values.push_back(((i * 5) % 11 - 5.0) * 0.5 + 0.25);
    } else {
      const double value = (i * 13) % 19 - 9.0;
      values.push_back(value == 0 ? 4.0 : value);
    }
  }
  return values;
}

float ApplyFloat(BinaryOp op, float x, float y) {
  switch (op) {
    case BinaryOp::kAdd:
      return x + y;
    case BinaryOp::kSub:
      return x - y;
    case BinaryOp::kMul:
      return x * y;
    case BinaryOp::kDiv:
      return x / y;
  }
  return 0;
}

// The exact result (the product modulo 2^128, whose low 64 bits are all that survive wrapping).
Int128 ApplyExactly(BinaryOp op, Int128 x, Int128 y) {
  switch (op) {
    case BinaryOp::kAdd:
      return x + y;
    case BinaryOp::kSub:
      return x - y;
    case BinaryOp::kMul:
      return static_cast<Int128>(static_cast<unsigned __int128>(x) *
                                 static_cast<unsigned __int128>(y));
    case BinaryOp::kDiv:
      return x / y;
  }
  return 0;
}

TestTensor ExpectedBinary(BinaryOp op, const TestTensor& a, const TestTensor& b,
                          const Shape& out_shape) {
  TestTensor expected{a.dtype, out_shape, {}};
  for (size_t i = 0; i < ElementCount(out_shape); ++i) {
    const size_t ai = OperandIndex(a.shape, out_shape, i);
    const size_t bi = OperandIndex(b.shape, out_shape, i);
    const std::vector<std::byte> bytes =
        testing::IsFloatType(a.dtype)
            ? testing::ReferenceFloatBytes(a.dtype,
                                           ApplyFloat(op, static_cast<float>(a.float_value(ai)),
                                                      static_cast<float>(b.float_value(bi))))
            : testing::IntegerBytes(a.dtype,
                                    ApplyExactly(op, a.integer_value(ai), b.integer_value(bi)));
    expected.bytes.insert(expected.bytes.end(), bytes.begin(), bytes.end());
  }
  return expected;
}

struct ShapePair {
  Shape a;
  Shape b;
  Shape out;
};
const ShapePair kShapePairs[] = {
    {{2, 3, 4}, {4}, {2, 3, 4}},
    {{4}, {2, 3, 4}, {2, 3, 4}},
    {{1, 5, 3}, {1, 5, 1}, {1, 5, 3}},
    {{2, 1}, {1, 3}, {2, 3}},
    {{2, 3}, {2, 3}, {2, 3}},
    {{3, 1, 2}, {4, 1}, {3, 4, 2}},
    {{1}, {6}, {6}},
    {{5, 1}, {5, 1}, {5, 1}},
    {{2, 1, 3, 1}, {1, 4, 1, 2}, {2, 4, 3, 2}},
};

TEST(Binary, EveryOpOnEveryDtypeWithBroadcasting) {
  for (DataType type : testing::AllComputeTypes()) {
    for (const ShapePair& shapes : kShapePairs) {
      const TestTensor a =
          testing::AnyTensor(type, shapes.a, Dividends(ElementCount(shapes.a), type));
      const TestTensor b =
          testing::AnyTensor(type, shapes.b, Divisors(ElementCount(shapes.b), type));
      for (BinaryOp op : kOps) {
        TestTensor out = testing::UnwrittenTensor(type, shapes.out);
        EXPECT_EQ(Binary(op, a.view(), b.view(), out.mutable_view()), std::nullopt);
        testing::ExpectSameElements(ExpectedBinary(op, a, b, shapes.out), out,
                                    std::string(NameOf(op)) + " of shapes " +
                                        std::to_string(shapes.a.size()) + "-d and " +
                                        std::to_string(shapes.b.size()) + "-d");
      }
    }
  }
}

TEST(Binary, Float32OperandsAtOddAddressesAreReadCorrectly) {
  // Tensor memory is normally float-aligned; a misaligned one takes the copying path.
  const TestTensor a = testing::FloatTensor(DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  const TestTensor b = testing::FloatTensor(DataType::kFloat32, {3}, {0.5, -1, 10});
  std::vector<std::byte> a_storage(a.bytes.size() + 1), b_storage(b.bytes.size() + 1),
      out_storage(a.bytes.size() + 1);
  std::memcpy(a_storage.data() + 1, a.bytes.data(), a.bytes.size());
  std::memcpy(b_storage.data() + 1, b.bytes.data(), b.bytes.size());
  const ConstTensor a_view{DataType::kFloat32, &a.shape, std::span(a_storage).subspan(1)};
  const ConstTensor b_view{DataType::kFloat32, &b.shape, std::span(b_storage).subspan(1)};
  const MutTensor out_view{DataType::kFloat32, &a.shape, std::span(out_storage).subspan(1)};
  EXPECT_EQ(Binary(BinaryOp::kMul, a_view, b_view, out_view), std::nullopt);
  const float expected[] = {0.5f, -2.0f, 30.0f, 2.0f, -5.0f, 60.0f};
  EXPECT_EQ(std::memcmp(out_storage.data() + 1, expected, sizeof expected), 0);
}

// A few results worked out by hand, so that a misreading of the wrapping rules shared by the
// kernel and ExpectedBinary would still show.
TEST(Binary, IntegerResultsWrap) {
  struct Case {
    DataType type;
    BinaryOp op;
    Int128 x;
    Int128 y;
    Int128 expected;
  };
  const Int128 int64_min = std::numeric_limits<int64_t>::min();
  const Int128 int64_max = std::numeric_limits<int64_t>::max();
  const Int128 uint64_max = std::numeric_limits<uint64_t>::max();
  const Case cases[] = {
      {DataType::kInt8, BinaryOp::kAdd, 100, 100, -56},
      {DataType::kUInt8, BinaryOp::kAdd, 200, 100, 44},
      {DataType::kInt8, BinaryOp::kDiv, -128, -1, -128},
      {DataType::kInt64, BinaryOp::kDiv, int64_min, -1, int64_min},
      {DataType::kInt64, BinaryOp::kAdd, int64_max, 1, int64_min},
      {DataType::kUInt64, BinaryOp::kSub, 0, 1, uint64_max},
      {DataType::kInt16, BinaryOp::kDiv, -7, 2, -3},
      {DataType::kInt16, BinaryOp::kDiv, 7, -2, -3},
      {DataType::kInt32, BinaryOp::kMul, 65536, 65536, 0},
      {DataType::kUInt32, BinaryOp::kMul, 65537, 65537, 131073},
      {DataType::kUInt64, BinaryOp::kDiv, uint64_max, 2, uint64_max / 2},
  };
  for (const Case& c : cases) {
    const TestTensor a = testing::IntegerTensor(c.type, {1}, {c.x});
    const TestTensor b = testing::IntegerTensor(c.type, {1}, {c.y});
    TestTensor out = testing::UnwrittenTensor(c.type, {1});
    EXPECT_EQ(Binary(c.op, a.view(), b.view(), out.mutable_view()), std::nullopt);
    EXPECT_TRUE(out.integer_value(0) == c.expected)
        << DataTypeName(c.type) << " " << NameOf(c.op) << " " << static_cast<int64_t>(c.x) << ", "
        << static_cast<int64_t>(c.y) << " gave " << static_cast<int64_t>(out.integer_value(0));
  }
}

TEST(Binary, IntegerDivisionByZeroNamesTheElement) {
  for (DataType type : testing::kIntegerTypes) {
    const TestTensor a = testing::IntegerTensor(type, {2, 3}, {1, 2, 3, 4, 5, 6});
    const TestTensor b = testing::IntegerTensor(type, {3}, {1, 2, 0});
    TestTensor out = testing::UnwrittenTensor(type, {2, 3});
    EXPECT_EQ(Binary(BinaryOp::kDiv, a.view(), b.view(), out.mutable_view()),
              "division by zero at element 2")
        << DataTypeName(type);
    // Other ops do not divide.
    EXPECT_EQ(Binary(BinaryOp::kMul, a.view(), b.view(), out.mutable_view()), std::nullopt);
  }
  const TestTensor a = testing::IntegerTensor(DataType::kInt32, {2, 2}, {1, 2, 3, 4});
  const TestTensor b = testing::IntegerTensor(DataType::kInt32, {2, 1}, {5, 0});
  TestTensor out = testing::UnwrittenTensor(DataType::kInt32, {2, 2});
  EXPECT_EQ(Binary(BinaryOp::kDiv, a.view(), b.view(), out.mutable_view()),
            "division by zero at element 2");
}

TEST(Binary, FloatDivisionByZeroIsIeee) {
  for (DataType type : testing::kFloatTypes) {
    const TestTensor a = testing::FloatTensor(type, {3}, {1, -1, 0});
    const TestTensor b = testing::FloatTensor(type, {1}, {0});
    TestTensor out = testing::UnwrittenTensor(type, {3});
    EXPECT_EQ(Binary(BinaryOp::kDiv, a.view(), b.view(), out.mutable_view()), std::nullopt);
    // fp8_e4 has no infinity and saturates; the others keep +-inf.
    const double big = type == DataType::kFp8E4 ? 448.0 : INFINITY;
    EXPECT_EQ(out.float_value(0), big) << DataTypeName(type);
    EXPECT_EQ(out.float_value(1), -big) << DataTypeName(type);
    EXPECT_TRUE(std::isnan(out.float_value(2))) << DataTypeName(type);
  }
}

}  // namespace
}  // namespace neuronserve::nrtsim::compute
