// The Open Inference Protocol's REST form (/v2/...) through the real daemon on the simulator,
// with curl as the client: the probes, metadata, statistics (equal to gRPC ModelStatistics),
// JSON inference on the MLP and the classifier against references computed here, every dtype
// through JSON and through Triton's binary extension, a 16 MiB tensor both ways, each malformed
// request with its status and message (and the daemon serving after), the body limit (413),
// bearer tokens and scopes, the repository calls with their audit lines, and --admin-listen.
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "absl/strings/ascii.h"
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
#include "tests/support/http_get.h"
#include "tests/support/shm_object.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/temp_dir.h"
#include "tests/support/zlib_compress.h"

namespace neuronserve::testing {
namespace v2_rest_e2e_test {
namespace {

using Json = nlohmann::json;
using ::neuronserve::testing::ZlibCompress;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kHeaderLength[] = "Inference-Header-Content-Length";
constexpr int kRestMlpIn = 8;
constexpr int kRestMlpOut = 4;

// curl against the daemon's HTTP endpoint; bodies go through files of its own folder.
class Rest {
 public:
  explicit Rest(std::string address) : base_("http://" + std::move(address)) {}

  HttpResult Get(const std::string& path, std::vector<std::string> headers = {}) const {
    return HttpFetch({.url = base_ + path, .headers = std::move(headers)});
  }
  HttpResult Post(const std::string& path, const std::string& body,
                  std::vector<std::string> headers = {}) {
    HttpRequest request{.url = base_ + path, .method = "POST", .headers = std::move(headers)};
    if (!body.empty()) {
      request.body_file = dir_.Write(absl::StrCat("body", ++bodies_), body);
    } else {
      request.headers.push_back("Content-Length: 0");
    }
    return HttpFetch(request);
  }
  // A binary-extension request: the JSON, then `binary` after it.
  HttpResult PostBinary(const std::string& path, const std::string& json, const std::string& binary,
                        std::vector<std::string> headers = {}) {
    headers.push_back(absl::StrCat(kHeaderLength, ": ", json.size()));
    return Post(path, json + binary, std::move(headers));
  }

 private:
  std::string base_;
  TempDir dir_;
  int bodies_ = 0;
};

// The JSON part of an answer (all of it, or up to Inference-Header-Content-Length) and the
// binary part after it.
struct Answer {
  Json json;
  std::string binary;
};
Answer Split(const HttpResult& result) {
  Answer answer;
  std::string json = result.body;
  if (const std::string length = result.Header(kHeaderLength); !length.empty()) {
    const size_t n = std::stoul(length);
    answer.binary = result.body.substr(n);
    json = result.body.substr(0, n);
  }
  answer.json = Json::parse(json, nullptr, false);
  return answer;
}

std::string MlpJson(const std::vector<float>& x, bool nested, const std::string& id) {
  Json data = Json::array();
  for (float v : x) data.push_back(v);
  if (nested) data = Json::array({data});
  return Json{{"id", id},
              {"inputs",
               {{{"name", "input"}, {"shape", {1, kRestMlpIn}}, {"datatype", "FP32"}, {"data", data}}}}}
      .dump();
}

void ExpectNear(const Json& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_TRUE(got.is_array()) << what << ": " << got.dump();
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i].get<double>(), want[i], 1e-5 + 1e-5 * std::abs(want[i])) << what;
  }
}

std::unique_ptr<RunningDaemon> StartWithHttp(std::vector<std::string> flags, std::string* http,
                                             std::string* log) {
  flags.push_back("--http-listen=127.0.0.1:0");
  std::unique_ptr<RunningDaemon> daemon = StartDaemon(SimDaemonArgs(flags), log);
  if (daemon == nullptr) return nullptr;
  const std::optional<std::string> address =
      WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+) \\(");
  if (!address.has_value()) return nullptr;
  *http = *address;
  return daemon;
}

#define START_HTTP_DAEMON(var, rest, flags)                                             \
  std::string var##_log, var##_http;                                                    \
  std::unique_ptr<RunningDaemon> var = StartWithHttp((flags), &var##_http, &var##_log); \
  ASSERT_NE(var, nullptr) << var##_log;                                                 \
  Rest rest(var##_http)

// A W3C traceparent (HTTP header; gRPC metadata) reaches the request's access log line on every
// front end, a stream's on each of its requests; an invalid one (uppercase hex, an all-zero trace
// id, a stray character) is left out rather than copied into the log.
TEST(V2RestE2ETest, TraceparentJoinsTheAccessLogOnEveryFrontEnd) {
  TempDir dir;
  const std::string access_log = dir.Join("access.log");
  START_HTTP_DAEMON(daemon, rest, std::vector<std::string>{"--access-log=" + access_log});
  LoadIdentity(*daemon->stub, DataType::kInt64, {1, 2});
  if (HasFatalFailure()) return;
  const std::string model = ModelNameFor(DataType::kInt64);
  // One trace, a parent span per front end.
  const std::string trace = "0af7651916cd43dd8448eb211c80319c";
  const auto parent = [&](int n) {
    return absl::StrCat("00-", trace, "-b7ad6b71692033", n, "0-01");
  };

  const auto context_with = [](grpc::ClientContext& context, const std::string& traceparent) {
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    context.AddMetadata("traceparent", traceparent);
  };
  v1::InferRequest native;
  native.set_model(model);
  native.set_id("native-traced");
  auto* input = native.add_inputs();
  input->set_name("input");
  input->add_int64_data(1);
  input->add_int64_data(2);
  {
    grpc::ClientContext context;
    context_with(context, parent(1));
    v1::InferResponse response;
    ASSERT_TRUE(daemon->stub->Infer(&context, native, &response).ok());
  }
  auto v2 = inference::GRPCInferenceService::NewStub(daemon->channel);
  inference::ModelInferRequest request;
  request.set_model_name(model);
  request.set_id("v2-traced");
  auto* tensor = request.add_inputs();
  tensor->set_name("input");
  tensor->set_datatype("INT64");
  tensor->add_shape(1);
  tensor->add_shape(2);
  tensor->mutable_contents()->add_int64_contents(1);
  tensor->mutable_contents()->add_int64_contents(2);
  {
    grpc::ClientContext context;
    context_with(context, parent(2));
    inference::ModelInferResponse response;
    ASSERT_TRUE(v2->ModelInfer(&context, request, &response).ok());
  }
  {
    grpc::ClientContext context;
    context_with(context, parent(3));
    auto stream = v2->ModelStreamInfer(&context);
    for (const char* id : {"stream-traced-1", "stream-traced-2"}) {
      request.set_id(id);
      ASSERT_TRUE(stream->Write(request));
    }
    stream->WritesDone();
    inference::ModelStreamInferResponse answer;
    int answers = 0;
    while (stream->Read(&answer)) ++answers;
    EXPECT_EQ(answers, 2);
    ASSERT_TRUE(stream->Finish().ok());
  }
  const std::string body =
      Json{{"id", "rest-traced"},
           {"inputs",
            {{{"name", "input"}, {"shape", {1, 2}}, {"datatype", "INT64"}, {"data", {1, 2}}}}}}
          .dump();
  ASSERT_EQ(rest.Post("/v2/models/" + model + "/infer", body, {"traceparent: " + parent(4)}).status,
            200);
  // Not traceparents: each request is served, and its line has none.
  const std::vector<std::string> invalid = {
      absl::AsciiStrToUpper(parent(5)),                           // uppercase hex
      "00-00000000000000000000000000000000-b7ad6b7169203331-01",  // all-zero trace id
      parent(6) + " x",                                           // more after version 00
      "ff-" + trace + "-b7ad6b7169203331-01",                     // version ff
  };
  for (size_t i = 0; i < invalid.size(); ++i) {
    native.set_id(absl::StrCat("untraced-", i));
    grpc::ClientContext context;
    context_with(context, invalid[i]);
    v1::InferResponse response;
    ASSERT_TRUE(daemon->stub->Infer(&context, native, &response).ok()) << invalid[i];
  }

  std::string log;
  ASSERT_TRUE(WaitUntil(
      [&] {
        std::ifstream file(access_log);
        std::stringstream text;
        text << file.rdbuf();
        log = text.str();
        return absl::StrContains(log, "untraced-3") && absl::StrContains(log, "rest-traced");
      },
      absl::Seconds(10)))
      << log;
  const auto line_of = [&](const std::string& id) {
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);) {
      if (absl::StrContains(line, " id=" + id + " ")) return line;
    }
    return std::string();
  };
  EXPECT_THAT(line_of("native-traced"), HasSubstr(" traceparent=" + parent(1) + " "));
  EXPECT_THAT(line_of("v2-traced"), HasSubstr(" traceparent=" + parent(2) + " "));
  EXPECT_THAT(line_of("stream-traced-1"), HasSubstr(" traceparent=" + parent(3) + " "));
  EXPECT_THAT(line_of("stream-traced-2"), HasSubstr(" traceparent=" + parent(3) + " "));
  EXPECT_THAT(line_of("rest-traced"), HasSubstr(" traceparent=" + parent(4) + " "));
  for (size_t i = 0; i < invalid.size(); ++i) {
    const std::string line = line_of(absl::StrCat("untraced-", i));
    ASSERT_FALSE(line.empty()) << log;
    EXPECT_THAT(line, Not(HasSubstr("traceparent"))) << invalid[i];
  }
}

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

constexpr char kRestInferToken[] = "e2e-rest-infer-token-5a1c9d7e";
constexpr char kRestAdminToken[] = "e2e-rest-admin-token-8e2f4b6a";

TEST(V2RestE2ETest, TokensScopesTheRepositoryAndItsAuditLines) {
  TempDir dir;
  const std::string infer_file = dir.Write("infer", absl::StrCat("app:", kRestInferToken, "\n"));
  const std::string admin_file = dir.Write("admin", absl::StrCat("ops:", kRestAdminToken, "\n"));
  WriteFile(dir.Join("repo/id/model.neff"), EncodeNeff(IdentityModel({1, 4})));
  WriteFile(dir.Join("repo/id/config.pbtxt"), "name: \"id\"\nversion: \"3\"\n");
  const std::string audit_log = dir.Join("audit.log");
  START_HTTP_DAEMON(daemon, rest,
                    (std::vector<std::string>{
                        "--infer-token-file=" + infer_file, "--admin-token-file=" + admin_file,
                        "--audit-log=" + audit_log, "--model-repository=" + dir.Join("repo")}));
  const std::string infer = absl::StrCat("Authorization: Bearer ", kRestInferToken);
  const std::string admin = absl::StrCat("Authorization: Bearer ", kRestAdminToken);
  // Probes need no token.
  EXPECT_EQ(rest.Get("/v2/health/live").status, 200);
  EXPECT_EQ(rest.Get("/v2/health/ready").status, 200);
  EXPECT_EQ(rest.Get("/v2/models/id/ready").status, 400);  // not loaded yet
  // Metadata needs the infer scope.
  EXPECT_EQ(rest.Get("/v2").status, 401);
  EXPECT_EQ(rest.Get("/v2", {infer}).status, 200);
  // The repository needs admin.
  const HttpResult index_as_app = rest.Post("/v2/repository/index", "", {infer});
  EXPECT_EQ(index_as_app.status, 403);
  const HttpResult index = rest.Post("/v2/repository/index", "", {admin});
  ASSERT_EQ(index.status, 200) << index.body;
  EXPECT_EQ(
      Json::parse(index.body),
      Json::parse(R"([{"name":"id","version":"3","state":"UNAVAILABLE","reason":"not loaded"}])"));
  EXPECT_EQ(rest.Post("/v2/repository/models/id/load", "", {infer}).status, 403);
  // Bodies the repository calls cannot take: 400 naming what is wrong, audited.
  const struct {
    std::string path;
    std::string body;
    int status;
    std::string message;
  } refused[] = {
      {"/v2/repository/index", R"({"ready": "yes"})", 400,
       "RepositoryIndex: 'ready' must be true or false"},
      {"/v2/repository/index", "nope", 400, "RepositoryIndex: the body must be a JSON object"},
      {"/v2/repository/models/id/load", "nope", 400,
       "failed to load 'id': the body must be a JSON object"},
      {"/v2/repository/models/id/load", R"({"parameters": [1]})", 400,
       "failed to load 'id': 'parameters' must be an object"},
      {"/v2/repository/models/id/load", R"({"parameters": {"config": 5}})", 400,
       "failed to load 'id': parameter 'config' must be a string_param"},
      {"/v2/repository/models/id/load", R"({"parameters": {"config": {"version": "2"}}})", 400,
       "failed to load 'id': parameter 'config' must be a string, a boolean or an integer"},
      {"/v2/repository/models/id/load", R"({"parameters": {"file:1/model.neff": "AAAA"}})", 400,
       "failed to load 'id': the 1 file: parameters need a 'config' parameter"},
      {"/v2/repository/models/id/load", R"({"parameters": {"file:1/model.neff": "not base64!"}})",
       400,
       "failed to load 'id': parameter 'file:1/model.neff' must be a string holding the "
       "file's bytes in base64"},
      {"/v2/repository/models/nope/load", "", 404, "nope"},
  };
  for (const auto& c : refused) {
    const HttpResult result = rest.Post(c.path, c.body, {admin});
    EXPECT_EQ(result.status, c.status) << c.path << " " << c.body << ": " << result.body;
    EXPECT_THAT(result.ErrorField(), HasSubstr(c.message)) << c.body;
  }
  const HttpResult bad_config =
      rest.Post("/v2/repository/models/id/load",
                R"({"parameters":{"config":"{\"replicas\": \"x\"}"}})", {admin});
  EXPECT_EQ(bad_config.status, 400);
  EXPECT_THAT(bad_config.ErrorField(),
              HasSubstr("parameter 'config' is neither a neuronserve.v1.ModelConfig"));
  const HttpResult load = rest.Post("/v2/repository/models/id/load",
                                    R"({"parameters":{"config":"{\"version\": \"7\"}"}})", {admin});
  ASSERT_EQ(load.status, 200) << load.body;
  EXPECT_TRUE(WaitUntil([&] { return rest.Get("/v2/models/id/ready").status == 200; }));
  const HttpResult metadata = rest.Get("/v2/models/id", {infer});
  ASSERT_EQ(metadata.status, 200);
  EXPECT_EQ(Json::parse(metadata.body)["versions"], Json::array({"7"}));
  const std::string body =
      R"({"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}]})";
  EXPECT_EQ(rest.Post("/v2/models/id/infer", body).status, 401);
  EXPECT_EQ(rest.Post("/v2/models/id/infer", body, {infer}).status, 200);
  const HttpResult ready_index = rest.Post("/v2/repository/index", R"({"ready": true})", {admin});
  EXPECT_EQ(Json::parse(ready_index.body),
            Json::parse(R"([{"name":"id","version":"7","state":"READY"}])"));
  const HttpResult unload = rest.Post("/v2/repository/models/id/unload", "", {admin});
  EXPECT_EQ(unload.status, 200) << unload.body;
  EXPECT_TRUE(WaitUntil([&] { return rest.Get("/v2/models/id/ready").status == 400; }));
  std::string audit;
  EXPECT_TRUE(WaitUntil([&] {
    audit = ReadFileContents(audit_log);
    return absl::StrContains(audit, "rpc=RestRepositoryModelUnload");
  })) << audit;
  EXPECT_THAT(audit, HasSubstr("rpc=RestRepositoryModelLoad"));
  EXPECT_THAT(audit, HasSubstr("identity=ops model=id code=OK"));
  EXPECT_THAT(audit, HasSubstr("code=INVALID_ARGUMENT"));
  EXPECT_THAT(audit, HasSubstr("rpc=RestRepositoryIndex"));
  EXPECT_THAT(audit, Not(HasSubstr(kRestAdminToken)));
}

TEST(V2RestE2ETest, WithAnAdminListenerTheRepositoryRoutesAreRefusedNamingIt) {
  TempDir dir;
  const std::string socket = "unix:" + dir.Join("admin.sock");
  START_HTTP_DAEMON(daemon, rest, (std::vector<std::string>{"--admin-listen=" + socket}));
  for (const std::string path :
       {"/v2/repository/index", "/v2/repository/models/x/load", "/v2/repository/models/x/unload"}) {
    const HttpResult result = rest.Post(path, "");
    EXPECT_EQ(result.status, 403) << path;
    EXPECT_THAT(result.ErrorField(), HasSubstr("is served on the admin listener " + socket)) << path;
  }
}

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
