// The made-up inputs of `infer --random` and `bench`: seeded, one value per element (one for a
// scalar); floats in [-1, 1), integers in [0, --random-max).
#include "client/neuronctl/random_inputs.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "base/float_formats.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve::neuronctl {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

v1::TensorInfo Tensor(const std::string& name, std::vector<uint32_t> shape,
                      const std::string& dtype = "float32") {
  v1::TensorInfo tensor;
  tensor.set_name(name);
  tensor.set_dtype(dtype);
  for (uint32_t dimension : shape) tensor.add_shape(dimension);
  return tensor;
}

TEST(RandomInputsTest, OneSeededValueInRangePerElement) {
  v1::ModelStatus model;
  model.set_name("m");
  RandomInputs first(7);
  absl::StatusOr<std::vector<float>> values = first.ValuesFor(model, Tensor("x", {2, 3}));
  ASSERT_TRUE(values.ok()) << values.status();
  ASSERT_EQ(values->size(), 6u);
  for (float value : *values) {
    EXPECT_GE(value, -1.0f);
    EXPECT_LT(value, 1.0f);
  }
  RandomInputs again(7);
  EXPECT_EQ(*again.ValuesFor(model, Tensor("x", {2, 3})), *values);
  RandomInputs other(8);
  EXPECT_NE(*other.ValuesFor(model, Tensor("x", {2, 3})), *values);

  absl::StatusOr<std::vector<float>> scalar = first.ValuesFor(model, Tensor("s", {}));
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->size(), 1u);
}

TEST(RandomInputsTest, OnlyFloat32InputsThatFitARequest) {
  v1::ModelStatus model;
  model.set_name("m");
  RandomInputs random(0);
  absl::StatusOr<std::vector<float>> ints = random.ValuesFor(model, Tensor("ids", {4}, "int32"));
  ASSERT_FALSE(ints.ok());
  EXPECT_EQ(ints.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(ints.status().message(),
              AllOf(HasSubstr("'ids'"), HasSubstr("'m'"), HasSubstr("int32"), HasSubstr("float32")));
  absl::StatusOr<std::vector<float>> huge =
      random.ValuesFor(model, Tensor("big", {65536, 65536}));
  ASSERT_FALSE(huge.ok());
  EXPECT_THAT(huge.status().message(), HasSubstr("[65536,65536]"));
}

TEST(RandomInputsTest, IntegerInputsAreUniformBelowTheMaximum) {
  v1::ModelStatus model;
  model.set_name("classifier");
  RandomInputs random(3);
  absl::StatusOr<RandomTensor> ids = random.TensorFor(model, Tensor("ids", {1, 64}, "int64"));
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_EQ(ids->dtype, "int64");
  EXPECT_TRUE(ids->values.empty());
  ASSERT_EQ(ids->bytes.size(), 64u * 8);
  std::set<uint64_t> seen;
  for (size_t i = 0; i < 64; ++i) {
    uint64_t value = 0;
    std::memcpy(&value, &ids->bytes[8 * i], 8);
    seen.insert(value);
  }
  // The default --random-max of 2: both 0 and 1, nothing else.
  EXPECT_EQ(seen, (std::set<uint64_t>{0, 1}));

  RandomInputs wide(3, 300);
  for (const std::string dtype : {"uint16", "int16", "int32", "uint32", "uint64"}) {
    absl::StatusOr<RandomTensor> tensor = wide.TensorFor(model, Tensor("t", {100}, dtype));
    ASSERT_TRUE(tensor.ok()) << dtype << ": " << tensor.status();
    const size_t size = tensor->bytes.size() / 100;
    uint64_t largest = 0;
    for (size_t i = 0; i < 100; ++i) {
      uint64_t value = 0;
      std::memcpy(&value, &tensor->bytes[size * i], size);
      largest = std::max(largest, value);
    }
    EXPECT_LT(largest, 300u) << dtype;
    EXPECT_GE(largest, 2u) << dtype;
  }
  // Seeded: the same stream again.
  RandomInputs again(3);
  EXPECT_EQ(again.TensorFor(model, Tensor("ids", {1, 64}, "int64"))->bytes, ids->bytes);
}

TEST(RandomInputsTest, AMaximumTheDtypeCannotHoldIsRefused) {
  v1::ModelStatus model;
  model.set_name("m");
  RandomInputs at_limit(0, 128);
  EXPECT_TRUE(at_limit.TensorFor(model, Tensor("x", {4}, "int8")).ok());
  EXPECT_TRUE(at_limit.TensorFor(model, Tensor("x", {4}, "uint8")).ok());
  RandomInputs too_large(0, 257);
  absl::StatusOr<RandomTensor> bytes = too_large.TensorFor(model, Tensor("x", {4}, "uint8"));
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(bytes.status().message(),
              AllOf(HasSubstr("--random-max=257"), HasSubstr("'x'"), HasSubstr("uint8"),
                    HasSubstr("give at most 256")));
  EXPECT_FALSE(RandomInputs(0, 129).TensorFor(model, Tensor("x", {4}, "int8")).ok());
}

TEST(RandomInputsTest, FloatFormatsAreRoundedFromTheSameUniformValues) {
  v1::ModelStatus model;
  model.set_name("m");
  const absl::StatusOr<std::vector<float>> floats =
      RandomInputs(9).ValuesFor(model, Tensor("x", {16}));
  ASSERT_TRUE(floats.ok());
  struct Case {
    std::string dtype;
    neuronserve::FloatFormat format;
  };
  for (const Case& c : {Case{"float16", neuronserve::kFloat16Format},
                        Case{"bfloat16", neuronserve::kBFloat16Format}}) {
    absl::StatusOr<RandomTensor> tensor = RandomInputs(9).TensorFor(model, Tensor("x", {16}, c.dtype));
    ASSERT_TRUE(tensor.ok()) << tensor.status();
    ASSERT_EQ(tensor->bytes.size(), 32u);
    for (size_t i = 0; i < 16; ++i) {
      const uint32_t bits = tensor->bytes[2 * i] | (uint32_t{tensor->bytes[2 * i + 1]} << 8);
      EXPECT_EQ(bits, neuronserve::EncodeFloat(c.format, (*floats)[i])) << c.dtype << i;
    }
  }
  absl::StatusOr<RandomTensor> fp32 = RandomInputs(9).TensorFor(model, Tensor("x", {16}));
  ASSERT_TRUE(fp32.ok());
  EXPECT_EQ(fp32->values, *floats);
  EXPECT_TRUE(fp32->bytes.empty());
  EXPECT_EQ(RandomInputs(9).TensorFor(model, Tensor("x", {16}, "fp8_e4"))->bytes.size(), 16u);
}

TEST(RandomInputsTest, AnUnknownDtypeCannotBeMadeUp) {
  v1::ModelStatus model;
  model.set_name("m");
  absl::StatusOr<RandomTensor> unknown =
      RandomInputs(0).TensorFor(model, Tensor("blob", {4}, "unknown"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(unknown.status().message(),
              AllOf(HasSubstr("'blob'"), HasSubstr("'m'"), HasSubstr("'unknown'"),
                    HasSubstr("--input")));
}

}  // namespace
}  // namespace neuronserve::neuronctl
