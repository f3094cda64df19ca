#include "core/lifecycle/declared_tensors.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace neuronserve {
namespace declared_tensors_test {

TensorSpec Spec(const std::string& name, TensorUsage usage, DataType dtype, Shape shape) {
  TensorSpec spec;
  spec.name = name;
  spec.dtype = dtype;
  spec.shape = std::move(shape);
  spec.usage = usage;
  return spec;
}

DeclaredTensor Declared(const std::string& name, TensorUsage usage, std::optional<DataType> dtype,
                        const std::string& type_name, std::vector<int64_t> dims) {
  return DeclaredTensor{name, usage, dtype, type_name, std::move(dims)};
}

// The variant compiled for 4 rows of a model with input x [4, 16] fp32 and output y [4, 8].
const std::vector<TensorSpec>& Listed() {
  static const auto* listed =
      new std::vector<TensorSpec>{Spec("x", TensorUsage::kInput, DataType::kFloat32, {4, 16}),
                                  Spec("y", TensorUsage::kOutput, DataType::kFloat32, {4, 8})};
  return *listed;
}

TEST(DeclaredTensorsTest, NothingDeclaredAndAgreeingDeclarationsPass) {
  EXPECT_TRUE(CheckDeclaredTensors("m", {}, Listed(), 4).ok());
  // Past the batch dimension, with -1 for any size; a model without one compares whole shapes.
  EXPECT_TRUE(CheckDeclaredTensors(
                  "m",
                  {Declared("x", TensorUsage::kInput, DataType::kFloat32, "TYPE_FP32", {16}),
                   Declared("y", TensorUsage::kOutput, DataType::kFloat32, "TYPE_FP32", {-1})},
                  Listed(), 4)
                  .ok());
  EXPECT_TRUE(CheckDeclaredTensors(
                  "m",
                  {Declared("x", TensorUsage::kInput, DataType::kFloat32, "TYPE_FP32", {4, 16})},
                  Listed(), 0)
                  .ok());
}

TEST(DeclaredTensorsTest, EachDisagreementNamesTheModelTheTensorAndBothValues) {
  EXPECT_EQ(
      CheckDeclaredTensors(
          "m", {Declared("x", TensorUsage::kInput, DataType::kFloat32, "TYPE_FP32", {4, 16})},
          Listed(), 4),
      absl::InvalidArgumentError("model 'm': the configuration's input 'x' has dims [4, 16], but "
                                 "the NEFF's are [16] (past the batch dimension of 4)"));
  EXPECT_EQ(CheckDeclaredTensors(
                "m", {Declared("x", TensorUsage::kInput, DataType::kInt32, "TYPE_INT32", {16})},
                Listed(), 4),
            absl::InvalidArgumentError("model 'm': the configuration's input 'x' is declared "
                                       "TYPE_INT32, but the NEFF's is float32"));
  EXPECT_EQ(CheckDeclaredTensors(
                "m", {Declared("x", TensorUsage::kInput, std::nullopt, "TYPE_STRING", {16})},
                Listed(), 4),
            absl::InvalidArgumentError("model 'm': the configuration's input 'x' is declared "
                                       "TYPE_STRING, but the NEFF's is float32"));
  EXPECT_EQ(
      CheckDeclaredTensors(
          "m", {Declared("z", TensorUsage::kInput, DataType::kFloat32, "TYPE_FP32", {16})},
          Listed(), 4),
      absl::InvalidArgumentError(
          "model 'm': the configuration's input 'z' is not in the NEFF, whose inputs are 'x'"));
  EXPECT_EQ(CheckDeclaredTensors(
                "m", {Declared("y", TensorUsage::kInput, DataType::kFloat32, "TYPE_FP32", {8})},
                Listed(), 4),
            absl::InvalidArgumentError(
                "model 'm': the configuration's input 'y' is an output of the NEFF"));
}

}  // namespace declared_tensors_test
}  // namespace neuronserve
