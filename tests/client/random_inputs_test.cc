// The made-up inputs of `infer --random` and `bench`: seeded, in [-1, 1), one value per
// element (one for a scalar), float32 only.
#include "client/neuronctl/random_inputs.h"

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

}  // namespace
}  // namespace neuronserve::neuronctl
