// Triton's system shared memory extension over REST (tensors carried both ways in registered
// regions), as the gRPC service has it.
#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/e2e/dtype_samples.h"
#include "tests/e2e/v2_rest_client.h"
#include "tests/support/http_get.h"
#include "tests/support/shm_object.h"

namespace neuronserve::testing {
namespace v2_rest_e2e_test {
namespace {

// Triton's system shared memory extension over REST: the same registry as the gRPC service's,
// tensors named by their parameters, the CUDA extension as a server without GPUs, and off by
// default.
TEST(V2RestE2ETest, SharedMemoryRegionsCarryTensorsBothWays) {
  {
    START_HTTP_DAEMON(off, rest, std::vector<std::string>{});
    ShmObject object(4096);
    ASSERT_TRUE(object.ok());
    const HttpResult refused = rest.Post("/v2/systemsharedmemory/region/r/register",
                                         Json{{"key", object.key()}, {"byte_size", 64}}.dump());
    EXPECT_EQ(refused.status, 400) << refused.body;
    EXPECT_THAT(refused.body, HasSubstr("--allow-client-shared-memory"));
  }
  START_HTTP_DAEMON(daemon, rest, std::vector<std::string>{"--allow-client-shared-memory"});
  LoadIdentity(*daemon->stub, DataType::kFloat32, {2, 3});
  const std::string path = "/v2/models/" + ModelNameFor(DataType::kFloat32) + "/infer";
  ShmObject object(8192);
  ASSERT_TRUE(object.ok());
  const std::vector<float> values = {1.5f, -2, 3, 4.25f, 5, -6};
  std::memcpy(object.bytes() + 10, values.data(), 24);

  EXPECT_EQ(rest.Get("/v2/systemsharedmemory/status").body, "[]");
  HttpResult result =
      rest.Post("/v2/systemsharedmemory/region/in/register",
                Json{{"key", object.key()}, {"offset", 10}, {"byte_size", 24}}.dump());
  ASSERT_EQ(result.status, 200) << result.body;
  result = rest.Post("/v2/systemsharedmemory/region/out/register",
                     Json{{"key", object.key()}, {"offset", 4096}, {"byte_size", 100}}.dump());
  ASSERT_EQ(result.status, 200) << result.body;
  result = rest.Get("/v2/systemsharedmemory/region/in/status");
  ASSERT_EQ(result.status, 200) << result.body;
  const Json status = Json::parse(result.body);
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(status[0]["name"], "in");
  EXPECT_EQ(status[0]["key"], object.key());
  EXPECT_EQ(status[0]["offset"], 10);
  EXPECT_EQ(status[0]["byte_size"], 24);

  const auto request = [&](Json input_parameters, Json output_parameters) {
    Json body{{"inputs", Json::array({Json{{"name", "input"},
                                           {"datatype", "FP32"},
                                           {"shape", {2, 3}},
                                           {"parameters", std::move(input_parameters)}}})}};
    if (!output_parameters.is_null()) {
      body["outputs"] =
          Json::array({Json{{"name", "output"}, {"parameters", std::move(output_parameters)}}});
    }
    return body.dump();
  };
  result =
      rest.Post(path, request({{"shared_memory_region", "in"}, {"shared_memory_byte_size", 24}},
                              {{"shared_memory_region", "out"},
                               {"shared_memory_byte_size", 24},
                               {"shared_memory_offset", 8}}));
  ASSERT_EQ(result.status, 200) << result.body;
  const Json answer = Json::parse(result.body);
  ASSERT_EQ(answer["outputs"].size(), 1u);
  EXPECT_EQ(answer["outputs"][0]["name"], "output");
  EXPECT_FALSE(answer["outputs"][0].contains("data"));
  EXPECT_EQ(answer["outputs"][0]["parameters"]["shared_memory_region"], "out");
  std::vector<float> written(6);
  std::memcpy(written.data(), object.bytes() + 4096 + 8, 24);
  EXPECT_EQ(written, values);
  // The input from shared memory, the output in the answer's JSON.
  result = rest.Post(
      path, request({{"shared_memory_region", "in"}, {"shared_memory_byte_size", 24}}, nullptr));
  ASSERT_EQ(result.status, 200) << result.body;
  EXPECT_EQ(Json::parse(result.body)["outputs"][0]["data"],
            Json(std::vector<double>(values.begin(), values.end())));

  // Bounds, and an output sent to two places: 400 naming the region, never the key.
  for (const auto& [body, says] : std::vector<std::pair<std::string, std::string>>{
           {request({{"shared_memory_region", "in"},
                     {"shared_memory_byte_size", 24},
                     {"shared_memory_offset", 4}},
                    nullptr),
            "shared memory region 'in'"},
           {request({{"shared_memory_region", "in"}, {"shared_memory_byte_size", 24}},
                    {{"shared_memory_region", "out"}, {"shared_memory_byte_size", 8}}),
            "shared memory region 'out'"},
           {request({{"shared_memory_region", "in"}, {"shared_memory_byte_size", "24"}}, nullptr),
            "must be an integer"},
           {request({{"shared_memory_region", "in"}, {"shared_memory_byte_size", 24}},
                    {{"shared_memory_region", "out"},
                     {"shared_memory_byte_size", 24},
                     {"binary_data", true}}),
            "an output goes to one place"}}) {
    result = rest.Post(path, body);
    EXPECT_EQ(result.status, 400) << says << ": " << result.body;
    EXPECT_THAT(result.body, HasSubstr(says));
    EXPECT_THAT(result.body, Not(HasSubstr(object.key().substr(1))));
  }

  EXPECT_EQ(rest.Post("/v2/systemsharedmemory/region/in/unregister", "").status, 200);
  EXPECT_EQ(rest.Get("/v2/systemsharedmemory/region/in/status").status, 404);
  EXPECT_EQ(rest.Post("/v2/systemsharedmemory/unregister", "").status, 200);
  EXPECT_EQ(rest.Get("/v2/systemsharedmemory/status").body, "[]");

  EXPECT_EQ(rest.Get("/v2/cudasharedmemory/status").body, "[]");
  EXPECT_EQ(rest.Post("/v2/cudasharedmemory/unregister", "").status, 200);
  result =
      rest.Post("/v2/cudasharedmemory/region/gpu/register",
                Json{{"raw_handle", {{"b64", "AA=="}}}, {"device_id", 0}, {"byte_size", 8}}.dump());
  EXPECT_EQ(result.status, 400) << result.body;
  EXPECT_THAT(result.body, HasSubstr("no GPUs"));
}

}  // namespace
}  // namespace v2_rest_e2e_test
}  // namespace neuronserve::testing
