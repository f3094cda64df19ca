// The Open Inference Protocol's REST form (/v2/...) through the real daemon on the simulator,
// with curl as the client: the probes, metadata, statistics (equal to gRPC ModelStatistics),
// JSON inference on the MLP and the classifier against references computed here, every dtype
// through JSON and through Triton's binary extension, a 16 MiB tensor both ways, and compressed
// bodies. Malformed requests: v2_rest_malformed_e2e_test.cc; tokens, scopes, trace context and
// --admin-listen: v2_rest_access_e2e_test.cc; shared memory: v2_rest_shared_memory_e2e_test.cc.
#include <cmath>
#include <cstring>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/v2_datatype_name.h"
#include "client/simmodel/classifier_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "tests/e2e/dtype_samples.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/e2e/v2_rest_client.h"
#include "tests/support/http_get.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/temp_dir.h"
#include "tests/support/zlib_compress.h"

namespace neuronserve::testing {
namespace v2_rest_e2e_test {
namespace {

TEST(V2RestE2ETest, ProbesMetadataAndTheirErrors) {
  START_HTTP_DAEMON(daemon, rest, std::vector<std::string>{});
  ASSERT_TRUE(Upload(*daemon->stub, Config("mlp", "1"), EncodeNeff(SmallMlp(11))).status.ok());
  EXPECT_EQ(rest.Get("/v2/health/live").status, 200);
  EXPECT_TRUE(WaitUntil([&] { return rest.Get("/v2/health/ready").status == 200; }));
  EXPECT_TRUE(WaitUntil([&] { return rest.Get("/v2/models/mlp/ready").status == 200; }));
  EXPECT_EQ(rest.Get("/v2/models/mlp/versions/1/ready").status, 200);
  const HttpResult other_version = rest.Get("/v2/models/mlp/versions/9/ready");
  EXPECT_EQ(other_version.status, 400);
  EXPECT_EQ(other_version.ErrorField(), "model 'mlp' version '9' is not ready");
  const HttpResult unknown_ready = rest.Get("/v2/models/nope/ready");
  EXPECT_EQ(unknown_ready.status, 400);
  EXPECT_EQ(unknown_ready.ErrorField(), "model 'nope' is not ready");

  const HttpResult server = rest.Get("/v2");
  ASSERT_EQ(server.status, 200) << server.body;
  EXPECT_EQ(server.Header("Content-Type"), "application/json");
  const Json server_json = Json::parse(server.body);
  EXPECT_EQ(server_json["name"], "neuron-serve");
  EXPECT_FALSE(server_json["version"].get<std::string>().empty());
  EXPECT_EQ(server_json["extensions"], Json::array({"model_repository", "schedule_policy",
                                                    "statistics", "system_shared_memory"}));

  for (const std::string path : {"/v2/models/mlp", "/v2/models/mlp/versions/1"}) {
    const HttpResult metadata = rest.Get(path);
    ASSERT_EQ(metadata.status, 200) << metadata.body;
    const Json json = Json::parse(metadata.body);
    EXPECT_EQ(json["name"], "mlp");
    EXPECT_EQ(json["versions"], Json::array({"1"}));
    EXPECT_EQ(json["platform"], "neuron");
    EXPECT_EQ(json["inputs"], Json::parse(R"([{"name":"input","datatype":"FP32","shape":[1,8]}])"));
    EXPECT_EQ(json["outputs"],
              Json::parse(R"([{"name":"output","datatype":"FP32","shape":[1,4]}])"));
  }
  const HttpResult unknown = rest.Get("/v2/models/nope");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_THAT(unknown.ErrorField(), HasSubstr("'nope'"));
  const HttpResult mismatch = rest.Get("/v2/models/mlp/versions/9");
  EXPECT_EQ(mismatch.status, 400);
  EXPECT_EQ(mismatch.ErrorField(),
            "Request for unknown model: 'mlp' version 9 is not found (version '1' is serving)");
  const HttpResult stats_unknown = rest.Get("/v2/models/nope/stats");
  EXPECT_EQ(stats_unknown.status, 404);
  EXPECT_THAT(stats_unknown.ErrorField(), HasSubstr("'nope'"));
  EXPECT_EQ(rest.Post("/v2", "{}").status, 405);
}

TEST(V2RestE2ETest, JsonInferenceOnTheMlpAndTheClassifierMatchesReferences) {
  TempDir dir;
  const std::string access_log = dir.Join("access.log");
  START_HTTP_DAEMON(daemon, rest, std::vector<std::string>{"--access-log=" + access_log});
  const simmodel::SimModel mlp = SmallMlp(11);
  ASSERT_TRUE(Upload(*daemon->stub, Config("mlp", "1"), EncodeNeff(mlp)).status.ok());
  const simmodel::SimModel classifier = ExampleClassifier();
  ASSERT_TRUE(Upload(*daemon->stub, Config("classifier"), EncodeNeff(classifier)).status.ok());
  std::mt19937 random(5);
  std::uniform_real_distribution<float> value(-2, 2);
  for (int i = 0; i < 10; ++i) {
    std::vector<float> x(kRestMlpIn);
    for (float& v : x) v = value(random);
    const std::string id = absl::StrCat("r", i);
    const std::string path =
        i % 3 == 0 ? "/v2/models/mlp/versions/1/infer" : "/v2/models/mlp/infer";
    const HttpResult result = rest.Post(path, MlpJson(x, /*nested=*/i % 2 == 1, id));
    ASSERT_EQ(result.status, 200) << result.body;
    EXPECT_EQ(result.Header("Content-Type"), "application/json");
    const Json json = Json::parse(result.body);
    EXPECT_EQ(json["model_name"], "mlp");
    EXPECT_EQ(json["model_version"], "1");
    EXPECT_EQ(json["id"], id);
    ASSERT_EQ(json["outputs"].size(), 1u);
    EXPECT_EQ(json["outputs"][0]["name"], "output");
    EXPECT_EQ(json["outputs"][0]["datatype"], "FP32");
    EXPECT_EQ(json["outputs"][0]["shape"], Json::array({1, kRestMlpOut}));
    ExpectNear(json["outputs"][0]["data"], MlpReference(mlp, x, 2), id);
  }
  std::uniform_int_distribution<int64_t> token(0, kClassifierVocab - 1);
  for (int i = 0; i < 6; ++i) {
    std::vector<int64_t> ids(kClassifierSequence), mask(kClassifierSequence);
    const int kept = 1 + i * 2;
    for (int s = 0; s < static_cast<int>(kClassifierSequence); ++s) {
      ids[s] = s < kept ? token(random) : 0;
      mask[s] = s < kept ? 1 : 0;
    }
    // The names and datatypes after the data: the parser keeps the values until it knows them.
    const Json request = {
        {"inputs",
         {{{"data", ids},
           {"shape", {1, kClassifierSequence}},
           {"datatype", "INT64"},
           {"name", simmodel::kClassifierIds}},
          {{"data", mask},
           {"shape", {1, kClassifierSequence}},
           {"datatype", "INT64"},
           {"name", simmodel::kClassifierMask}}}},
        {"outputs",
         {{{"name", simmodel::kClassifierLogits}}, {{"name", simmodel::kClassifierLogitsFp16}}}}};
    const HttpResult result = rest.Post("/v2/models/classifier/infer", request.dump());
    ASSERT_EQ(result.status, 200) << result.body;
    const Json json = Json::parse(result.body);
    EXPECT_FALSE(json.contains("id"));
    ASSERT_EQ(json["outputs"].size(), 2u);
    const std::vector<double> want = ClassifierReference(classifier, ids, mask);
    ExpectNear(json["outputs"][0]["data"], want, "logits");
    EXPECT_EQ(json["outputs"][1]["datatype"], "FP16");
    // float16 keeps about three decimal digits.
    const Json& fp16 = json["outputs"][1]["data"];
    ASSERT_EQ(fp16.size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) {
      EXPECT_NEAR(fp16[k].get<double>(), want[k], 2e-3 + 1e-3 * std::abs(want[k]));
    }
  }
  // The access log names the REST front end, and the protocol counter counts it.
  EXPECT_TRUE(WaitUntil([&] { return absl::StrContains(ReadFileContents(access_log), "RestModelInfer"); }));
  const HttpResult metrics = rest.Get("/metrics");
  EXPECT_THAT(metrics.body,
              HasSubstr("neuronserve_requests_by_protocol_total{protocol=\"v2_http\"} 16"));
}

TEST(V2RestE2ETest, EveryDtypeRoundTripsThroughJsonAndThroughBinary) {
  START_HTTP_DAEMON(daemon, rest, std::vector<std::string>{});
  for (DataType dtype : kEveryDtype) LoadIdentity(*daemon->stub, dtype, {2, 3});
  for (DataType dtype : kEveryDtype) {
    const std::string datatype = V2DatatypeName(dtype);
    const std::string path = "/v2/models/" + ModelNameFor(dtype) + "/infer";
    const std::vector<double> values = SampleValues(dtype);
    const std::string bytes = ElementBytes(dtype, values);
    // Binary in, binary out: the bytes unchanged.
    const Json binary_request = {{"inputs",
                                  {{{"name", "input"},
                                    {"shape", {2, 3}},
                                    {"datatype", datatype},
                                    {"parameters", {{"binary_data_size", bytes.size()}}}}}},
                                 {"parameters", {{"binary_data_output", true}}}};
    const HttpResult binary = rest.PostBinary(path, binary_request.dump(), bytes);
    ASSERT_EQ(binary.status, 200) << datatype << ": " << binary.body;
    EXPECT_EQ(binary.Header("Content-Type"), "application/octet-stream");
    const Answer answer = Split(binary);
    EXPECT_EQ(answer.json["outputs"][0]["datatype"], datatype);
    EXPECT_EQ(answer.json["outputs"][0]["parameters"]["binary_data_size"], bytes.size());
    EXPECT_EQ(answer.binary, bytes) << datatype;
    // JSON in, JSON out, the values unchanged, where JSON can carry the datatype.
    const bool json_form = dtype != DataType::kFp8E3 && dtype != DataType::kFp8E4 &&
                           dtype != DataType::kFp8E5 && dtype != DataType::kFp32R;
    if (!json_form) {
      // No JSON numbers for these: data is refused, and the output comes binary unasked.
      const Json request = {{"inputs",
                             {{{"name", "input"},
                               {"shape", {2, 3}},
                               {"datatype", datatype},
                               {"data", {1, 2, 3, 4, 5, 6}}}}}};
      const HttpResult refused = rest.Post(path, request.dump());
      EXPECT_EQ(refused.status, 400) << datatype;
      EXPECT_THAT(refused.ErrorField(), HasSubstr("cannot be sent as JSON data")) << datatype;
      const Json plain_binary = {{"inputs",
                                  {{{"name", "input"},
                                    {"shape", {2, 3}},
                                    {"datatype", datatype},
                                    {"parameters", {{"binary_data_size", bytes.size()}}}}}}};
      const Answer forced = Split(rest.PostBinary(path, plain_binary.dump(), bytes));
      EXPECT_EQ(forced.binary, bytes) << datatype;
      continue;
    }
    const bool floating =
        dtype == DataType::kFloat32 || dtype == DataType::kFloat16 || dtype == DataType::kBFloat16;
    Json data = Json::array();
    for (double v : values) {
      if (floating) {
        data.push_back(v);
      } else if (dtype == DataType::kUInt64) {
        data.push_back(static_cast<uint64_t>(v));
      } else {
        data.push_back(static_cast<int64_t>(v));
      }
    }
    const Json request = {
        {"inputs",
         {{{"name", "input"}, {"shape", {2, 3}}, {"datatype", datatype}, {"data", data}}}}};
    const HttpResult typed = rest.Post(path, request.dump());
    ASSERT_EQ(typed.status, 200) << datatype << ": " << typed.body;
    const Json json = Json::parse(typed.body);
    EXPECT_EQ(json["outputs"][0]["datatype"], datatype);
    EXPECT_EQ(json["outputs"][0]["shape"], Json::array({2, 3}));
    const Json& got = json["outputs"][0]["data"];
    if (!floating) {
      EXPECT_EQ(got, data) << datatype;
      continue;
    }
    // Printed as the shortest text that reads back as the same float.
    ASSERT_EQ(got.size(), values.size()) << datatype;
    for (size_t i = 0; i < values.size(); ++i) {
      EXPECT_EQ(static_cast<float>(got[i].get<double>()), static_cast<float>(values[i]))
          << datatype << " [" << i << "]";
    }
  }
  // INT64 and UINT64 at their extremes, exactly (no detour through double).
  LoadIdentity(*daemon->stub, DataType::kInt64, {1, 2});
  const std::string extremes =
      R"({"inputs":[{"name":"input","shape":[1,2],"datatype":"INT64","data":[-9223372036854775808,9223372036854775807]}]})";
  const HttpResult exact =
      rest.Post("/v2/models/" + ModelNameFor(DataType::kInt64) + "/infer", extremes);
  ASSERT_EQ(exact.status, 200) << exact.body;
  EXPECT_THAT(exact.body, HasSubstr("[-9223372036854775808,9223372036854775807]"));
  // BOOL into a 1-byte integer tensor.
  const HttpResult bools = rest.Post(
      "/v2/models/" + ModelNameFor(DataType::kUInt8) + "/infer",
      R"({"inputs":[{"name":"input","shape":[2,3],"datatype":"BOOL","data":[[true,false,true],[true,false,true]]}]})");
  ASSERT_EQ(bools.status, 200) << bools.body;
  EXPECT_EQ(Json::parse(bools.body)["outputs"][0]["data"], Json::array({1, 0, 1, 1, 0, 1}));
}

TEST(V2RestE2ETest, ASixteenMiBTensorGoesThroughTheBinaryExtensionIntactBothWays) {
  START_HTTP_DAEMON(daemon, rest, std::vector<std::string>{"--max-message-bytes=33554432"});
  constexpr int64_t kElements = 4 << 20;  // 16 MiB of float32
  ASSERT_TRUE(
      Upload(*daemon->stub, Config("big"), EncodeNeff(IdentityModel({1, kElements}))).status.ok());
  std::string bytes(kElements * 4, '\0');
  std::mt19937 random(9);
  for (int64_t i = 0; i < kElements; ++i) {
    const float v = static_cast<float>(random() % 100000) / 7.0f;
    std::memcpy(bytes.data() + i * 4, &v, 4);
  }
  const Json request = {
      {"inputs",
       {{{"name", "input"},
         {"shape", {1, kElements}},
         {"datatype", "FP32"},
         {"parameters", {{"binary_data_size", bytes.size()}}}}}},
      {"outputs", {{{"name", "output"}, {"parameters", {{"binary_data", true}}}}}}};
  const HttpResult result = rest.PostBinary("/v2/models/big/infer", request.dump(), bytes);
  ASSERT_EQ(result.status, 200) << result.body.substr(0, 500);
  const Answer answer = Split(result);
  EXPECT_EQ(answer.json["outputs"][0]["parameters"]["binary_data_size"], bytes.size());
  EXPECT_TRUE(answer.binary == bytes) << "the 16 MiB came back changed";
}

// Bodies compressed as tritonclient compresses them (request_compression_algorithm: the whole
// body, Inference-Header-Content-Length still the JSON's uncompressed length) are served as the
// plain ones; the body limit holds on the inflated bytes.
TEST(V2RestE2ETest, GzipAndDeflateBodiesAreServedAsThePlainOnes) {
  START_HTTP_DAEMON(daemon, rest, std::vector<std::string>{"--max-message-bytes=1048576"});
  LoadIdentity(*daemon->stub, DataType::kInt64, {1, 2});
  if (HasFatalFailure()) return;
  const std::string path = "/v2/models/" + ModelNameFor(DataType::kInt64) + "/infer";
  const std::string json =
      Json{{"inputs",
            {{{"name", "input"}, {"shape", {1, 2}}, {"datatype", "INT64"}, {"data", {7, -9}}}}}}
          .dump();
  const std::string values("\x05\0\0\0\0\0\0\0\xfd\xff\xff\xff\xff\xff\xff\xff", 16);
  const std::string binary_json = Json{{"inputs",
                                        {{{"name", "input"},
                                          {"shape", {1, 2}},
                                          {"datatype", "INT64"},
                                          {"parameters", {{"binary_data_size", 16}}}}}}}
                                      .dump();
  for (const char* coding : {"gzip", "deflate"}) {
    SCOPED_TRACE(coding);
    const bool gzip = std::string(coding) == "gzip";
    const std::string encoding = absl::StrCat("Content-Encoding: ", coding);
    const HttpResult plain = rest.Post(path, ZlibCompress(json, gzip), {encoding});
    ASSERT_EQ(plain.status, 200) << plain.body;
    EXPECT_EQ(Split(plain).json["outputs"][0]["data"], Json::array({7, -9}));
    const HttpResult binary =
        rest.Post(path, ZlibCompress(binary_json + values, gzip),
                  {encoding, absl::StrCat(kHeaderLength, ": ", binary_json.size())});
    ASSERT_EQ(binary.status, 200) << binary.body;
    EXPECT_EQ(Split(binary).json["outputs"][0]["data"], Json::array({5, -3}));
    // A bomb: 8 MiB of spaces after the JSON inflate past the 1 MiB limit.
    const HttpResult bomb =
        rest.Post(path, ZlibCompress(json + std::string(8 << 20, ' '), gzip), {encoding});
    EXPECT_EQ(bomb.status, 413) << bomb.body;
    EXPECT_THAT(bomb.ErrorField(), HasSubstr("the limit is 1048576 bytes"));
  }
  const HttpResult unknown = rest.Post(path, json, {"Content-Encoding: br"});
  EXPECT_EQ(unknown.status, 415);
  EXPECT_THAT(unknown.ErrorField(), HasSubstr("Content-Encoding 'br' is not supported"));
}

TEST(V2RestE2ETest, StatisticsAreTheGrpcOnesInTritonsLayout) {
  START_HTTP_DAEMON(daemon, rest, std::vector<std::string>{});
  ASSERT_TRUE(Upload(*daemon->stub, Config("mlp", "1"), EncodeNeff(SmallMlp(11))).status.ok());
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(
        rest.Post("/v2/models/mlp/infer", MlpJson(std::vector<float>(kRestMlpIn, i), false, "")).status,
        200);
  }
  EXPECT_EQ(rest.Post("/v2/models/mlp/infer", R"({"inputs":[]})").status, 400);
  const HttpResult other_version = rest.Get("/v2/models/mlp/versions/2/stats");
  EXPECT_EQ(other_version.status, 400);
  EXPECT_EQ(other_version.ErrorField(),
            "Request for unknown model: 'mlp' version 2 is not found (version '1' is serving)");
  auto v2 = inference::GRPCInferenceService::NewStub(daemon->channel);
  grpc::ClientContext context;
  inference::ModelStatisticsRequest request;
  request.set_name("mlp");
  inference::ModelStatisticsResponse grpc_stats;
  ASSERT_TRUE(v2->ModelStatistics(&context, request, &grpc_stats).ok());
  ASSERT_EQ(grpc_stats.model_stats_size(), 1);
  const inference::ModelStatistics& want = grpc_stats.model_stats(0);
  for (const std::string path :
       {"/v2/models/mlp/stats", "/v2/models/mlp/versions/1/stats", "/v2/models/stats"}) {
    const HttpResult result = rest.Get(path);
    ASSERT_EQ(result.status, 200) << result.body;
    const Json json = Json::parse(result.body);
    ASSERT_EQ(json["model_stats"].size(), 1u) << path;
    const Json& got = json["model_stats"][0];
    EXPECT_EQ(got["name"], "mlp");
    EXPECT_EQ(got["version"], "1");
    EXPECT_EQ(got["inference_count"], want.inference_count());
    EXPECT_EQ(got["inference_count"], 5);
    EXPECT_EQ(got["execution_count"], want.execution_count());
    EXPECT_EQ(got["last_inference"], want.last_inference());
    const Json& stats = got["inference_stats"];
    EXPECT_EQ(stats["success"]["count"], want.inference_stats().success().count());
    EXPECT_EQ(stats["success"]["ns"], want.inference_stats().success().ns());
    EXPECT_EQ(stats["fail"]["count"], want.inference_stats().fail().count());
    EXPECT_EQ(stats["fail"]["count"], 1);
    EXPECT_EQ(stats["queue"]["ns"], want.inference_stats().queue().ns());
    EXPECT_EQ(stats["compute_infer"]["ns"], want.inference_stats().compute_infer().ns());
    EXPECT_EQ(stats["compute_input"]["ns"], want.inference_stats().compute_input().ns());
    EXPECT_EQ(stats["compute_output"]["ns"], want.inference_stats().compute_output().ns());
    for (const char* part : {"compute_input", "compute_infer", "compute_output"}) {
      EXPECT_EQ(stats[part]["count"], 5) << part;  // one count for the three parts
    }
    EXPECT_EQ(stats["cache_hit"], Json::parse(R"({"count":0,"ns":0})"));
  }
}

}  // namespace
}  // namespace v2_rest_e2e_test
}  // namespace neuronserve::testing
