// Cast (sim/compute/cast.h) between every pair of the 15 dtypes, with the expected
// elements derived in the test from the documented rules: reference rounding for float targets,
// truncation and saturation for float -> int, modular wrapping for int -> int.
#include "sim/compute/cast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tests/sim/compute/test_tensor.h"

namespace neuronserve::nrtsim::compute {
namespace {

using testing::Int128;
using testing::TestTensor;

// Source values for float dtypes (each rounded into the source dtype first): fractions that
// truncate both ways, values beyond every integer range, infinities, NaN of both signs.
const std::vector<double> kFloatSources = {
    0.0,    -0.0,    1.0,    -1.0,   2.5,      -2.5,      3.75,  0.1,    100.0,   -100.0,
    127.9,  128.0,   -128.9, -129.0, 255.5,    256.0,     300.0, -300.0, 65504.0, 1e5,
    -1e5,   3e9,     -3e9,   1e10,   -1e10,    1e19,      2e19,  -1e19,  1e30,    -1e30,
    0.9999, -0.9999, 15.5,   448.0,  INFINITY, -INFINITY, NAN,   -NAN,
};

// Source values for integer dtypes (each wrapped into the source dtype first): around every
// width's limits, and int64 values around 2^53 where doubles stop being exact.
std::vector<Int128> IntegerSources() {
  const Int128 two53 = Int128{1} << 53;
  return {0,
          1,
          -1,
          127,
          128,
          255,
          256,
          -128,
          -129,
          300,
          -300,
          32767,
          32768,
          65535,
          65536,
          -32769,
          2147483647,
          Int128{2147483648},
          -Int128{2147483649},
          Int128{4294967295},
          Int128{12345678901},
          two53 - 1,
          two53,
          two53 + 1,  // halfway between two doubles: rounds to even (2^53)
          two53 + 3,  // halfway: rounds to even (2^53 + 4)
          -(two53 + 1),
          Int128{std::numeric_limits<int64_t>::max()},
          Int128{std::numeric_limits<int64_t>::min()},
          Int128{std::numeric_limits<uint64_t>::max()},
          Int128{std::numeric_limits<uint64_t>::max() - 1024}};
}

TestTensor SourceTensor(DataType type) {
  if (testing::IsFloatType(type)) {
    return testing::FloatTensor(type, {static_cast<uint32_t>(kFloatSources.size())}, kFloatSources);
  }
  const std::vector<Int128> values = IntegerSources();
  return testing::IntegerTensor(type, {static_cast<uint32_t>(values.size())}, values);
}

// The integer dtype's range.
Int128 MinOf(DataType type) {
  if (!testing::IsSignedType(type)) return 0;
  return -(Int128{1} << (DataTypeSize(type) * 8 - 1));
}
Int128 MaxOf(DataType type) {
  const size_t bits = DataTypeSize(type) * 8;
  return testing::IsSignedType(type) ? (Int128{1} << (bits - 1)) - 1 : (Int128{1} << bits) - 1;
}

// float -> int: NaN -> 0, else truncate toward zero and clamp. long double holds every integer
// up to 2^64 exactly, so the comparisons are exact.
Int128 ExpectedFloatToInteger(double value, DataType target) {
  if (std::isnan(value)) return 0;
  const long double truncated = std::trunc(static_cast<long double>(value));
  if (truncated >= static_cast<long double>(MaxOf(target))) return MaxOf(target);
  if (truncated <= static_cast<long double>(MinOf(target))) return MinOf(target);
  return static_cast<Int128>(truncated);
}

// The element `source[i]` cast to `target` by the documented rules, as bytes.
std::vector<std::byte> ExpectedElement(const TestTensor& source, size_t i, DataType target) {
  const bool from_float = testing::IsFloatType(source.dtype);
  const bool to_float = testing::IsFloatType(target);
  if (source.dtype == target) {
    return std::vector<std::byte>(source.element(i), source.element(i) + DataTypeSize(target));
  }
  if (from_float && to_float) return testing::ReferenceFloatBytes(target, source.float_value(i));
  if (from_float) {
    return testing::IntegerBytes(target, ExpectedFloatToInteger(source.float_value(i), target));
  }
  const Int128 value = source.integer_value(i);
  if (to_float) {
    // Through double: the conversion from a 64-bit integer rounds to nearest-even.
    const double through_double = value < 0 ? static_cast<double>(static_cast<int64_t>(value))
                                            : static_cast<double>(static_cast<uint64_t>(value));
    return testing::ReferenceFloatBytes(target, through_double);
  }
  return testing::IntegerBytes(target, value);
}

TEST(Cast, EveryPairOfDtypesFollowsTheRules) {
  int pairs = 0;
  for (DataType from : testing::AllComputeTypes()) {
    const TestTensor source = SourceTensor(from);
    for (DataType to : testing::AllComputeTypes()) {
      TestTensor expected{to, source.shape, {}};
      for (size_t i = 0; i < source.count(); ++i) {
        const std::vector<std::byte> bytes = ExpectedElement(source, i, to);
        expected.bytes.insert(expected.bytes.end(), bytes.begin(), bytes.end());
      }
      TestTensor actual = testing::UnwrittenTensor(to, source.shape);
      Cast(source.view(), actual.mutable_view());
      testing::ExpectSameElements(
          expected, actual,
          std::string(DataTypeName(from)) + " -> " + std::string(DataTypeName(to)));
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, 15 * 15);
}

// Hand-computed cases of each rule, so that a shared misreading of the rules by the code and the
// derivation above would still show.
TEST(Cast, HandComputedCases) {
  struct Case {
    DataType from;
    double value;
    DataType to;
    double expected;  // as read back from `to`; NaN means "a NaN"
  };
  const Case cases[] = {
      {DataType::kFloat32, 2.9, DataType::kInt8, 2},
      {DataType::kFloat32, -2.9, DataType::kInt8, -2},
      {DataType::kFloat32, 1000.0, DataType::kInt8, 127},  // saturates
      {DataType::kFloat32, -1000.0, DataType::kInt8, -128},
      {DataType::kFloat32, -5.0, DataType::kUInt8, 0},
      {DataType::kFloat32, NAN, DataType::kInt32, 0},
      {DataType::kFloat32, INFINITY, DataType::kInt16, 32767},
      {DataType::kFloat32, -INFINITY, DataType::kUInt32, 0},
      {DataType::kFloat32, 1e30, DataType::kUInt64, 18446744073709551615.0},
      {DataType::kFloat32, 448.0, DataType::kFp8E4, 448.0},
      {DataType::kFloat32, 1000.0, DataType::kFp8E4, 448.0},  // saturates, no inf
      {DataType::kFloat32, INFINITY, DataType::kFp8E4, 448.0},
      {DataType::kFloat32, 1000.0, DataType::kFp8E3, INFINITY},
      {DataType::kFloat32, 70000.0, DataType::kFloat16, INFINITY},
      {DataType::kFloat32, NAN, DataType::kFp8E5, NAN},
      {DataType::kFloat16, 65504.0, DataType::kFp8E5, INFINITY},  // above the midpoint 61440
      {DataType::kFloat16, 60000.0, DataType::kFp8E5, 57344.0},   // below it
      {DataType::kInt32, 300, DataType::kInt8, 44},               // wraps
      {DataType::kInt8, -1, DataType::kUInt16, 65535},
      {DataType::kInt16, -32768, DataType::kBFloat16, -32768},
      {DataType::kInt32, 16777217, DataType::kFloat32, 16777216},  // tie to even
  };
  for (const Case& c : cases) {
    TestTensor source = testing::AnyTensor(c.from, {1}, {c.value});
    TestTensor actual = testing::UnwrittenTensor(c.to, {1});
    Cast(source.view(), actual.mutable_view());
    const std::string context = std::string(DataTypeName(c.from)) + " " + std::to_string(c.value) +
                                " -> " + std::string(DataTypeName(c.to));
    if (testing::IsFloatType(c.to)) {
      const double value = actual.float_value(0);
      if (std::isnan(c.expected)) {
        EXPECT_TRUE(std::isnan(value)) << context;
      } else {
        EXPECT_EQ(value, c.expected) << context;
      }
    } else {
      EXPECT_EQ(static_cast<double>(actual.integer_value(0)), c.expected) << context;
    }
  }
}

TEST(Cast, Int64NearTwoToThe53RoundsThroughDouble) {
  const int64_t two53 = int64_t{1} << 53;
  TestTensor source =
      testing::IntegerTensor(DataType::kInt64, {4}, {two53, two53 + 1, two53 + 2, two53 + 3});
  TestTensor actual = testing::UnwrittenTensor(DataType::kFloat32, {4});
  Cast(source.view(), actual.mutable_view());
  // 2^53 + 1 and 2^53 + 3 are halfway between doubles and round to the even one; float32 keeps
  // only 24 bits, so everything here is 2^53 except 2^53 + 3 -> 2^53 + 4 -> 2^53 (float32).
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(actual.float_value(i), 9007199254740992.0) << i;

  // INT64_MAX = 2^63 - 1 rounds to 2^63 (as a double and as a float32).
  TestTensor max =
      testing::IntegerTensor(DataType::kInt64, {1}, {Int128{std::numeric_limits<int64_t>::max()}});
  TestTensor max_as_float = testing::UnwrittenTensor(DataType::kFloat32, {1});
  Cast(max.view(), max_as_float.mutable_view());
  EXPECT_EQ(max_as_float.float_value(0), 9223372036854775808.0);

  TestTensor to_uint = testing::UnwrittenTensor(DataType::kUInt64, {4});
  Cast(source.view(), to_uint.mutable_view());  // int -> int: unchanged
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(to_uint.integer_value(i), source.integer_value(i));
}

TEST(Cast, Float32ToFp32RKeepsNanPayloads) {
  const uint32_t signaling_nan = 0x7F800001u;
  TestTensor source{DataType::kFloat32, {1}, std::vector<std::byte>(4)};
  std::memcpy(source.bytes.data(), &signaling_nan, 4);
  TestTensor actual = testing::UnwrittenTensor(DataType::kFp32R, {1});
  Cast(source.view(), actual.mutable_view());
  EXPECT_EQ(source.bytes, actual.bytes);
}

}  // namespace
}  // namespace neuronserve::nrtsim::compute
