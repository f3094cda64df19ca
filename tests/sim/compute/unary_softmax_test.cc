// Unary and Softmax (sim/compute/kernels.h) on every dtype they support. Expected
// elements are computed here in float32 by the formulas kernels.h documents and rounded by the
// reference encoders; float32 results are also checked against double precision.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/compute/kernels.h"
#include "tests/sim/compute/test_tensor.h"

namespace neuronserve::nrtsim::compute {
namespace {

using testing::Int128;
using testing::TestTensor;

const std::vector<double> kInputs = {-100, -20, -3.5, -1, -0.25, -0.0, 0,   0.25,
                                     1,    2.5, 3.75, 20, 100,   0.1,  -0.7};

// The documented stable sigmoid: exp of a non-positive number only.
float StableSigmoid(float x) {
  if (x >= 0) return 1.0f / (1.0f + std::exp(-x));
  const float e = std::exp(x);
  return e / (1.0f + e);
}

float ExpectedUnary(UnaryOp op, float x) {
  switch (op) {
    case UnaryOp::kRelu:
      return x > 0 ? x : 0.0f;
    case UnaryOp::kTanh:
      return std::tanh(x);
    case UnaryOp::kSigmoid:
      return StableSigmoid(x);
  }
  return x;
}

TEST(Unary, EveryOpOnEveryFloatDtype) {
  for (DataType type : testing::kFloatTypes) {
    const TestTensor in = testing::FloatTensor(type, {3, 5}, kInputs);
    for (UnaryOp op : {UnaryOp::kRelu, UnaryOp::kTanh, UnaryOp::kSigmoid}) {
      TestTensor expected{type, in.shape, {}};
      for (size_t i = 0; i < in.count(); ++i) {
        const std::vector<std::byte> bytes = testing::ReferenceFloatBytes(
            type, ExpectedUnary(op, static_cast<float>(in.float_value(i))));
        expected.bytes.insert(expected.bytes.end(), bytes.begin(), bytes.end());
      }
      TestTensor out = testing::UnwrittenTensor(type, in.shape);
      Unary(op, in.view(), out.mutable_view());
      testing::ExpectSameElements(expected, out,
                                  "unary op " + std::to_string(static_cast<int>(op)));
    }
  }
}

TEST(Unary, Float32IsCloseToDoublePrecisionAndSigmoidIsStable) {
  const TestTensor in = testing::FloatTensor(DataType::kFloat32, {3, 5}, kInputs);
  TestTensor tanh_out = testing::UnwrittenTensor(DataType::kFloat32, in.shape);
  TestTensor sigmoid_out = testing::UnwrittenTensor(DataType::kFloat32, in.shape);
  Unary(UnaryOp::kTanh, in.view(), tanh_out.mutable_view());
  Unary(UnaryOp::kSigmoid, in.view(), sigmoid_out.mutable_view());
  for (size_t i = 0; i < in.count(); ++i) {
    const double x = in.float_value(i);
    EXPECT_NEAR(tanh_out.float_value(i), std::tanh(x), 1e-6) << x;
    EXPECT_NEAR(sigmoid_out.float_value(i), 1.0 / (1.0 + std::exp(-x)), 1e-6) << x;
  }
  // sigmoid(-100) is about 3.7e-44: a float32 subnormal, not 0/0 = NaN.
  EXPECT_GT(sigmoid_out.float_value(0), 0.0);
  EXPECT_EQ(sigmoid_out.float_value(12), 1.0);
}

TEST(Unary, ReluOfNanIsZero) {
  for (DataType type : testing::kFloatTypes) {
    const TestTensor in = testing::FloatTensor(type, {2}, {NAN, -NAN});
    TestTensor out = testing::UnwrittenTensor(type, in.shape);
    Unary(UnaryOp::kRelu, in.view(), out.mutable_view());
    EXPECT_EQ(out.float_value(0), 0.0) << DataTypeName(type);
    EXPECT_FALSE(std::signbit(out.float_value(1))) << DataTypeName(type);
  }
}

TEST(Unary, ReluOnIntegers) {
  const std::vector<Int128> values = {-100, -1, 0, 1, 100, 127, -128, 77};
  for (DataType type : testing::kIntegerTypes) {
    const TestTensor in = testing::IntegerTensor(type, {8}, values);
    TestTensor expected{type, in.shape, {}};
    for (size_t i = 0; i < in.count(); ++i) {
      // Unsigned values are never negative: relu leaves them alone.
      const Int128 x = in.integer_value(i);
      const std::vector<std::byte> bytes = testing::IntegerBytes(type, x > 0 ? x : 0);
      expected.bytes.insert(expected.bytes.end(), bytes.begin(), bytes.end());
    }
    TestTensor out = testing::UnwrittenTensor(type, in.shape);
    Unary(UnaryOp::kRelu, in.view(), out.mutable_view());
    testing::ExpectSameElements(expected, out, "relu");
  }
}

// The documented algorithm, in float32: max, exp(x - max), sum in index order, divide.
std::vector<float> ExpectedSoftmaxRow(const std::vector<float>& row) {
  const float max = *std::max_element(row.begin(), row.end());
  std::vector<float> exps;
  float sum = 0.0f;
  for (float x : row) {
    exps.push_back(std::exp(x - max));
    sum += exps.back();
  }
  for (float& e : exps) e /= sum;
  return exps;
}

const std::vector<double> kSoftmaxInputs = {1,    2,  3,    4,    5,   -1,   0.5, 0,
                                            0.25, -3, 1000, 1001, 999, 1000, 998};

TEST(Softmax, EveryFloatDtypeOverTheLastAxis) {
  for (DataType type : testing::kFloatTypes) {
    const TestTensor in = testing::FloatTensor(type, {3, 5}, kSoftmaxInputs);
    TestTensor expected{type, in.shape, {}};
    for (size_t row = 0; row < 3; ++row) {
      std::vector<float> values;
      for (size_t j = 0; j < 5; ++j)
        values.push_back(static_cast<float>(in.float_value(row * 5 + j)));
      for (float value : ExpectedSoftmaxRow(values)) {
        const std::vector<std::byte> bytes = testing::ReferenceFloatBytes(type, value);
        expected.bytes.insert(expected.bytes.end(), bytes.begin(), bytes.end());
      }
    }
    TestTensor out = testing::UnwrittenTensor(type, in.shape);
    Softmax(in.view(), out.mutable_view());
    testing::ExpectSameElements(expected, out, "softmax");
  }
}

TEST(Softmax, Float32IsCloseToDoublePrecisionWithoutOverflow) {
  const TestTensor in = testing::FloatTensor(DataType::kFloat32, {3, 5}, kSoftmaxInputs);
  TestTensor out = testing::UnwrittenTensor(DataType::kFloat32, in.shape);
  Softmax(in.view(), out.mutable_view());
  for (size_t row = 0; row < 3; ++row) {
    double sum = 0;
    for (size_t j = 0; j < 5; ++j)
      sum += std::exp(kSoftmaxInputs[row * 5 + j] - kSoftmaxInputs[row * 5]);
    for (size_t j = 0; j < 5; ++j) {
      const double expected = std::exp(kSoftmaxInputs[row * 5 + j] - kSoftmaxInputs[row * 5]) / sum;
      EXPECT_NEAR(out.float_value(row * 5 + j), expected, 1e-6) << row << "," << j;
    }
  }
}

}  // namespace
}  // namespace neuronserve::nrtsim::compute
