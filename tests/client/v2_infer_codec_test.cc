// The client library's v2 codec between NamedTensor / OutputTensor and the Open Inference
// Protocol's ModelInferRequest / ModelInferResponse: datatype names, raw_input_contents and the
// typed contents of each dtype, the one-form-per-request rule, decoding of either form into the
// same OutputTensor as the native API, and the malformed responses it refuses with INTERNAL.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "client/lib/infer_codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/client/tensor_bytes.h"

namespace neuronserve::client {
// Named, not anonymous: compiled in one batch with the other codec tests, whose helpers
// share these names.
namespace v2_codec_test {

using ::neuronserve::testing::BytesOf;
using ::neuronserve::testing::StringOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Output = inference::ModelInferResponse::InferOutputTensor;

inference::ModelInferRequest Build(const std::vector<NamedTensor>& tensors, bool raw) {
  InferOptions options;
  options.raw = raw;
  options.protocol = Protocol::kV2;
  return BuildModelInferRequest("m", tensors, options);
}

TEST(V2InferCodecTest, FloatValuesRawAndTyped) {
  const std::vector<float> values = {1.5f, -2.0f};
  const inference::ModelInferRequest raw = Build({{"x", {1, 2}, values}}, true);
  EXPECT_EQ(raw.model_name(), "m");
  ASSERT_EQ(raw.inputs_size(), 1);
  EXPECT_EQ(raw.inputs(0).name(), "x");
  EXPECT_EQ(raw.inputs(0).datatype(), "FP32");
  EXPECT_THAT(raw.inputs(0).shape(), ElementsAre(1, 2));
  EXPECT_FALSE(raw.inputs(0).has_contents());
  EXPECT_THAT(raw.raw_input_contents(), ElementsAre(StringOf(BytesOf(values))));

  const inference::ModelInferRequest typed = Build({{"x", {1, 2}, values}}, false);
  EXPECT_EQ(typed.raw_input_contents_size(), 0);
  EXPECT_THAT(typed.inputs(0).contents().fp32_contents(), ElementsAre(1.5f, -2.0f));
}

TEST(V2InferCodecTest, EveryIntegerDtypeInItsContentsField) {
  const std::vector<int8_t> i8 = {-128, 127};
  const std::vector<uint16_t> u16 = {0, 65535};
  const std::vector<int32_t> i32 = {-2147483647 - 1, 7};
  const std::vector<int64_t> i64 = {-(int64_t{1} << 62), 3};
  const std::vector<uint64_t> u64 = {~uint64_t{0}, 1};
  const std::vector<uint8_t> i8_bytes = BytesOf(i8), u16_bytes = BytesOf(u16),
                             i32_bytes = BytesOf(i32), i64_bytes = BytesOf(i64),
                             u64_bytes = BytesOf(u64);
  const inference::ModelInferRequest request = Build({{"a", {2}, {}, "int8", i8_bytes},
                                                      {"b", {2}, {}, "uint16", u16_bytes},
                                                      {"c", {2}, {}, "int32", i32_bytes},
                                                      {"d", {2}, {}, "int64", i64_bytes},
                                                      {"e", {2}, {}, "uint64", u64_bytes}},
                                                     false);
  ASSERT_EQ(request.inputs_size(), 5);
  EXPECT_EQ(request.raw_input_contents_size(), 0);
  EXPECT_EQ(request.inputs(0).datatype(), "INT8");
  EXPECT_THAT(request.inputs(0).contents().int_contents(), ElementsAre(-128, 127));
  EXPECT_EQ(request.inputs(1).datatype(), "UINT16");
  EXPECT_THAT(request.inputs(1).contents().uint_contents(), ElementsAre(0u, 65535u));
  EXPECT_EQ(request.inputs(2).datatype(), "INT32");
  EXPECT_THAT(request.inputs(2).contents().int_contents(), ElementsAre(i32[0], 7));
  EXPECT_EQ(request.inputs(3).datatype(), "INT64");
  EXPECT_THAT(request.inputs(3).contents().int64_contents(), ElementsAre(i64[0], 3));
  EXPECT_EQ(request.inputs(4).datatype(), "UINT64");
  EXPECT_THAT(request.inputs(4).contents().uint64_contents(), ElementsAre(u64[0], 1u));
}

TEST(V2InferCodecTest, ATypedRequestWithAHalfFloatInputGoesAllRaw) {
  const std::vector<int64_t> ids = {5, 6};
  const std::vector<uint8_t> id_bytes = BytesOf(ids);
  const std::vector<float> halves = {1.0f, 0.333333f};
  const inference::ModelInferRequest request =
      Build({{"ids", {2}, {}, "int64", id_bytes}, {"h", {2}, halves, "float16"}}, false);
  ASSERT_EQ(request.inputs_size(), 2);
  EXPECT_FALSE(request.inputs(0).has_contents());
  EXPECT_FALSE(request.inputs(1).has_contents());
  EXPECT_EQ(request.inputs(1).datatype(), "FP16");
  ASSERT_EQ(request.raw_input_contents_size(), 2);
  EXPECT_EQ(request.raw_input_contents(0), StringOf(id_bytes));
  // float16 of 1.0 is 0x3C00; of 0.333333, rounded to nearest even, 0x3555.
  EXPECT_EQ(request.raw_input_contents(1), std::string("\x00\x3c\x55\x35", 4));
}

TEST(V2InferCodecTest, DtypesWithoutAV2NameGoRawUnderTheirNameUpperCased) {
  const std::vector<uint8_t> bits = {0x38, 0xb8};
  const inference::ModelInferRequest request =
      Build({{"f", {2}, {}, "fp8_e4", bits}, {"z", {2}, {}, "complex128", bits}}, false);
  EXPECT_EQ(request.inputs(0).datatype(), "FP8_E4");
  EXPECT_EQ(request.inputs(1).datatype(), "COMPLEX128");
  EXPECT_THAT(request.raw_input_contents(), ElementsAre(StringOf(bits), StringOf(bits)));
}

TEST(V2InferCodecTest, OutputsVersionAndId) {
  InferOptions options;
  options.protocol = Protocol::kV2;
  options.version = "3";
  options.id = "req-1";
  options.outputs = {"logits", "probs"};
  const inference::ModelInferRequest request = BuildModelInferRequest("cls", {}, options);
  EXPECT_EQ(request.model_name(), "cls");
  EXPECT_EQ(request.model_version(), "3");
  EXPECT_EQ(request.id(), "req-1");
  ASSERT_EQ(request.outputs_size(), 2);
  EXPECT_EQ(request.outputs(0).name(), "logits");
  EXPECT_EQ(request.outputs(1).name(), "probs");
}

Output* AddOutput(inference::ModelInferResponse& response, const std::string& name,
                  const std::string& datatype, std::vector<int64_t> shape) {
  Output* output = response.add_outputs();
  output->set_name(name);
  output->set_datatype(datatype);
  output->mutable_shape()->Add(shape.begin(), shape.end());
  return output;
}

TEST(V2InferCodecTest, DecodesRawOutputsAsTheNativeApiNamesThem) {
  inference::ModelInferResponse response;
  response.set_id("7");
  response.set_model_version("2");
  const std::vector<float> logits = {0.5f, -1.0f};
  const std::vector<int64_t> ids = {1, -2, 3};
  AddOutput(response, "logits", "FP32", {1, 2});
  response.add_raw_output_contents(StringOf(BytesOf(logits)));
  AddOutput(response, "ids", "INT64", {3});
  response.add_raw_output_contents(StringOf(BytesOf(ids)));
  AddOutput(response, "half", "FP16", {1});
  response.add_raw_output_contents(std::string("\x00\x3c", 2));
  (*response.mutable_parameters())["queue_us"].set_int64_param(12);
  (*response.mutable_parameters())["device_us"].set_uint64_param(34);

  absl::StatusOr<InferResult> result = DecodeModelInferResponse(response);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->id, "7");
  EXPECT_EQ(result->version, "2");
  EXPECT_EQ(result->queue_time, absl::Microseconds(12));
  EXPECT_EQ(result->device_time, absl::Microseconds(34));
  const OutputTensor& out = result->outputs.at("logits");
  EXPECT_EQ(out.dtype, "float32");
  EXPECT_THAT(out.shape, ElementsAre(1u, 2u));
  EXPECT_THAT(out.values, ElementsAre(0.5f, -1.0f));
  EXPECT_EQ(result->outputs.at("ids").dtype, "int64");
  EXPECT_EQ(result->outputs.at("ids").bytes, BytesOf(ids));
  EXPECT_EQ(result->outputs.at("half").dtype, "float16");
  EXPECT_THAT(result->outputs.at("half").values, ElementsAre(1.0f));
}

TEST(V2InferCodecTest, DecodesTypedOutputsToTheSameBytes) {
  inference::ModelInferResponse response;
  AddOutput(response, "a", "INT8", {2})->mutable_contents()->mutable_int_contents()->Add(-128);
  response.mutable_outputs(0)->mutable_contents()->mutable_int_contents()->Add(127);
  Output* b = AddOutput(response, "b", "UINT64", {1});
  b->mutable_contents()->mutable_uint64_contents()->Add(~uint64_t{0});
  Output* c = AddOutput(response, "c", "FP32", {1});
  c->mutable_contents()->mutable_fp32_contents()->Add(2.5f);
  Output* d = AddOutput(response, "d", "UINT8", {2});
  d->mutable_contents()->mutable_bool_contents()->Add(true);
  d->mutable_contents()->mutable_bool_contents()->Add(false);
  absl::StatusOr<InferResult> result = DecodeModelInferResponse(response);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->outputs.at("a").bytes, BytesOf(std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(result->outputs.at("b").bytes, BytesOf(std::vector<uint64_t>{~uint64_t{0}}));
  EXPECT_THAT(result->outputs.at("c").values, ElementsAre(2.5f));
  EXPECT_EQ(result->outputs.at("d").bytes, (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(result->outputs.at("d").dtype, "uint8");
}

absl::Status DecodeError(const inference::ModelInferResponse& response) {
  absl::StatusOr<InferResult> result = DecodeModelInferResponse(response);
  return result.ok() ? absl::OkStatus() : result.status();
}

TEST(V2InferCodecTest, RefusesMalformedResponses) {
  {
    inference::ModelInferResponse response;
    AddOutput(response, "a", "FP32", {1});
    AddOutput(response, "b", "FP32", {1});
    response.add_raw_output_contents(std::string(4, '\0'));
    const absl::Status status = DecodeError(response);
    EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
    EXPECT_THAT(status.message(), HasSubstr("1 raw_output_contents for 2 outputs"));
  }
  {
    inference::ModelInferResponse response;
    AddOutput(response, "a", "FP32", {-1});
    response.add_raw_output_contents(std::string(4, '\0'));
    const absl::Status status = DecodeError(response);
    EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
    EXPECT_THAT(status.message(), HasSubstr("output a: dimension -1"));
  }
  {
    inference::ModelInferResponse response;
    AddOutput(response, "a", "FP32", {1})->mutable_contents()->add_fp64_contents(1.0);
    const absl::Status status = DecodeError(response);
    EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
    EXPECT_THAT(status.message(), HasSubstr("output a: fp64_contents"));
  }
  {
    inference::ModelInferResponse response;
    AddOutput(response, "a", "INT8", {1})->mutable_contents()->add_int_contents(300);
    const absl::Status status = DecodeError(response);
    EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
    EXPECT_THAT(status.message(), HasSubstr("value 300 is out of the range of int8"));
  }
  {
    inference::ModelInferResponse response;
    AddOutput(response, "a", "FP32", {1})->mutable_contents()->add_fp32_contents(1.0f);
    response.add_raw_output_contents(std::string(4, '\0'));
    const absl::Status status = DecodeError(response);
    EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
    EXPECT_THAT(status.message(), HasSubstr("more than one field"));
  }
  {
    inference::ModelInferResponse response;
    AddOutput(response, "a", "FP32", {2});
    response.add_raw_output_contents(std::string(4, '\0'));
    const absl::Status status = DecodeError(response);
    EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
    EXPECT_THAT(status.message(), HasSubstr("output a: 4 bytes for a shape of 2 elements"));
  }
  {
    inference::ModelInferResponse response;
    AddOutput(response, "a", "FP32", {1})->mutable_contents()->add_bool_contents(true);
    const absl::Status status = DecodeError(response);
    EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
    EXPECT_THAT(status.message(), HasSubstr("bool_contents cannot carry FP32"));
  }
}

}  // namespace v2_codec_test
}  // namespace neuronserve::client
