#include "core/infer/request_validation.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;

TensorSpec Tensor(const std::string& name, TensorUsage usage, std::vector<uint32_t> shape,
                  DataType dtype = DataType::kFloat32) {
  TensorSpec spec;
  spec.name = name;
  spec.usage = usage;
  spec.dtype = dtype;
  spec.shape = std::move(shape);
  spec.byte_size = spec.ElementCount() * DataTypeSize(dtype);
  return spec;
}

// A model with inputs "a" [1,4] and "b" [1,5] (in that order).
std::vector<TensorSpec> Inputs() {
  return {Tensor("a", TensorUsage::kInput, {1, 4}), Tensor("b", TensorUsage::kInput, {1, 5})};
}

std::vector<TensorSpec> Outputs() {
  return {Tensor("y", TensorUsage::kOutput, {1, 3}), Tensor("z", TensorUsage::kOutput, {2})};
}

absl::Span<const uint8_t> Bytes(const std::vector<float>& values) {
  return {reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(float)};
}

GivenInput Floats(absl::string_view name, const std::vector<uint32_t>& shape,
                  const std::vector<float>& values) {
  GivenInput given;
  given.name = name;
  given.shape = shape;
  given.has_floats = true;
  given.float_count = values.size();
  given.bytes = Bytes(values);
  return given;
}

GivenInput Raw(absl::string_view name, const std::vector<uint32_t>& shape,
               const std::vector<uint8_t>& bytes) {
  GivenInput given;
  given.name = name;
  given.shape = shape;
  given.has_raw = true;
  given.bytes = bytes;
  return given;
}

class MatchInputsTest : public ::testing::Test {
 protected:
  absl::Status Match(const std::vector<GivenInput>& given) {
    ordered_.assign(inputs_.size(), {});
    return MatchInputs("m", inputs_, given, absl::MakeSpan(ordered_));
  }

  const std::vector<TensorSpec> inputs_ = Inputs();
  const std::vector<uint32_t> shape_a_{1, 4};
  const std::vector<uint32_t> shape_b_{1, 5};
  const std::vector<float> a_{1, 2, 3, 4};
  const std::vector<float> b_{5, 6, 7, 8, 9};
  std::vector<absl::Span<const uint8_t>> ordered_;
};

TEST_F(MatchInputsTest, OrdersBytesByModelInputOrderWhateverTheRequestOrder) {
  absl::Status status = Match({Floats("b", shape_b_, b_), Floats("a", shape_a_, a_)});
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(ordered_.size(), 2u);
  EXPECT_EQ(ordered_[0].data(), Bytes(a_).data());
  EXPECT_EQ(ordered_[0].size(), 16u);
  EXPECT_EQ(ordered_[1].data(), Bytes(b_).data());
  EXPECT_EQ(ordered_[1].size(), 20u);
}

TEST_F(MatchInputsTest, RawBytesOfTheRightSizeAreAccepted) {
  const std::vector<uint8_t> raw_b(20, 0x7f);
  absl::Status status = Match({Floats("a", shape_a_, a_), Raw("b", shape_b_, raw_b)});
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(ordered_[1].data(), raw_b.data());
  EXPECT_EQ(ordered_[1].size(), 20u);
}

TEST_F(MatchInputsTest, EmptyShapeChecksOnlyTheSize) {
  const std::vector<uint32_t> none;
  const std::vector<uint8_t> raw_b(20, 0);
  ASSERT_TRUE(Match({Floats("a", none, a_), Raw("b", none, raw_b)}).ok());
  // Without a shape the sizes still count.
  const std::vector<float> five{1, 2, 3, 4, 5};
  absl::Status floats = Match({Floats("a", none, five), Raw("b", none, raw_b)});
  EXPECT_EQ(floats.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(floats.message(), HasSubstr("model 'm' input 'a': expected 4 float_data elements"));
  EXPECT_THAT(floats.message(), HasSubstr("got 5"));
  const std::vector<uint8_t> short_raw(19, 0);
  absl::Status raw = Match({Floats("a", none, a_), Raw("b", none, short_raw)});
  EXPECT_EQ(raw.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(raw.message(), HasSubstr("expected 20 bytes of raw_data"));
}

TEST_F(MatchInputsTest, UnknownInputNamesTheModelsInputs) {
  absl::Status status = Match({Floats("a", shape_a_, a_), Floats("q", shape_b_, b_)});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("model 'm' has no input 'q'"));
  EXPECT_THAT(status.message(), HasSubstr("(its inputs: 'a', 'b')"));
}

TEST_F(MatchInputsTest, DuplicateInput) {
  absl::Status status =
      Match({Floats("a", shape_a_, a_), Floats("a", shape_a_, a_), Floats("b", shape_b_, b_)});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("model 'm' input 'a' is given more than once"));
}

TEST_F(MatchInputsTest, MissingInputNamesItsShapeAndDtype) {
  absl::Status status = Match({Floats("a", shape_a_, a_)});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("model 'm': missing input 'b'"));
  EXPECT_THAT(status.message(), HasSubstr("shape [1,5] float32"));
  EXPECT_EQ(Match({}).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(MatchInputsTest, WrongShapeSaysExpectedAndGot) {
  absl::Status status = Match({Floats("a", shape_b_, b_), Floats("b", shape_b_, b_)});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("model 'm' input 'a'"));
  EXPECT_THAT(status.message(), HasSubstr("expected shape [1,4], got [1,5]"));
  // Same element count, different rank: still the wrong shape.
  const std::vector<uint32_t> flat{4};
  absl::Status rank = Match({Floats("a", flat, a_), Floats("b", shape_b_, b_)});
  EXPECT_EQ(rank.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(rank.message(), HasSubstr("expected shape [1,4], got [4]"));
}

TEST_F(MatchInputsTest, WrongFloatCount) {
  const std::vector<float> three{1, 2, 3};
  absl::Status status = Match({Floats("a", shape_a_, three), Floats("b", shape_b_, b_)});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("model 'm' input 'a': expected 4 float_data elements ([1,4]), got 3"));
}

TEST_F(MatchInputsTest, WrongRawByteCount) {
  const std::vector<uint8_t> raw(21, 0);
  absl::Status status = Match({Floats("a", shape_a_, a_), Raw("b", shape_b_, raw)});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("model 'm' input 'b': expected 20 bytes of raw_data "
                                          "(5 float32), got 21 bytes"));
}

TEST_F(MatchInputsTest, BothFloatsAndRawAreRefused) {
  GivenInput both = Floats("a", shape_a_, a_);
  both.has_raw = true;
  absl::Status status = Match({both, Floats("b", shape_b_, b_)});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("model 'm' input 'a'"));
  EXPECT_THAT(status.message(), HasSubstr("both float_data and raw_data"));
}

TEST(SelectOutputsTest, EmptyMeansAll) {
  bool selected[2] = {false, false};
  ASSERT_TRUE(SelectOutputs("m", Outputs(), {}, absl::MakeSpan(selected)).ok());
  EXPECT_TRUE(selected[0]);
  EXPECT_TRUE(selected[1]);
}

TEST(SelectOutputsTest, SubsetSelectsExactlyThose) {
  bool selected[2] = {true, true};  // stale values from an earlier use are reset
  const absl::string_view wanted[] = {"z"};
  ASSERT_TRUE(SelectOutputs("m", Outputs(), wanted, absl::MakeSpan(selected)).ok());
  EXPECT_FALSE(selected[0]);
  EXPECT_TRUE(selected[1]);
  const absl::string_view both[] = {"z", "y"};
  ASSERT_TRUE(SelectOutputs("m", Outputs(), both, absl::MakeSpan(selected)).ok());
  EXPECT_TRUE(selected[0]);
  EXPECT_TRUE(selected[1]);
}

TEST(SelectOutputsTest, UnknownOutputNamesTheModelsOutputs) {
  bool selected[2];
  const absl::string_view wanted[] = {"y", "logits"};
  absl::Status status = SelectOutputs("m", Outputs(), wanted, absl::MakeSpan(selected));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("model 'm' has no output 'logits'"));
  EXPECT_THAT(status.message(), HasSubstr("(its outputs: 'y', 'z')"));
}

TEST(SelectOutputsTest, RepeatedOutput) {
  bool selected[2];
  const absl::string_view wanted[] = {"y", "z", "y"};
  absl::Status status = SelectOutputs("m", Outputs(), wanted, absl::MakeSpan(selected));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("model 'm': output 'y' is asked for more than once"));
}

TEST(CheckServableDtypesTest, Float32ModelIsServable) {
  EXPECT_TRUE(CheckServableDtypes("m", Inputs(), Outputs()).ok());
}

TEST(CheckServableDtypesTest, NonFloat32InputIsAFailedPrecondition) {
  std::vector<TensorSpec> inputs = Inputs();
  inputs.push_back(Tensor("ids", TensorUsage::kInput, {1, 8}, DataType::kInt32));
  absl::Status status = CheckServableDtypes("bert", inputs, Outputs());
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("model 'bert' input 'ids' is int32"));
  EXPECT_THAT(status.message(), HasSubstr("float32 tensors only"));
}

TEST(CheckServableDtypesTest, NonFloat32OutputIsAFailedPrecondition) {
  std::vector<TensorSpec> outputs = Outputs();
  outputs.push_back(Tensor("half", TensorUsage::kOutput, {4}, DataType::kBFloat16));
  absl::Status status = CheckServableDtypes("llm", Inputs(), outputs);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("model 'llm' output 'half' is bfloat16"));
}

TEST(FormatTensorShapeTest, Brackets) {
  const uint32_t shape[] = {1, 16};
  EXPECT_EQ(FormatTensorShape(shape), "[1,16]");
  EXPECT_EQ(FormatTensorShape({}), "[]");
}

}  // namespace
}  // namespace neuronserve
