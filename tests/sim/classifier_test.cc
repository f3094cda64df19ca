// The BERT-shaped classifier that `neuronctl sim-model --classifier` writes, run by the simulator
// through the C ABI on fixed inputs and compared with a forward pass computed here in double
// precision from the model's own weights: gather, masked mean, dense layer, float16 copy.
#include <cmath>
#include <cstring>

#include "client/simmodel/classifier_model.h"
#include "client/simmodel/sim_neff.h"
#include "tests/sim/compute/reference_formats.h"
#include "tests/sim/sim_test_util.h"

namespace nrtsim_test {
namespace {

namespace simmodel = neuronserve::simmodel;

constexpr int64_t kVocab = 50;
constexpr int64_t kSequence = 8;
constexpr int64_t kHidden = 6;
constexpr int64_t kClasses = 3;

class ClassifierTest : public SimTest {
 protected:
  void SetUp() override {
    SimTest::SetUp();
    Init();
    absl::StatusOr<simmodel::SimModel> model =
        simmodel::BuildClassifierModel({kVocab, kSequence, kHidden, kClasses, /*seed=*/7});
    ASSERT_TRUE(model.ok()) << model.status();
    model_ = *model;
    absl::StatusOr<std::string> bytes = simmodel::EncodeSimNeff(model_);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    ASSERT_EQ(LoadBytes(*bytes, &loaded_), NRT_SUCCESS);
  }

  static std::string Int64Bytes(const std::vector<int64_t>& values) {
    std::string bytes(values.size() * 8, '\0');
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  }

  NRT_STATUS Classify(const std::vector<int64_t>& ids, const std::vector<int64_t>& mask,
                      std::vector<float>* logits, std::vector<uint16_t>* logits_fp16) {
    ByteMap out;
    NRT_STATUS status = RunBytes(
        loaded_.get(), {{"input_ids", Int64Bytes(ids)}, {"attention_mask", Int64Bytes(mask)}},
        {{"logits", kClasses * 4}, {"logits_fp16", kClasses * 2}}, &out);
    if (status != NRT_SUCCESS) return status;
    logits->resize(kClasses);
    std::memcpy(logits->data(), out["logits"].data(), kClasses * 4);
    logits_fp16->resize(kClasses);
    std::memcpy(logits_fp16->data(), out["logits_fp16"].data(), kClasses * 2);
    return status;
  }

  // The forward pass, in double, from the weights in the model.
  std::vector<double> Reference(const std::vector<int64_t>& ids,
                                const std::vector<int64_t>& mask) const {
    const std::vector<double>& table = model_.constants.at("embeddings").data;
    const std::vector<double>& weight = model_.constants.at("dense.weight").data;
    const std::vector<double>& bias = model_.constants.at("dense.bias").data;
    std::vector<double> pooled(kHidden, 0.0);
    double kept = 0;
    for (int64_t s = 0; s < kSequence; ++s) {
      if (mask[s] == 0) continue;
      kept += 1;
      for (int64_t h = 0; h < kHidden; ++h) pooled[h] += table[ids[s] * kHidden + h];
    }
    for (double& value : pooled) value /= kept;
    std::vector<double> logits(bias.begin(), bias.end());
    for (int64_t c = 0; c < kClasses; ++c) {
      for (int64_t h = 0; h < kHidden; ++h) logits[c] += pooled[h] * weight[h * kClasses + c];
    }
    return logits;
  }

  void ExpectMatchesReference(const std::vector<int64_t>& ids, const std::vector<int64_t>& mask) {
    std::vector<float> logits;
    std::vector<uint16_t> half;
    ASSERT_EQ(Classify(ids, mask, &logits, &half), NRT_SUCCESS);
    const std::vector<double> expected = Reference(ids, mask);
    for (int64_t c = 0; c < kClasses; ++c) {
      EXPECT_NEAR(logits[c], expected[c], 1e-5) << "class " << c;
      // The float16 output is the float32 logit rounded to nearest even.
      EXPECT_EQ(half[c], neuronserve::nrtsim::compute::testing::ReferenceFloat16Bits(logits[c]))
          << "class " << c;
    }
  }

  simmodel::SimModel model_;
  ModelPtr loaded_;
};

TEST_F(ClassifierTest, MatchesTheReferenceWithAFullMask) {
  ExpectMatchesReference({0, 1, 2, 3, 49, 48, 25, 7}, {1, 1, 1, 1, 1, 1, 1, 1});
}

TEST_F(ClassifierTest, MaskedPositionsDoNotCount) {
  const std::vector<int64_t> ids = {5, 9, 13, 40, 40, 1, 0, 0};
  ExpectMatchesReference(ids, {1, 1, 1, 1, 1, 0, 0, 0});
  ExpectMatchesReference(ids, {0, 1, 0, 1, 0, 1, 0, 1});
  // What the masked positions hold does not matter.
  std::vector<float> a, b;
  std::vector<uint16_t> half;
  ASSERT_EQ(Classify(ids, {1, 1, 0, 0, 0, 0, 0, 0}, &a, &half), NRT_SUCCESS);
  ASSERT_EQ(Classify({5, 9, 49, 1, 2, 3, 4, 5}, {1, 1, 0, 0, 0, 0, 0, 0}, &b, &half), NRT_SUCCESS);
  EXPECT_EQ(a, b);
  // ... but the kept ones do.
  ASSERT_EQ(Classify({5, 10, 13, 40, 40, 1, 0, 0}, {1, 1, 0, 0, 0, 0, 0, 0}, &b, &half),
            NRT_SUCCESS);
  EXPECT_NE(a, b);
}

TEST_F(ClassifierTest, ATokenIdOutsideTheVocabularyFailsTheExecution) {
  std::vector<float> logits;
  std::vector<uint16_t> half;
  testing::internal::CaptureStderr();
  EXPECT_EQ(Classify({1, 2, 3, kVocab, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1, 1, 1}, &logits, &half),
            NRT_EXEC_BAD_INPUT);
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("nrt_execute: op 0 (gather): index 50 at position 3"), std::string::npos)
      << printed;
  // The model still serves after the failed execution.
  ExpectMatchesReference({1, 2, 3, 4, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1, 1, 1});
}

TEST_F(ClassifierTest, ReportsInt64InputsAndAFloat16Output) {
  nrt_tensor_info_array_t* info = nullptr;
  ASSERT_EQ(api().nrt_get_model_tensor_info(loaded_.get(), &info), NRT_SUCCESS);
  ASSERT_EQ(info->tensor_count, 4u);
  // 2.30 numbering: INT64 = 0xC, FLOAT32 = 0xA, FLOAT16 = 0x7.
  EXPECT_STREQ(info->tensor_array[0].name, "input_ids");
  EXPECT_EQ(info->tensor_array[0].dtype, 0xC);
  EXPECT_EQ(info->tensor_array[0].size, kSequence * 8u);
  EXPECT_STREQ(info->tensor_array[1].name, "attention_mask");
  EXPECT_EQ(info->tensor_array[1].dtype, 0xC);
  EXPECT_STREQ(info->tensor_array[2].name, "logits");
  EXPECT_EQ(info->tensor_array[2].dtype, 0xA);
  EXPECT_STREQ(info->tensor_array[3].name, "logits_fp16");
  EXPECT_EQ(info->tensor_array[3].dtype, 0x7);
  EXPECT_EQ(info->tensor_array[3].size, kClasses * 2u);
  api().nrt_free_model_tensor_info(info);
}

}  // namespace
}  // namespace nrtsim_test
