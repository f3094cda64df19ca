// The Open Inference Protocol's REST form refusing what is malformed: each malformed request with
// its status and message, the body limit (413), and the daemon serving after them all.
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "tests/e2e/dtype_samples.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/v2_rest_client.h"
#include "tests/support/http_get.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace v2_rest_e2e_test {
namespace {

TEST(V2RestE2ETest, MalformedRequestsAreRefusedWithTheirMessagesAndTheDaemonGoesOn) {
  START_HTTP_DAEMON(daemon, rest, std::vector<std::string>{"--max-message-bytes=4194304"});
  ASSERT_TRUE(Upload(*daemon->stub, Config("mlp", "1"), EncodeNeff(SmallMlp(11))).status.ok());
  const std::string good = MlpJson(std::vector<float>(kRestMlpIn, 0.5f), false, "ok");
  const std::string floats8 = "[0,1,2,3,4,5,6,7]";
  const auto input = [](const std::string& fields) {
    return absl::StrCat(R"({"inputs":[{"name":"input",)", fields, "}]}");
  };
  struct Case {
    std::string what;
    std::string path;
    std::string body;
    std::vector<std::string> headers;
    int status;
    std::string message;
  };
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  const std::vector<Case> cases = {
      {"bad JSON",
       "/v2/models/mlp/infer",
       "{\"inputs\": [",
       {},
       400,
       "model 'mlp': the request body is not JSON: "},
      {"not an object",
       "/v2/models/mlp/infer",
       "[1,2]",
       {},
       400,
       "model 'mlp': the request body must be a JSON object ($inference_request)"},
      {"200,000-deep nesting",
       "/v2/models/mlp/infer",
       absl::StrCat(R"({"inputs":[{"name":"input","data":)", deep, "}]}"),
       {},
       400,
       "model 'mlp': the request nests arrays and objects deeper than 64 levels"},
      {"a string in data",
       "/v2/models/mlp/infer",
       input(R"("shape":[1,8],"datatype":"FP32","data":[0,1,"2",3,4,5,6,7])"),
       {},
       400,
       "model 'mlp' input 'input': data[2] is a string; give numbers (or true/false for BOOL); "
       "BYTES tensors are not served"},
      {"a boolean in FP32 data",
       "/v2/models/mlp/infer",
       input(R"("shape":[1,8],"datatype":"FP32","data":[0,1,true,3,4,5,6,7])"),
       {},
       400,
       "model 'mlp' input 'input' is FP32: data[2] = true is a boolean; only BOOL inputs take "
       "true/false"},
      {"wrong datatype",
       "/v2/models/mlp/infer",
       input(R"("shape":[1,8],"datatype":"INT32","data":)" + floats8),
       {},
       400,
       "model 'mlp' input 'input'"},
      {"unknown datatype",
       "/v2/models/mlp/infer",
       input(R"("shape":[1,8],"datatype":"FLOAT","data":)" + floats8),
       {},
       400,
       "FLOAT"},
      {"BYTES",
       "/v2/models/mlp/infer",
       input(R"("shape":[1,8],"datatype":"BYTES","data":)" + floats8),
       {},
       400,
       "BYTES"},
      {"missing shape",
       "/v2/models/mlp/infer",
       input(R"("datatype":"FP32","data":)" + floats8),
       {},
       400,
       "model 'mlp' input 'input': 'shape' is missing; expected [1,8]"},
      {"too few values",
       "/v2/models/mlp/infer",
       input(R"("shape":[1,8],"datatype":"FP32","data":[1,2,3])"),
       {},
       400,
       "model 'mlp' input 'input': expected 8 FP32 values in data (shape [1,8]), got 3"},
      {"nesting that disagrees with the shape",
       "/v2/models/mlp/infer",
       input(R"("shape":[1,8],"datatype":"FP32","data":[[0,1,2,3],[4,5,6,7]])"),
       {},
       400,
       "model 'mlp' input 'input': 'data' is nested as [2,4] but 'shape' is [1,8]; nest it as "
       "the shape or send it flat"},
      {"ragged nesting",
       "/v2/models/mlp/infer",
       input(R"("shape":[1,8],"datatype":"FP32","data":[[0,1,2,3,4],[5,6,7]])"),
       {},
       400,
       "model 'mlp' input 'input': nested 'data' is not a regular array"},
      {"missing input",
       "/v2/models/mlp/infer",
       R"({"inputs":[]})",
       {},
       400,
       "model 'mlp': missing input 'input'"},
      {"unknown model", "/v2/models/nope/infer", good, {}, 404, "'nope'"},
      {"unknown version",
       "/v2/models/mlp/versions/9/infer",
       good,
       {},
       400,
       "Request for unknown model: 'mlp' version 9 is not found (version '1' is serving)"},
      {"header not a number",
       "/v2/models/mlp/infer",
       good,
       {absl::StrCat(kHeaderLength, ": ten")},
       400,
       "model 'mlp': header Inference-Header-Content-Length is 'ten', not a number of bytes"},
      {"header longer than the body",
       "/v2/models/mlp/infer",
       good,
       {absl::StrCat(kHeaderLength, ": 999999")},
       400,
       absl::StrCat("model 'mlp': header Inference-Header-Content-Length says the JSON is 999999 "
                    "bytes, but the body has ",
                    good.size())},
      {"binary sizes that do not fill the body",
       "/v2/models/mlp/infer",
       input(R"("shape":[1,8],"datatype":"FP32","parameters":{"binary_data_size":32})") +
           std::string(40, 'x'),
       {absl::StrCat(
           kHeaderLength, ": ",
           input(R"("shape":[1,8],"datatype":"FP32","parameters":{"binary_data_size":32})")
               .size())},
       400,
       "model 'mlp': the inputs' binary_data_size add up to 32 bytes, but the body has 40 bytes "
       "after the JSON (Inference-Header-Content-Length)"},
      {"binary size past the end",
       "/v2/models/mlp/infer",
       input(R"("shape":[1,8],"datatype":"FP32","parameters":{"binary_data_size":64})") +
           std::string(32, 'x'),
       {absl::StrCat(
           kHeaderLength, ": ",
           input(R"("shape":[1,8],"datatype":"FP32","parameters":{"binary_data_size":64})")
               .size())},
       400,
       "model 'mlp' input 'input': binary_data_size 64 runs past the end of the body"},
      {"binary_data_size without the header",
       "/v2/models/mlp/infer",
       input(R"("shape":[1,8],"datatype":"FP32","parameters":{"binary_data_size":32})"),
       {},
       400,
       "model 'mlp' input 'input' has binary_data_size but the request has no "
       "Inference-Header-Content-Length header"},
      {"negative timeout",
       "/v2/models/mlp/infer",
       R"({"parameters":{"timeout":-5},"inputs":[{"name":"input","shape":[1,8],"datatype":"FP32","data":)" +
           floats8 + "}]}",
       {},
       400,
       "model 'mlp': request parameter 'timeout' is -5 microseconds; give 0 (none) or more"},
      {"repository load without a repository",
       "/v2/repository/models/mlp/load",
       "",
       {},
       400,
       "failed to load 'mlp': the daemon has no --model-repository"},
      {"unload of an unknown model", "/v2/repository/models/nope/unload", "", {}, 404, "'nope'"},
  };
  for (const Case& c : cases) {
    const HttpResult result = rest.Post(c.path, c.body, c.headers);
    EXPECT_EQ(result.status, c.status) << c.what << ": " << result.body.substr(0, 300);
    EXPECT_EQ(result.Header("Content-Type"), "application/json") << c.what;
    EXPECT_THAT(result.ErrorField(), HasSubstr(c.message)) << c.what;
  }
  // An integer out of its datatype's range (an INT8 identity model).
  LoadIdentity(*daemon->stub, DataType::kInt8, {1, 2});
  const HttpResult range =
      rest.Post("/v2/models/" + ModelNameFor(DataType::kInt8) + "/infer",
                R"({"inputs":[{"name":"input","shape":[1,2],"datatype":"INT8","data":[1,300]}]})");
  EXPECT_EQ(range.status, 400);
  EXPECT_THAT(range.ErrorField(), HasSubstr("data[1] = 300 is outside its range [-128, 127]"));
  const HttpResult fraction =
      rest.Post("/v2/models/" + ModelNameFor(DataType::kInt8) + "/infer",
                R"({"inputs":[{"name":"input","shape":[1,2],"datatype":"INT8","data":[1,2.5]}]})");
  EXPECT_EQ(fraction.status, 400);
  EXPECT_THAT(fraction.ErrorField(), HasSubstr("data[1] = 2.5 is not an integer"));

  // A body over --max-message-bytes: 413, and the daemon goes on.
  const HttpResult big = rest.Post("/v2/models/mlp/infer", std::string(5 << 20, ' '));
  EXPECT_EQ(big.status, 413);
  const HttpResult after = rest.Post("/v2/models/mlp/infer", good);
  EXPECT_EQ(after.status, 200) << after.body;
  EXPECT_EQ(rest.Get("/v2/health/live").status, 200);
}

}  // namespace
}  // namespace v2_rest_e2e_test
}  // namespace neuronserve::testing
