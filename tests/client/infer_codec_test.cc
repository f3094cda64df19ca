// The client library's codec between NamedTensor / OutputTensor and the v1 messages: every
// dtype both ways, in raw_data and in its typed field, float16 and bfloat16 exactly, and the
// malformed responses it refuses with INTERNAL.
#include "client/lib/infer_codec.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/client/tensor_bytes.h"

namespace neuronserve::client {
// Named, not anonymous: compiled in one batch with the other codec tests, whose helpers
// share these names.
namespace native_codec_test {

using ::neuronserve::testing::BytesOf;
using ::neuronserve::testing::StringOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

v1::InferRequest Build(const NamedTensor& tensor, bool raw) {
  InferOptions options;
  options.raw = raw;
  return BuildInferRequest("m", {tensor}, options);
}

TEST(InferCodecTest, FloatValuesWithoutADtypeGoAsBefore) {
  const std::vector<float> values = {1.5f, -2.0f};
  const v1::InferRequest raw = Build({"x", {1, 2}, values}, true);
  EXPECT_EQ(raw.response_form(), v1::TENSOR_FORM_RAW);
  ASSERT_EQ(raw.inputs_size(), 1);
  EXPECT_EQ(raw.inputs(0).dtype(), "");
  EXPECT_EQ(raw.inputs(0).raw_data(), StringOf(BytesOf(values)));
  const v1::InferRequest typed = Build({"x", {1, 2}, values}, false);
  EXPECT_EQ(typed.response_form(), v1::TENSOR_FORM_TYPED);
  EXPECT_THAT(typed.inputs(0).float_data(), ElementsAre(1.5f, -2.0f));
  EXPECT_TRUE(typed.inputs(0).raw_data().empty());
}

TEST(InferCodecTest, IntegerBytesGoRawOrInTheTypedFieldOfTheirDtype) {
  const std::vector<uint8_t> int8 = BytesOf(std::vector<int8_t>{-128, 127, -1});
  const std::vector<uint8_t> int16 = BytesOf(std::vector<int16_t>{-32768, 300, -1});
  const std::vector<uint8_t> int32 = BytesOf(std::vector<int32_t>{INT32_MIN, 7, -1});
  const std::vector<uint8_t> int64 = BytesOf(std::vector<int64_t>{INT64_MIN, 1, -1});
  const std::vector<uint8_t> uint8 = BytesOf(std::vector<uint8_t>{0, 255, 1});
  const std::vector<uint8_t> uint16 = BytesOf(std::vector<uint16_t>{0, 65535, 1});
  const std::vector<uint8_t> uint32 = BytesOf(std::vector<uint32_t>{0, UINT32_MAX, 1});
  const std::vector<uint8_t> uint64 = BytesOf(std::vector<uint64_t>{0, UINT64_MAX, 1});

  for (const auto& [dtype, bytes] : std::vector<std::pair<std::string, std::vector<uint8_t>>>{
           {"int8", int8},     {"int16", int16},   {"int32", int32},   {"int64", int64},
           {"uint8", uint8},   {"uint16", uint16}, {"uint32", uint32}, {"uint64", uint64}}) {
    const v1::InferRequest raw = Build({"x", {3}, {}, dtype, bytes}, true);
    EXPECT_EQ(raw.inputs(0).dtype(), dtype);
    EXPECT_EQ(raw.inputs(0).raw_data(), StringOf(bytes)) << dtype;
    const v1::InferRequest typed = Build({"x", {3}, {}, dtype, bytes}, false);
    EXPECT_EQ(typed.inputs(0).dtype(), dtype);
    EXPECT_TRUE(typed.inputs(0).raw_data().empty()) << dtype;
  }
  EXPECT_THAT(Build({"x", {3}, {}, "int8", int8}, false).inputs(0).int32_data(),
              ElementsAre(-128, 127, -1));
  EXPECT_THAT(Build({"x", {3}, {}, "int16", int16}, false).inputs(0).int32_data(),
              ElementsAre(-32768, 300, -1));
  EXPECT_THAT(Build({"x", {3}, {}, "int32", int32}, false).inputs(0).int32_data(),
              ElementsAre(INT32_MIN, 7, -1));
  EXPECT_THAT(Build({"x", {3}, {}, "int64", int64}, false).inputs(0).int64_data(),
              ElementsAre(INT64_MIN, 1, -1));
  EXPECT_THAT(Build({"x", {3}, {}, "uint8", uint8}, false).inputs(0).uint32_data(),
              ElementsAre(0, 255, 1));
  EXPECT_THAT(Build({"x", {3}, {}, "uint16", uint16}, false).inputs(0).uint32_data(),
              ElementsAre(0, 65535, 1));
  EXPECT_THAT(Build({"x", {3}, {}, "uint32", uint32}, false).inputs(0).uint32_data(),
              ElementsAre(0, UINT32_MAX, 1));
  EXPECT_THAT(Build({"x", {3}, {}, "uint64", uint64}, false).inputs(0).uint64_data(),
              ElementsAre(0, UINT64_MAX, 1));
}

TEST(InferCodecTest, HalfFloatsAndFp8GoRawInBothForms) {
  const std::vector<uint8_t> half = {0x00, 0x3c, 0x00, 0xc0};  // float16 1, -2
  for (bool raw : {true, false}) {
    for (const std::string dtype : {"float16", "bfloat16", "fp8_e4", "fp32r", "unknown"}) {
      const v1::InferRequest request = Build({"x", {}, {}, dtype, half}, raw);
      EXPECT_EQ(request.inputs(0).raw_data(), StringOf(half)) << dtype;
      EXPECT_EQ(request.inputs(0).dtype(), dtype);
    }
  }
  // Bytes that are not whole elements go raw, for the server to refuse with its message.
  const v1::InferRequest partial = Build({"x", {}, {}, "int32", {1, 2, 3}}, false);
  EXPECT_EQ(partial.inputs(0).raw_data(), std::string("\x01\x02\x03"));
}

TEST(InferCodecTest, FloatValuesForAHalfDtypeAreRoundedToNearestEvenInRawForm) {
  // 1 + 2^-11 is halfway between float16 1 and its successor: ties to even gives 1 (0x3c00);
  // 1 + 3*2^-11 rounds up to 0x3c02. bfloat16: 1 + 2^-8 ties to 1 (0x3f80).
  const std::vector<float> values = {1.0f + std::ldexp(1.0f, -11),
                                     1.0f + 3 * std::ldexp(1.0f, -11), -2.0f};
  const v1::InferRequest f16 = Build({"x", {3}, values, "float16"}, true);
  EXPECT_EQ(f16.inputs(0).raw_data(), std::string("\x00\x3c\x02\x3c\x00\xc0", 6));
  const std::vector<float> bf = {1.0f + std::ldexp(1.0f, -8), 3.0f};
  const v1::InferRequest bf16 = Build({"x", {2}, bf, "bfloat16"}, true);
  EXPECT_EQ(bf16.inputs(0).raw_data(), std::string("\x80\x3f\x40\x40", 4));
  // Typed: float_data, which the server converts.
  EXPECT_THAT(Build({"x", {3}, values, "float16"}, false).inputs(0).float_data(),
              ElementsAre(values[0], values[1], values[2]));
}

v1::OutputTensor Output(const std::string& dtype, std::vector<uint32_t> shape) {
  v1::OutputTensor output;
  output.set_name("y");
  output.set_dtype(dtype);
  for (uint32_t dim : shape) output.add_shape(dim);
  return output;
}

absl::StatusOr<OutputTensor> Decode(const v1::OutputTensor& output) {
  v1::InferResponse response;
  *response.add_outputs() = output;
  absl::StatusOr<InferResult> result = DecodeInferResponse(response);
  if (!result.ok()) return result.status();
  return result->outputs.at("y");
}

TEST(InferCodecTest, TypedOutputsDecodeToTheElementBytesOfTheirDtype) {
  struct Case {
    v1::OutputTensor output;
    std::vector<uint8_t> bytes;
  };
  std::vector<Case> cases;
  {
    v1::OutputTensor o = Output("int8", {3});
    for (int v : {-128, 127, -1}) o.add_int32_data(v);
    cases.push_back({o, BytesOf(std::vector<int8_t>{-128, 127, -1})});
  }
  {
    v1::OutputTensor o = Output("int16", {2});
    for (int v : {-32768, 5}) o.add_int32_data(v);
    cases.push_back({o, BytesOf(std::vector<int16_t>{-32768, 5})});
  }
  {
    v1::OutputTensor o = Output("int32", {2});
    for (int v : {INT32_MIN, 5}) o.add_int32_data(v);
    cases.push_back({o, BytesOf(std::vector<int32_t>{INT32_MIN, 5})});
  }
  {
    v1::OutputTensor o = Output("uint8", {2});
    for (unsigned v : {255u, 0u}) o.add_uint32_data(v);
    cases.push_back({o, BytesOf(std::vector<uint8_t>{255, 0})});
  }
  {
    v1::OutputTensor o = Output("uint16", {2});
    for (unsigned v : {65535u, 1u}) o.add_uint32_data(v);
    cases.push_back({o, BytesOf(std::vector<uint16_t>{65535, 1})});
  }
  {
    v1::OutputTensor o = Output("uint32", {1});
    o.add_uint32_data(UINT32_MAX);
    cases.push_back({o, BytesOf(std::vector<uint32_t>{UINT32_MAX})});
  }
  {
    v1::OutputTensor o = Output("int64", {2});
    for (int64_t v : {INT64_MIN, int64_t{-3}}) o.add_int64_data(v);
    cases.push_back({o, BytesOf(std::vector<int64_t>{INT64_MIN, -3})});
  }
  {
    v1::OutputTensor o = Output("uint64", {1});
    o.add_uint64_data(UINT64_MAX);
    cases.push_back({o, BytesOf(std::vector<uint64_t>{UINT64_MAX})});
  }
  for (const Case& c : cases) {
    absl::StatusOr<OutputTensor> decoded = Decode(c.output);
    ASSERT_TRUE(decoded.ok()) << c.output.dtype() << ": " << decoded.status();
    EXPECT_EQ(decoded->dtype, c.output.dtype());
    EXPECT_EQ(decoded->bytes, c.bytes) << c.output.dtype();
    EXPECT_TRUE(decoded->values.empty()) << c.output.dtype();
    // The same bytes as raw_data decode alike.
    v1::OutputTensor raw = Output(c.output.dtype(), {c.output.shape().begin(), c.output.shape().end()});
    raw.set_raw_data(StringOf(c.bytes));
    absl::StatusOr<OutputTensor> from_raw = Decode(raw);
    ASSERT_TRUE(from_raw.ok()) << from_raw.status();
    EXPECT_EQ(from_raw->bytes, c.bytes);
  }
}

TEST(InferCodecTest, HalfFloatOutputsDecodeExactlyFromEitherForm) {
  // float16: 1, -2, 65504 (largest), 2^-24 (smallest subnormal), inf.
  const std::vector<float> f16_values = {1.0f, -2.0f, 65504.0f, std::ldexp(1.0f, -24),
                                         std::numeric_limits<float>::infinity()};
  const std::vector<uint8_t> f16_bytes = {0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b,
                                          0x01, 0x00, 0x00, 0x7c};
  v1::OutputTensor typed = Output("float16", {5});
  for (float v : f16_values) typed.add_float_data(v);
  absl::StatusOr<OutputTensor> from_floats = Decode(typed);
  ASSERT_TRUE(from_floats.ok()) << from_floats.status();
  EXPECT_EQ(from_floats->bytes, f16_bytes);
  EXPECT_EQ(from_floats->values, f16_values);
  v1::OutputTensor raw = Output("float16", {5});
  raw.set_raw_data(StringOf(f16_bytes));
  absl::StatusOr<OutputTensor> from_raw = Decode(raw);
  ASSERT_TRUE(from_raw.ok()) << from_raw.status();
  EXPECT_EQ(from_raw->values, f16_values);

  // bfloat16: 1, -3, and the largest finite (0x7f7f).
  const float bf_largest = std::ldexp(255.0f / 128.0f, 127);
  v1::OutputTensor bf = Output("bfloat16", {3});
  for (float v : {1.0f, -3.0f, bf_largest}) bf.add_float_data(v);
  absl::StatusOr<OutputTensor> bf_decoded = Decode(bf);
  ASSERT_TRUE(bf_decoded.ok()) << bf_decoded.status();
  EXPECT_EQ(bf_decoded->bytes, (std::vector<uint8_t>{0x80, 0x3f, 0x40, 0xc0, 0x7f, 0x7f}));
  EXPECT_THAT(bf_decoded->values, ElementsAre(1.0f, -3.0f, bf_largest));

  // NaN survives as a NaN.
  v1::OutputTensor nan = Output("float16", {1});
  nan.add_float_data(std::numeric_limits<float>::quiet_NaN());
  absl::StatusOr<OutputTensor> nan_decoded = Decode(nan);
  ASSERT_TRUE(nan_decoded.ok());
  EXPECT_TRUE(std::isnan(nan_decoded->values[0]));
}

TEST(InferCodecTest, Float32OutputsHaveValuesAndBytesAndAMissingDtypeMeansFloat32) {
  v1::OutputTensor output = Output("", {2});
  output.add_float_data(0.5f);
  output.add_float_data(-1.0f);
  absl::StatusOr<OutputTensor> decoded = Decode(output);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->dtype, "float32");
  EXPECT_THAT(decoded->values, ElementsAre(0.5f, -1.0f));
  EXPECT_EQ(decoded->bytes, BytesOf(std::vector<float>{0.5f, -1.0f}));

  // An unknown dtype: raw bytes only, any whole number per element.
  v1::OutputTensor unknown = Output("unknown", {2});
  unknown.set_raw_data(std::string("\x01\x02\x03\x04\x05\x06", 6));
  absl::StatusOr<OutputTensor> blob = Decode(unknown);
  ASSERT_TRUE(blob.ok()) << blob.status();
  EXPECT_EQ(blob->bytes.size(), 6u);
  EXPECT_TRUE(blob->values.empty());
}

TEST(InferCodecTest, MalformedOutputsAreInternal) {
  struct Case {
    v1::OutputTensor output;
    std::string message;
  };
  std::vector<Case> cases;
  {
    v1::OutputTensor o = Output("int64", {2});
    o.set_raw_data(std::string(12, '\0'));
    cases.push_back({o, "12 bytes for a shape of 2 elements of int64 (16 bytes)"});
  }
  {
    v1::OutputTensor o = Output("int32", {3});
    o.add_int32_data(1);
    cases.push_back({o, "1 values for a shape of 3 elements"});
  }
  {
    v1::OutputTensor o = Output("int8", {1});
    o.add_int32_data(200);
    cases.push_back({o, "value 200 is out of the range of int8"});
  }
  {
    v1::OutputTensor o = Output("uint16", {1});
    o.add_uint32_data(70000);
    cases.push_back({o, "value 70000 is out of the range of uint16"});
  }
  {
    v1::OutputTensor o = Output("int64", {1});
    o.add_float_data(1.0f);
    cases.push_back({o, "float_data cannot carry dtype int64"});
  }
  {
    v1::OutputTensor o = Output("float32", {1});
    o.add_int64_data(1);
    cases.push_back({o, "int64_data cannot carry dtype float32"});
  }
  {
    v1::OutputTensor o = Output("float16", {1});
    o.add_float_data(0.1f);
    cases.push_back({o, "is not a float16 value"});
  }
  {
    v1::OutputTensor o = Output("float32", {1});
    o.add_float_data(1.0f);
    o.set_raw_data(std::string(4, '\0'));
    cases.push_back({o, "more than one field"});
  }
  {
    v1::OutputTensor o = Output("unknown", {4});
    o.set_raw_data(std::string(6, '\0'));
    cases.push_back({o, "not a whole number of bytes"});
  }
  {
    v1::OutputTensor o = Output("float32", {2});
    cases.push_back({o, "0 bytes for a shape of 2 elements"});
  }
  for (const Case& c : cases) {
    absl::StatusOr<OutputTensor> decoded = Decode(c.output);
    ASSERT_FALSE(decoded.ok()) << c.message;
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInternal);
    EXPECT_THAT(decoded.status().message(), HasSubstr("output y: "));
    EXPECT_THAT(decoded.status().message(), HasSubstr(c.message));
  }
}

}  // namespace native_codec_test
}  // namespace neuronserve::client
