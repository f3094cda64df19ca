// MatMul (sim/compute/kernels.h) on every dtype. Expected elements are computed here with
// the loops in i-j-p order (a different nesting from the kernel's, the same order of additions
// per element, which is what the kernel documents): float32 sums rounded once by the reference
// encoders, integer sums exact in 128 bits and then wrapped.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/compute/kernels.h"
#include "tests/sim/compute/test_tensor.h"

namespace neuronserve::nrtsim::compute {
namespace {

using testing::Int128;
using testing::TestTensor;

std::vector<double> Values(size_t count, DataType type, int salt) {
  std::vector<double> values;
  for (size_t i = 0; i < count; ++i) {
    const double base = static_cast<double>((i * 7 + salt * 3) % 17) - 8;
    values.push_back(testing::IsFloatType(type) ? base * 0.375 : base * 13);
  }
  return values;
}

TestTensor ExpectedMatMul(const TestTensor& a, const TestTensor& b) {
  const size_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  TestTensor expected{a.dtype, {a.shape[0], b.shape[1]}, {}};
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      std::vector<std::byte> bytes;
      if (testing::IsFloatType(a.dtype)) {
        float sum = 0.0f;
        for (size_t p = 0; p < k; ++p) {
          sum += static_cast<float>(a.float_value(i * k + p)) *
                 static_cast<float>(b.float_value(p * n + j));
        }
        bytes = testing::ReferenceFloatBytes(a.dtype, sum);
      } else {
        // Products modulo 2^128; only the low bits survive the final wrap anyway.
        unsigned __int128 sum = 0;
        for (size_t p = 0; p < k; ++p) {
          sum += static_cast<unsigned __int128>(a.integer_value(i * k + p)) *
                 static_cast<unsigned __int128>(b.integer_value(p * n + j));
        }
        bytes = testing::IntegerBytes(a.dtype, static_cast<Int128>(sum));
      }
      expected.bytes.insert(expected.bytes.end(), bytes.begin(), bytes.end());
    }
  }
  return expected;
}

TEST(MatMul, EveryDtype) {
  std::vector<DataType> types(std::begin(testing::kFloatTypes), std::end(testing::kFloatTypes));
  types.insert(types.end(), std::begin(testing::kIntegerTypes), std::end(testing::kIntegerTypes));
  struct Dims {
    uint32_t m, k, n;
  };
  // Includes sizes that are not multiples of any vector width, and 1s.
  for (const Dims& d : {Dims{3, 4, 2}, Dims{5, 7, 9}, Dims{1, 1, 1}, Dims{1, 6, 17}}) {
    for (DataType type : types) {
      const TestTensor a = testing::AnyTensor(type, {d.m, d.k}, Values(d.m * d.k, type, 1));
      const TestTensor b = testing::AnyTensor(type, {d.k, d.n}, Values(d.k * d.n, type, 2));
      TestTensor out = testing::UnwrittenTensor(type, {d.m, d.n});
      MatMul(a.view(), b.view(), out.mutable_view());
      testing::ExpectSameElements(
          ExpectedMatMul(a, b), out,
          "matmul " + std::to_string(d.m) + "x" + std::to_string(d.k) + "x" + std::to_string(d.n));
    }
  }
}

TEST(MatMul, HandComputedCases) {
  // [[1,2],[3,4]] x [[5,6],[7,8]] = [[19,22],[43,50]]
  const TestTensor a = testing::FloatTensor(DataType::kBFloat16, {2, 2}, {1, 2, 3, 4});
  const TestTensor b = testing::FloatTensor(DataType::kBFloat16, {2, 2}, {5, 6, 7, 8});
  TestTensor out = testing::UnwrittenTensor(DataType::kBFloat16, {2, 2});
  MatMul(a.view(), b.view(), out.mutable_view());
  EXPECT_EQ(out.float_value(0), 19);
  EXPECT_EQ(out.float_value(1), 22);
  EXPECT_EQ(out.float_value(2), 43);
  EXPECT_EQ(out.float_value(3), 50);
  // int8: 100*100 + 100*100 = 20000 wraps to 20000 - 78*256 = 32.
  const TestTensor c = testing::IntegerTensor(DataType::kInt8, {1, 2}, {100, 100});
  const TestTensor d = testing::IntegerTensor(DataType::kInt8, {2, 1}, {100, 100});
  TestTensor wrapped = testing::UnwrittenTensor(DataType::kInt8, {1, 1});
  MatMul(c.view(), d.view(), wrapped.mutable_view());
  EXPECT_TRUE(wrapped.integer_value(0) == 32);
  // fp8_e4: 16*16 + 16*16 = 512 in float32, saturated to 448 when stored.
  const TestTensor e = testing::FloatTensor(DataType::kFp8E4, {1, 2}, {16, 16});
  const TestTensor f = testing::FloatTensor(DataType::kFp8E4, {2, 1}, {16, 16});
  TestTensor saturated = testing::UnwrittenTensor(DataType::kFp8E4, {1, 1});
  MatMul(e.view(), f.view(), saturated.mutable_view());
  EXPECT_EQ(saturated.float_value(0), 448);
}

}  // namespace
}  // namespace neuronserve::nrtsim::compute
