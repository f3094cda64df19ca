// CheckBatchVariants on hand-made tensor lists: what makes variants one network, and the
// message for each way they can differ.
#include "core/lifecycle/batch_variants.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;

TensorSpec TensorOf(std::string name, TensorUsage usage, DataType dtype, Shape shape) {
  TensorSpec spec;
  spec.name = std::move(name);
  spec.usage = usage;
  spec.dtype = dtype;
  spec.shape = std::move(shape);
  return spec;
}

// An image model compiled for `batch` rows: input [batch,3,8,8] float32, output [batch,10].
VariantTensors Image(uint32_t batch) {
  return {batch,
          {TensorOf("image", TensorUsage::kInput, DataType::kFloat32, {batch, 3, 8, 8}),
           TensorOf("logits", TensorUsage::kOutput, DataType::kFloat32, {batch, 10})}};
}

std::string Refusal(const std::vector<VariantTensors>& variants) {
  absl::Status status = CheckBatchVariants("resnet", variants);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  return std::string(status.message());
}

TEST(BatchVariantsTest, OneNetworkAtSeveralBatchSizesPasses) {
  EXPECT_TRUE(CheckBatchVariants("resnet", {Image(1), Image(4), Image(8)}).ok());
  EXPECT_TRUE(CheckBatchVariants("resnet", {Image(8)}).ok());
}

TEST(BatchVariantsTest, EachWayVariantsCanDifferIsNamed) {
  VariantTensors wider = Image(8);
  wider.tensors[0].shape = {8, 3, 8, 9};
  EXPECT_EQ(Refusal({Image(1), wider}),
            "model 'resnet': the variant of batch 8: tensor 'image' has shape [8,3,8,9], but "
            "the variant of batch 1 has [1,3,8,8]: past the batch dimension the shapes must "
            "match");

  VariantTensors half = Image(4);
  half.tensors[1].dtype = DataType::kFloat16;
  EXPECT_THAT(Refusal({Image(1), half}),
              HasSubstr("the variant of batch 4: tensor 'logits' has dtype float16, but the "
                        "variant of batch 1 has float32"));

  VariantTensors renamed = Image(4);
  renamed.tensors[0].name = "pixels";
  EXPECT_THAT(Refusal({Image(1), renamed}),
              HasSubstr("tensor 0 is 'pixels', but in the variant of batch 1 it is 'image'"));

  VariantTensors extra = Image(4);
  extra.tensors.push_back(TensorOf("aux", TensorUsage::kOutput, DataType::kFloat32, {4, 1}));
  EXPECT_THAT(Refusal({Image(1), extra}), HasSubstr("it has 3 tensors, but the variant of batch "
                                                    "1 has 2: the variants must be one network"));

  VariantTensors swapped = Image(4);
  swapped.tensors[1].usage = TensorUsage::kInput;
  EXPECT_THAT(Refusal({Image(1), swapped}),
              HasSubstr("tensor 'logits' is an input, but in the variant of batch 1 it is an "
                        "output"));

  VariantTensors wrong_batch = Image(4);
  wrong_batch.batch_size = 2;
  EXPECT_THAT(Refusal({Image(1), wrong_batch}),
              HasSubstr("the variant of batch 2: tensor 'image' has shape [4,3,8,8], whose "
                        "leading (batch) dimension should be 2"));

  EXPECT_THAT(Refusal({Image(4), Image(4)}), HasSubstr("two variants have batch size 4"));
  VariantTensors zero = Image(1);
  zero.batch_size = 0;
  EXPECT_THAT(Refusal({zero}), HasSubstr("a variant's batch size must be at least 1"));
}

}  // namespace
}  // namespace neuronserve
