// The REST inference request's streaming parser (server/rest/v2_rest_request.h), without a daemon.
#include "server/rest/v2_rest_request.h"

#include <cstring>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/rest/v2_rest_body.h"
#include "server/rest/v2_rest_data.h"

namespace neuronserve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

template <typename T>
std::vector<T> Values(const RestInput& input) {
  std::vector<T> values(input.count);
  std::memcpy(values.data(), input.values.data(), input.count * sizeof(T));
  return values;
}

absl::Status Parse(const std::string& json, RestInferRequest& out) {
  return ParseRestInferRequest(json, "m", out);
}

TEST(V2RestRequestTest, ReadsEveryFieldIntoTypedBuffers) {
  RestInferRequest request;
  ASSERT_TRUE(
      Parse(R"({"id":"x1","parameters":{"timeout":250,"binary_data_output":true,"priority":3},
      "inputs":[{"name":"a","shape":[2,2],"datatype":"FP32","data":[[1,2.5],[-3,4]]},
                {"name":"b","shape":[3],"datatype":"INT64","data":[-9223372036854775808,0,9223372036854775807]},
                {"name":"c","shape":[2],"datatype":"UINT64","data":[0,18446744073709551615]},
                {"name":"d","shape":[2],"datatype":"BOOL","data":[true,false]},
                {"name":"e","shape":[4],"datatype":"FP32","parameters":{"binary_data_size":16}}],
      "outputs":[{"name":"y","parameters":{"binary_data":true,"classification":0}},{"name":"z"}],
      "unknown":{"deep":[1,[2]]}})",
            request)
          .ok());
  EXPECT_EQ(request.id, "x1");
  EXPECT_EQ(request.timeout_us, 250);
  EXPECT_TRUE(request.binary_data_output);
  ASSERT_EQ(request.inputs.size(), 5u);
  EXPECT_EQ(request.inputs[0].field, ValueField::kFloat);
  EXPECT_THAT(Values<float>(request.inputs[0]), ElementsAre(1, 2.5, -3, 4));
  EXPECT_THAT(request.inputs[0].nested_dims, ElementsAre(2, 2));
  EXPECT_THAT(request.inputs[0].shape, ElementsAre(2, 2));
  EXPECT_THAT(
      Values<int64_t>(request.inputs[1]),
      ElementsAre(std::numeric_limits<int64_t>::min(), 0, std::numeric_limits<int64_t>::max()));
  EXPECT_TRUE(request.inputs[1].nested_dims.empty());
  EXPECT_THAT(Values<uint64_t>(request.inputs[2]),
              ElementsAre(0, std::numeric_limits<uint64_t>::max()));
  EXPECT_EQ(request.inputs[3].field, ValueField::kBool);
  EXPECT_THAT(Values<uint8_t>(request.inputs[3]), ElementsAre(1, 0));
  EXPECT_EQ(request.inputs[4].binary_data_size, 16u);
  EXPECT_FALSE(request.inputs[4].has_data);
  ASSERT_EQ(request.outputs.size(), 2u);
  EXPECT_EQ(request.outputs[0].name, "y");
  EXPECT_TRUE(request.outputs[0].binary_data);
  EXPECT_FALSE(request.outputs[1].binary_data);
}

TEST(V2RestRequestTest, NestedDataRecordsTheLengthAtEachDepth) {
  RestInferRequest request;
  ASSERT_TRUE(Parse(R"({"inputs":[{"name":"a","datatype":"INT32","shape":[2,3,1],
      "data":[[[1],[2],[3]],[[4],[5],[6]]]},{"name":"b","datatype":"INT32","data":[[1,2,3]]}]})",
                    request)
                  .ok());
  EXPECT_THAT(request.inputs[0].nested_dims, ElementsAre(2, 3, 1));
  EXPECT_THAT(Values<int32_t>(request.inputs[0]), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(request.inputs[1].nested_dims, ElementsAre(1, 3));
}

TEST(V2RestRequestTest, DataBeforeTheNameAndDatatypeWaitsAndIsConvertedAtTheEnd) {
  RestInferRequest request;
  ASSERT_TRUE(
      Parse(R"({"inputs":[{"data":[1,-2],"shape":[2],"datatype":"INT16","name":"a"}]})", request)
          .ok());
  EXPECT_TRUE(request.inputs[0].pending.empty());
  EXPECT_EQ(request.inputs[0].field, ValueField::kInt32);
  EXPECT_THAT(Values<int32_t>(request.inputs[0]), ElementsAre(1, -2));
  // Out of range once known.
  request = {};
  const absl::Status status =
      Parse(R"({"inputs":[{"data":[5000000000],"datatype":"INT32","name":"a"}]})", request);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "model 'm' input 'a' is INT32: data[0] = 5000000000 is outside its range "
            "[-2147483648, 2147483647]");
}

TEST(V2RestRequestTest, RefusesWhatDoesNotFitWithAMessage) {
  const struct {
    std::string json;
    std::string message;
  } cases[] = {
      {"", "model 'm': the request body is not JSON: "},
      {"{\"inputs\": [}", "model 'm': the request body is not JSON: "},
      {"[]", "model 'm': the request body must be a JSON object ($inference_request)"},
      {R"({"id": 5})", "model 'm': 'id' must be a string"},
      {R"({"inputs": {}})", "model 'm': 'inputs' must be an array of objects"},
      {R"({"parameters": {"timeout": 1.5}})",
       "model 'm': request parameter 'timeout' must be an int64 number of microseconds"},
      {R"({"parameters": {"binary_data_output": 1}})",
       "model 'm': request parameter 'binary_data_output' must be true or false"},
      {R"({"inputs":[{"name":"a","shape":[-1]}]})",
       "model 'm' input 'a': 'shape' holds -1, which is not a size"},
      {R"({"inputs":[{"name":"a","datatype":"UINT32","data":[-1]}]})",
       "model 'm' input 'a' is UINT32: data[0] = -1 is outside its range [0, 4294967295]"},
      {R"({"inputs":[{"name":"a","datatype":"UINT64","data":[-1]}]})",
       "model 'm' input 'a' is UINT64: data[0] = -1 is outside its range"},
      {R"({"inputs":[{"name":"a","datatype":"INT64","data":[9223372036854775808]}]})",
       "model 'm' input 'a' is INT64: data[0] = 9223372036854775808 is outside its range"},
      {R"({"inputs":[{"name":"a","datatype":"BOOL","data":[1]}]})",
       "model 'm' input 'a' is BOOL: data[0] = 1 is not true or false"},
      {R"({"inputs":[{"name":"a","datatype":"INT8","data":[null]}]})",
       "model 'm' input 'a': data[0] is null; give numbers or booleans"},
      {R"({"inputs":[{"name":"a","datatype":"INT8","data":[{"x":1}]}]})",
       "model 'm' input 'a': 'data' holds an object; give numbers or booleans"},
      {R"({"inputs":[{"name":"a","datatype":"INT8","data":[[1],2]}]})",
       "model 'm' input 'a': nested 'data' is not a regular array"},
      {R"({"inputs":[{"name":"a","datatype":"INT8","data":[1,[2]]}]})",
       "model 'm' input 'a': nested 'data' is not a regular array"},
      {R"({"inputs":[{"name":"a","parameters":{"binary_data_size":"8"}}]})",
       "model 'm' input 'a': parameter 'binary_data_size' must be a number of bytes"},
      {R"({"outputs":[{"name":"y","parameters":{"binary_data":"yes"}}]})",
       "model 'm': output 'y': parameter 'binary_data' must be true or false"},
  };
  for (const auto& c : cases) {
    RestInferRequest request;
    const absl::Status status = Parse(c.json, request);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.json;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.message)) << c.json;
  }
}

TEST(V2RestRequestTest, DeepNestingIsRefusedWithoutRecursion) {
  const std::string deep = "{\"inputs\":[{\"name\":\"a\",\"data\":" + std::string(200000, '[') +
                           std::string(200000, ']') + "}]}";
  RestInferRequest request;
  const absl::Status status = Parse(deep, request);
  EXPECT_EQ(status.message(),
            "model 'm': the request nests arrays and objects deeper than 64 levels");
  request = {};
  const std::string unknown = "{\"x\":" + std::string(100, '[') + std::string(100, ']') + "}";
  EXPECT_EQ(Parse(unknown, request).code(), absl::StatusCode::kInvalidArgument);
}

TEST(V2RestRequestTest, DatatypesWithoutAJsonFormHaveNoField) {
  for (const char* datatype : {"BYTES", "FP64", "FP8_E4", "FP32R", "UNKNOWN", "float"}) {
    EXPECT_EQ(RestDataField(datatype), ValueField::kNone) << datatype;
  }
  RestInput input;
  input.name = "a";
  input.datatype = "BYTES";
  input.pending.push_back(RestScalar{RestScalar::Kind::kInt, {}});
  EXPECT_THAT(std::string(FinishRestInput("m", input).message()),
              HasSubstr("model 'm' input 'a': datatype 'BYTES' cannot be sent as JSON data"));
}

TEST(V2RestRequestTest, SplitsTheBodyAtTheHeaderLength) {
  const std::string body = "{\"id\":\"x\"}\x01\x02";
  absl::StatusOr<RestBodyParts> parts = SplitRestBody(body, "10", "m");
  ASSERT_TRUE(parts.ok()) << parts.status();
  EXPECT_EQ(parts->json, "{\"id\":\"x\"}");
  EXPECT_EQ(parts->binary, "\x01\x02");
  // No header: all of it is JSON.
  parts = SplitRestBody(body, "", "m");
  ASSERT_TRUE(parts.ok()) << parts.status();
  EXPECT_EQ(parts->json, body);
  EXPECT_TRUE(parts->binary.empty());
  // All of it is JSON, and none of it.
  parts = SplitRestBody(body, "12", "m");
  ASSERT_TRUE(parts.ok()) << parts.status();
  EXPECT_TRUE(parts->binary.empty());
  parts = SplitRestBody(body, "0", "m");
  ASSERT_TRUE(parts.ok()) << parts.status();
  EXPECT_TRUE(parts->json.empty());
  EXPECT_EQ(parts->binary, body);
}

TEST(V2RestRequestTest, RefusesAHeaderLengthThatIsNotABodyPrefix) {
  const struct {
    std::string header;
    std::string message;
  } cases[] = {
      {"ten", "model 'm': header Inference-Header-Content-Length is 'ten', not a number of bytes"},
      {"-1", "model 'm': header Inference-Header-Content-Length is '-1', not a number of bytes"},
      {"18446744073709551616",
       "model 'm': header Inference-Header-Content-Length is '18446744073709551616', not a number "
       "of bytes"},
      {"13",
       "model 'm': header Inference-Header-Content-Length says the JSON is 13 bytes, but the body "
       "has 12"},
      {"18446744073709551615",
       "model 'm': header Inference-Header-Content-Length says the JSON is 18446744073709551615 "
       "bytes, but the body has 12"},
  };
  for (const auto& c : cases) {
    const absl::StatusOr<RestBodyParts> parts =
        SplitRestBody("{\"id\":\"x\"}\x01\x02", c.header, "m");
    EXPECT_EQ(parts.status().code(), absl::StatusCode::kInvalidArgument) << c.header;
    EXPECT_EQ(parts.status().message(), c.message) << c.header;
  }
}

}  // namespace
}  // namespace neuronserve
