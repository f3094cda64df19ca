#include "core/serving/request/request_validation.h"

#include <cstring>
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
  spec.byte_size = ElementCount(spec.shape) * DataTypeSize(dtype);
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
  given.field = ValueField::kFloat;
  given.values = values.data();
  given.count = values.size();
  return given;
}

GivenInput Raw(absl::string_view name, const std::vector<uint32_t>& shape,
               const std::vector<uint8_t>& bytes) {
  GivenInput given;
  given.name = name;
  given.shape = shape;
  given.field = ValueField::kRaw;
  given.values = bytes.data();
  given.count = bytes.size();
  return given;
}

class MatchInputsTest : public ::testing::Test {
 protected:
  absl::Status Match(const std::vector<GivenInput>& given) {
    ordered_.assign(inputs_.size(), {});
    converted_.resize(inputs_.size());
    return MatchInputs("m", inputs_, given, absl::MakeSpan(ordered_), absl::MakeSpan(converted_));
  }

  const std::vector<TensorSpec> inputs_ = Inputs();
  const std::vector<uint32_t> shape_a_{1, 4};
  const std::vector<uint32_t> shape_b_{1, 5};
  const std::vector<float> a_{1, 2, 3, 4};
  const std::vector<float> b_{5, 6, 7, 8, 9};
  std::vector<absl::Span<const uint8_t>> ordered_;
  std::vector<std::vector<uint8_t>> converted_;
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
  EXPECT_THAT(floats.message(), HasSubstr("model 'm' input 'a': expected 4 float32 values in float_data"));
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

TEST_F(MatchInputsTest, MoreInputsThanTheModelHasNamesTheCount) {
  std::vector<GivenInput> given;
  given.push_back(Floats("a", shape_a_, a_));
  given.push_back(Floats("b", shape_b_, b_));
  for (int i = 0; i < 1000; ++i) given.push_back(Floats("q", shape_a_, a_));
  absl::Status status = Match(given);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "model 'm' has no input 'q' (its inputs: 'a', 'b'; the request gives 1002 inputs "
            "for 2)");
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
              HasSubstr("model 'm' input 'a': expected 4 float32 values in float_data (shape "
                        "[1,4]), got 3"));
}

TEST_F(MatchInputsTest, WrongRawByteCount) {
  const std::vector<uint8_t> raw(21, 0);
  absl::Status status = Match({Floats("a", shape_a_, a_), Raw("b", shape_b_, raw)});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("model 'm' input 'b': expected 20 bytes of raw_data "
                                          "(shape [1,5] float32), got 21 bytes"));
}

TEST_F(MatchInputsTest, BothFloatsAndRawAreRefused) {
  GivenInput both = Floats("a", shape_a_, a_);
  both.second_field = ValueField::kRaw;
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

// A model of one input of `dtype` and shape [4], for the typed-field tests.
class TypedInputTest : public ::testing::Test {
 protected:
  absl::Status Bind(DataType dtype, ValueField field, const void* values, size_t count,
                    absl::string_view stated_dtype = "") {
    inputs_ = {Tensor("x", TensorUsage::kInput, {4}, dtype)};
    GivenInput given;
    given.name = "x";
    given.dtype = stated_dtype;
    given.field = field;
    given.values = values;
    given.count = count;
    ordered_.assign(1, {});
    converted_.resize(1);
    return MatchInputs("m", inputs_, {given}, absl::MakeSpan(ordered_), absl::MakeSpan(converted_));
  }

  template <typename T>
  std::vector<T> Elements() const {
    std::vector<T> out(ordered_[0].size() / sizeof(T));
    std::memcpy(out.data(), ordered_[0].data(), ordered_[0].size());
    return out;
  }

  std::vector<TensorSpec> inputs_;
  std::vector<absl::Span<const uint8_t>> ordered_;
  std::vector<std::vector<uint8_t>> converted_;
};

TEST_F(TypedInputTest, SameWidthFieldsAreUsedInPlace) {
  const int64_t ids[] = {1, -2, 3, 1LL << 40};
  ASSERT_TRUE(Bind(DataType::kInt64, ValueField::kInt64, ids, 4).ok());
  EXPECT_EQ(ordered_[0].data(), reinterpret_cast<const uint8_t*>(ids));
  EXPECT_EQ(ordered_[0].size(), 32u);
  const uint32_t u[] = {0, 1, 2, 0xffffffffu};
  ASSERT_TRUE(Bind(DataType::kUInt32, ValueField::kUInt32, u, 4).ok());
  EXPECT_EQ(ordered_[0].data(), reinterpret_cast<const uint8_t*>(u));
  const int32_t i[] = {-5, 0, 5, 7};
  ASSERT_TRUE(Bind(DataType::kInt32, ValueField::kInt32, i, 4, "int32").ok());
  EXPECT_EQ(ordered_[0].data(), reinterpret_cast<const uint8_t*>(i));
}

TEST_F(TypedInputTest, NarrowIntegersAreConvertedAndRangeChecked) {
  const int32_t in_range[] = {-128, 0, 1, 127};
  ASSERT_TRUE(Bind(DataType::kInt8, ValueField::kInt32, in_range, 4).ok());
  EXPECT_EQ(Elements<int8_t>(), (std::vector<int8_t>{-128, 0, 1, 127}));
  const int32_t too_big[] = {0, 1, 128, 2};
  absl::Status status = Bind(DataType::kInt8, ValueField::kInt32, too_big, 4);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("model 'm' input 'x' is int8: int32_data[2] = 128 is "
                                          "outside its range [-128, 127]"));
  const int32_t too_small[] = {-32769, 0, 0, 0};
  EXPECT_THAT(Bind(DataType::kInt16, ValueField::kInt32, too_small, 4).message(),
              HasSubstr("int32_data[0] = -32769 is outside its range [-32768, 32767]"));
  const uint32_t bytes[] = {0, 255, 7, 8};
  ASSERT_TRUE(Bind(DataType::kUInt8, ValueField::kUInt32, bytes, 4).ok());
  EXPECT_EQ(Elements<uint8_t>(), (std::vector<uint8_t>{0, 255, 7, 8}));
  const uint32_t big[] = {0, 65536, 0, 0};
  EXPECT_THAT(Bind(DataType::kUInt16, ValueField::kUInt32, big, 4).message(),
              HasSubstr("uint32_data[1] = 65536 is outside its range [0, 65535]"));
}

TEST_F(TypedInputTest, FloatDataIsRoundedToFloat16AndBFloat16) {
  // 1 + 2^-11 is a tie between 1 and 1 + 2^-10 in float16: to even gives 1 (0x3c00).
  const float values[] = {1.0f, 1.0f + 0x1p-11f, -2.5f, 65504.0f};
  ASSERT_TRUE(Bind(DataType::kFloat16, ValueField::kFloat, values, 4).ok());
  EXPECT_EQ(Elements<uint16_t>(), (std::vector<uint16_t>{0x3c00, 0x3c00, 0xc100, 0x7bff}));
  ASSERT_TRUE(Bind(DataType::kBFloat16, ValueField::kFloat, values, 4).ok());
  EXPECT_EQ(Elements<uint16_t>(), (std::vector<uint16_t>{0x3f80, 0x3f80, 0xc020, 0x4780}));
}

TEST_F(TypedInputTest, AFieldThatDoesNotFitTheDtypeNamesWhatFits) {
  const float floats[] = {1, 2, 3, 4};
  absl::Status status = Bind(DataType::kInt64, ValueField::kFloat, floats, 4);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("model 'm' input 'x' is int64: float_data cannot carry it; send "
                        "int64_data (4 values) or raw_data (32 bytes)"));
  const int64_t wide[] = {1, 2, 3, 4};
  EXPECT_THAT(Bind(DataType::kInt32, ValueField::kInt64, wide, 4).message(),
              HasSubstr("is int32: int64_data cannot carry it; send int32_data (4 values)"));
  EXPECT_THAT(Bind(DataType::kFp8E4, ValueField::kFloat, floats, 4).message(),
              HasSubstr("is fp8_e4: float_data cannot carry it; send raw_data (4 bytes)"));
}

TEST_F(TypedInputTest, RawDataCarriesEveryDtype) {
  const uint8_t bytes[32] = {};
  for (DataType dtype : {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16,
                         DataType::kFp32R, DataType::kFp8E3, DataType::kFp8E4, DataType::kFp8E5,
                         DataType::kInt8, DataType::kUInt8, DataType::kInt16, DataType::kUInt16,
                         DataType::kInt32, DataType::kUInt32, DataType::kInt64,
                         DataType::kUInt64}) {
    const size_t size = 4 * DataTypeSize(dtype);
    absl::Status status = Bind(dtype, ValueField::kRaw, bytes, size);
    ASSERT_TRUE(status.ok()) << DataTypeName(dtype) << ": " << status;
    EXPECT_EQ(ordered_[0].data(), bytes);
    EXPECT_EQ(ordered_[0].size(), size);
  }
}

TEST_F(TypedInputTest, ATensorOfUnknownDtypeTakesRawBytesOfTheReportedSize) {
  // The runtime said void: only its byte size is known.
  inputs_ = {Tensor("x", TensorUsage::kInput, {4}, DataType::kUnknown)};
  inputs_[0].byte_size = 8;
  GivenInput given;
  given.name = "x";
  const uint8_t bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  given.field = ValueField::kRaw;
  given.values = bytes;
  given.count = 8;
  ordered_.assign(1, {});
  converted_.resize(1);
  ASSERT_TRUE(
      MatchInputs("m", inputs_, {given}, absl::MakeSpan(ordered_), absl::MakeSpan(converted_))
          .ok());
  EXPECT_EQ(ordered_[0].data(), bytes);
  given.count = 7;
  absl::Status short_raw =
      MatchInputs("m", inputs_, {given}, absl::MakeSpan(ordered_), absl::MakeSpan(converted_));
  EXPECT_THAT(short_raw.message(),
              HasSubstr("expected 8 bytes of raw_data (shape [4] unknown), got 7 bytes"));
  const float floats[] = {1, 2, 3, 4};
  given.field = ValueField::kFloat;
  given.values = floats;
  given.count = 4;
  EXPECT_THAT(
      MatchInputs("m", inputs_, {given}, absl::MakeSpan(ordered_), absl::MakeSpan(converted_))
          .message(),
      HasSubstr("is unknown: float_data cannot carry it; send raw_data (8 bytes)"));
}

TEST_F(TypedInputTest, AStatedDtypeMustBeTheTensors) {
  const int64_t ids[] = {1, 2, 3, 4};
  absl::Status status = Bind(DataType::kInt64, ValueField::kInt64, ids, 4, "int32");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("model 'm' input 'x' is int64, but the request says int32"));
}

TEST_F(TypedInputTest, WrongCountOfTypedValues) {
  const int64_t ids[] = {1, 2, 3};
  absl::Status status = Bind(DataType::kInt64, ValueField::kInt64, ids, 3);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("model 'm' input 'x': expected 4 int64 values in int64_data (shape [4]), "
                        "got 3"));
}

TEST_F(TypedInputTest, NoValuesAtAllSaysWhatToSend) {
  absl::Status status = Bind(DataType::kUInt8, ValueField::kNone, nullptr, 0);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("model 'm' input 'x' (shape [4] uint8): carries no "
                                          "values; send uint32_data (4 values) or raw_data "
                                          "(4 bytes)"));
}

std::vector<TensorSpec> MixedOutputs() {
  return {Tensor("logits", TensorUsage::kOutput, {4}),
          Tensor("half", TensorUsage::kOutput, {4}, DataType::kFloat16),
          Tensor("ids", TensorUsage::kOutput, {4}, DataType::kInt8),
          Tensor("q", TensorUsage::kOutput, {4}, DataType::kFp8E5)};
}

TEST(ChooseOutputFieldsTest, TypedFormPicksEachDtypesField) {
  const bool selected[] = {true, true, true, true};
  ValueField fields[4];
  ASSERT_TRUE(ChooseOutputFields("m", MixedOutputs(), selected, OutputForm::kTyped,
                                 absl::MakeSpan(fields))
                  .ok());
  EXPECT_EQ(fields[0], ValueField::kFloat);
  EXPECT_EQ(fields[1], ValueField::kFloat);
  EXPECT_EQ(fields[2], ValueField::kInt32);
  EXPECT_EQ(fields[3], ValueField::kRaw);
  ASSERT_TRUE(ChooseOutputFields("m", MixedOutputs(), selected, OutputForm::kRaw,
                                 absl::MakeSpan(fields))
                  .ok());
  for (ValueField field : fields) EXPECT_EQ(field, ValueField::kRaw);
}

TEST(ChooseOutputFieldsTest, FloatFormServesFloatOutputsAndRefusesOthersByName) {
  const bool floats_only[] = {true, true, false, false};
  ValueField fields[4];
  ASSERT_TRUE(ChooseOutputFields("m", MixedOutputs(), floats_only, OutputForm::kFloat,
                                 absl::MakeSpan(fields))
                  .ok());
  EXPECT_EQ(fields[0], ValueField::kFloat);
  EXPECT_EQ(fields[1], ValueField::kFloat);
  const bool all[] = {true, true, true, true};
  absl::Status status =
      ChooseOutputFields("m", MixedOutputs(), all, OutputForm::kFloat, absl::MakeSpan(fields));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("model 'm' output 'ids' is int8: float_data cannot "
                                          "carry it; ask for the typed form (int32_data) or for "
                                          "raw_data"));
}

// A batched model: its inputs are row specs ("a" [1,4], "b" [1,5] per row), up to 6 rows.
class BatchedMatchInputsTest : public MatchInputsTest {
 protected:
  absl::Status MatchRows(const std::vector<GivenInput>& given, uint32_t* rows) {
    ordered_.assign(inputs_.size(), {});
    converted_.resize(inputs_.size());
    return MatchInputs("m", inputs_, given, absl::MakeSpan(ordered_), absl::MakeSpan(converted_),
                       NativeFieldNaming(), /*max_rows=*/6, rows);
  }
};

TEST_F(BatchedMatchInputsTest, TheLeadingDimensionIsTheRequestsRows) {
  const std::vector<uint32_t> a_shape{3, 4};
  const std::vector<uint32_t> b_shape{3, 5};
  const std::vector<float> a(12, 1.f);
  const std::vector<uint8_t> b(60, 0);
  uint32_t rows = 0;
  absl::Status status = MatchRows({Floats("a", a_shape, a), Raw("b", b_shape, b)}, &rows);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(rows, 3u);
  EXPECT_EQ(ordered_[0].size(), 48u);
  EXPECT_EQ(ordered_[1].size(), 60u);
}

TEST_F(BatchedMatchInputsTest, WithoutAShapeTheValuesMakeTheRows) {
  const std::vector<uint32_t> none;
  const std::vector<float> a(8, 1.f);
  const std::vector<float> b(10, 2.f);
  uint32_t rows = 0;
  ASSERT_TRUE(MatchRows({Floats("a", none, a), Floats("b", none, b)}, &rows).ok());
  EXPECT_EQ(rows, 2u);
  const std::vector<float> ragged(9, 1.f);
  EXPECT_EQ(MatchRows({Floats("a", none, ragged), Floats("b", none, b)}, &rows).message(),
            "model 'm' input 'a': 9 values of float_data are not a whole number of rows of 4 "
            "(shape [1,4] per row); give the input's shape");
}

TEST_F(BatchedMatchInputsTest, RowsOutsideOneToTheMaximumAreRefused) {
  uint32_t rows = 0;
  const std::vector<float> seven_a(28, 1.f);
  const std::vector<float> seven_b(35, 1.f);
  EXPECT_EQ(
      MatchRows({Floats("a", {7, 4}, seven_a), Floats("b", {7, 5}, seven_b)}, &rows).message(),
      "model 'm' input 'a': 7 rows, but the model takes 1 to 6 rows per request "
      "(max_batch_size 6)");
  const std::vector<float> empty;
  EXPECT_EQ(MatchRows({Floats("a", {0, 4}, empty)}, &rows).message(),
            "model 'm' input 'a': 0 rows, but the model takes 1 to 6 rows per request "
            "(max_batch_size 6)");
}

TEST_F(BatchedMatchInputsTest, EveryInputCarriesTheSameRowsAndTheOtherDimensionsExactly) {
  uint32_t rows = 0;
  const std::vector<float> a(8, 1.f);
  const std::vector<float> b(15, 1.f);
  EXPECT_EQ(MatchRows({Floats("a", {2, 4}, a), Floats("b", {3, 5}, b)}, &rows).message(),
            "model 'm' input 'b' has 3 rows, but input 'a' has 2: the leading dimension of every "
            "input is the request's batch size");
  const std::vector<float> wide(10, 1.f);
  EXPECT_EQ(MatchRows({Floats("a", {2, 5}, wide)}, &rows).message(),
            "model 'm' input 'a': expected shape [2,4], got [2,5]");
  // The expected sizes in messages are the request's rows' sizes.
  const std::vector<uint8_t> short_raw(30, 0);
  EXPECT_EQ(MatchRows({Floats("a", {2, 4}, a), Raw("b", {2, 5}, short_raw)}, &rows).message(),
            "model 'm' input 'b': expected 40 bytes of raw_data (shape [2,5] float32), got 30 "
            "bytes");
  EXPECT_EQ(MatchRows({Floats("a", {2, 4}, a)}, &rows).message(),
            "model 'm': missing input 'b' (shape [2,5] float32)");
}

TEST_F(MatchInputsTest, AModelWithoutABatchDimensionTakesItsShapeExactly) {
  const std::vector<float> two_rows(8, 1.f);
  EXPECT_EQ(Match({Floats("a", {2, 4}, two_rows)}).message(),
            "model 'm' input 'a': expected shape [1,4], got [2,4]");
}

}  // namespace
}  // namespace neuronserve
