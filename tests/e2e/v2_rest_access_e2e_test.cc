// Who calls the REST endpoint and how it is traced: a W3C traceparent in every front end's access
// log, bearer tokens and their scopes, the repository calls with their audit lines, and the
// repository routes refused on the main port with --admin-listen.
#include <chrono>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
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

namespace neuronserve::testing {
namespace v2_rest_e2e_test {
namespace {

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

}  // namespace
}  // namespace v2_rest_e2e_test
}  // namespace neuronserve::testing
