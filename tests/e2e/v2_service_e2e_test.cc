// The Open Inference Protocol's non-inference RPCs (inference.GRPCInferenceService, issue 18)
// through a real channel with stubs generated from the project's proto, against the real daemon
// on the simulator: the probes and the health they must equal at every moment (startup with a
// slow model, load, unload, drain), ServerMetadata and ModelMetadata, ModelStatistics against the
// requests the test sent, the repository extension (index, load with a JSON config, unload, each
// refusal), tokens (probes need none; metadata needs infer; the repository needs admin), the
// admin listener, and the audit lines of the repository calls.
#include <signal.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "neuron_serve_version.h"  // generated in the build tree (server/oip/CMakeLists.txt)
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/health_check.h"
#include "tests/support/http_get.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing {
namespace v2_service_e2e_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using HC = grpc::health::v1::HealthCheckResponse;
using V2Stub = inference::GRPCInferenceService::Stub;

constexpr char kV2InferToken[] = "v2-e2e-infer-token-7d1c0b2a99e8";
constexpr char kV2AdminToken[] = "v2-e2e-admin-token-3e4f5a6b7c8d";

// A v2 client on one channel, sending `token` (if any) as a bearer token on every call.
class V2Client {
 public:
  explicit V2Client(std::shared_ptr<grpc::Channel> channel, std::string token = "")
      : stub_(inference::GRPCInferenceService::NewStub(channel)), token_(std::move(token)) {}

  template <typename Request, typename Response>
  grpc::Status Call(grpc::Status (V2Stub::*method)(grpc::ClientContext*, const Request&, Response*),
                    const Request& request, Response* response) const {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(kRpcDeadlineSeconds));
    if (!token_.empty()) context.AddMetadata("authorization", absl::StrCat("Bearer ", token_));
    return (stub_.get()->*method)(&context, request, response);
  }

  // The probes' answers; nullopt when the call failed.
  std::optional<bool> ServerReady() const {
    inference::ServerReadyResponse response;
    if (!Call(&V2Stub::ServerReady, {}, &response).ok()) return std::nullopt;
    return response.ready();
  }
  std::optional<bool> ModelReady(const std::string& name, const std::string& version = "") const {
    inference::ModelReadyRequest request;
    request.set_name(name);
    request.set_version(version);
    inference::ModelReadyResponse response;
    if (!Call(&V2Stub::ModelReady, request, &response).ok()) return std::nullopt;
    return response.ready();
  }

  grpc::Status Statistics(const std::string& name, const std::string& version,
                          inference::ModelStatisticsResponse* response) const {
    inference::ModelStatisticsRequest request;
    request.set_name(name);
    request.set_version(version);
    return Call(&V2Stub::ModelStatistics, request, response);
  }

  grpc::Status Index(inference::RepositoryIndexResponse* response, bool ready = false,
                     const std::string& repository = "") const {
    inference::RepositoryIndexRequest request;
    request.set_ready(ready);
    request.set_repository_name(repository);
    return Call(&V2Stub::RepositoryIndex, request, response);
  }

  // RepositoryModelLoad of `model` with string parameters `parameters`.
  grpc::Status Load(const std::string& model,
                    const std::map<std::string, std::string>& parameters = {},
                    const std::string& repository = "") const {
    inference::RepositoryModelLoadRequest request;
    request.set_model_name(model);
    request.set_repository_name(repository);
    for (const auto& [key, value] : parameters) {
      (*request.mutable_parameters())[key].set_string_param(value);
    }
    inference::RepositoryModelLoadResponse response;
    return Call(&V2Stub::RepositoryModelLoad, request, &response);
  }

  grpc::Status Unload(const std::string& model, const std::string& repository = "") const {
    inference::RepositoryModelUnloadRequest request;
    request.set_model_name(model);
    request.set_repository_name(repository);
    inference::RepositoryModelUnloadResponse response;
    return Call(&V2Stub::RepositoryModelUnload, request, &response);
  }

 private:
  std::unique_ptr<V2Stub> stub_;
  std::string token_;
};

// "name:STATE" for each model of an index, in its order.
std::vector<std::string> IndexStates(const inference::RepositoryIndexResponse& index) {
  std::vector<std::string> states;
  for (const auto& model : index.models()) {
    states.push_back(absl::StrCat(model.name(), ":", model.state()));
  }
  return states;
}

const inference::RepositoryIndexResponse::ModelIndex* FindInIndex(
    const inference::RepositoryIndexResponse& index, const std::string& name) {
  for (const auto& model : index.models()) {
    if (model.name() == name) return &model;
  }
  return nullptr;
}

// A repository of the identity model "id" (float32 [1,4], version "3"), "other" (the same
// bytes, no config) and "broken" (a config.pbtxt that does not parse).
void WriteRepository(const TempDir& repo) {
  const std::string neff = EncodeNeff(IdentityModel({1, 4}));
  WriteFile(repo.Join("id/model.neff"), neff);
  WriteFile(repo.Join("id/config.pbtxt"), "name: \"id\"\nversion: \"3\"\n");
  WriteFile(repo.Join("other/model.neff"), neff);
  WriteFile(repo.Join("broken/model.neff"), neff);
  WriteFile(repo.Join("broken/config.pbtxt"), "this is { not a config");
}

v1::InferRequest IdentityRequest(const std::string& model, std::vector<uint32_t> shape = {1, 4}) {
  v1::InferRequest request;
  request.set_model(model);
  std::vector<float> values(shape.empty() ? 0 : shape[0] * shape[1], 1.5f);
  AddInput(request, "input", shape, values, TensorForm::kFloat);
  return request;
}

TEST(V2ServiceE2ETest, ProbesAndMetadataAnswerWithoutErrorsAndNameWhatIsWrong) {
  TempDir repo;
  WriteRepository(repo);
  START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repo.path(), "--load-models=id"}));
  const V2Client v2(daemon->channel);

  inference::ServerLiveResponse live;
  ASSERT_TRUE(v2.Call(&V2Stub::ServerLive, {}, &live).ok());
  EXPECT_TRUE(live.live());
  EXPECT_EQ(v2.ServerReady(), true);
  EXPECT_EQ(v2.ModelReady("id"), true);
  EXPECT_EQ(v2.ModelReady("id", "3"), true);
  // Only the serving version is ready; a model the daemon does not know is not ready, and that
  // is an answer, not an error (as Triton answers).
  EXPECT_EQ(v2.ModelReady("id", "9"), false);
  EXPECT_EQ(v2.ModelReady("nope"), false);
  inference::ModelReadyRequest unnamed;
  inference::ModelReadyResponse unnamed_response;
  const grpc::Status no_name = v2.Call(&V2Stub::ModelReady, unnamed, &unnamed_response);
  EXPECT_EQ(no_name.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(no_name.error_message(), HasSubstr("name is empty"));

  inference::ServerMetadataResponse server;
  ASSERT_TRUE(v2.Call(&V2Stub::ServerMetadata, {}, &server).ok());
  EXPECT_EQ(server.name(), "neuron-serve");
  EXPECT_EQ(server.version(), NEURON_SERVE_VERSION);
  EXPECT_THAT(server.extensions(), ElementsAre("model_repository", "schedule_policy", "statistics",
                                               "system_shared_memory"));

  inference::ModelMetadataRequest request;
  request.set_name("id");
  inference::ModelMetadataResponse metadata;
  ASSERT_TRUE(v2.Call(&V2Stub::ModelMetadata, request, &metadata).ok());
  EXPECT_EQ(metadata.name(), "id");
  EXPECT_THAT(metadata.versions(), ElementsAre("3"));
  EXPECT_EQ(metadata.platform(), "neuron");
  ASSERT_EQ(metadata.inputs_size(), 1);
  EXPECT_EQ(metadata.inputs(0).name(), "input");
  EXPECT_EQ(metadata.inputs(0).datatype(), "FP32");
  EXPECT_THAT(metadata.inputs(0).shape(), ElementsAre(1, 4));
  ASSERT_EQ(metadata.outputs_size(), 1);
  EXPECT_EQ(metadata.outputs(0).name(), "output");
  EXPECT_EQ(metadata.outputs(0).datatype(), "FP32");
  EXPECT_THAT(metadata.outputs(0).shape(), ElementsAre(1, 4));

  request.set_version("3");
  EXPECT_TRUE(v2.Call(&V2Stub::ModelMetadata, request, &metadata).ok());
  request.set_version("9");
  grpc::Status status = v2.Call(&V2Stub::ModelMetadata, request, &metadata);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(
      status.error_message(),
      HasSubstr("Request for unknown model: 'id' version 9 is not found (version '3' is serving)"));
  // Native Infer says the same of the same mismatch.
  v1::InferRequest native = IdentityRequest("id");
  native.set_version("9");
  const grpc::Status native_status = Infer(*daemon->stub, native, nullptr);
  EXPECT_EQ(native_status.error_code(), status.error_code());
  EXPECT_EQ(native_status.error_message(), status.error_message());

  request.set_name("nope");
  request.clear_version();
  status = v2.Call(&V2Stub::ModelMetadata, request, &metadata);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("Request for unknown model: 'nope' is not found"));
  request.clear_name();
  status = v2.Call(&V2Stub::ModelMetadata, request, &metadata);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("name is empty"));
}

// A ModelInfer of the identity model `model` (float32 [1,4]) naming `version`.
grpc::Status V2InferIdentity(const V2Client& v2, const std::string& model,
                             const std::string& version, inference::ModelInferResponse* response) {
  inference::ModelInferRequest request;
  request.set_model_name(model);
  request.set_model_version(version);
  inference::ModelInferRequest::InferInputTensor* input = request.add_inputs();
  input->set_name("input");
  input->set_datatype("FP32");
  input->add_shape(1);
  input->add_shape(4);
  for (int i = 0; i < 4; ++i) input->mutable_contents()->add_fp32_contents(0.5f * i);
  return v2.Call(&V2Stub::ModelInfer, request, response);
}

// Every version the v2 protocol reports is a decimal integer (issue 34, item 5): a model without
// a label is version 1, a free-form label gets its documented number, and a request reaches the
// version by its label or its number, over gRPC and REST.
TEST(V2ServiceE2ETest, VersionsAreDecimalAndARequestNamesEitherTheLabelOrTheNumber) {
  TempDir repo;
  const std::string neff = EncodeNeff(IdentityModel({1, 4}));
  WriteFile(repo.Join("plain/model.neff"), neff);
  WriteFile(repo.Join("dated/model.neff"), neff);
  WriteFile(repo.Join("dated/config.pbtxt"), "version: \"2024-06-01\"\n");
  // sha256("2024-06-01") starts 3b951b590318d747: 10^15 + that mod 8*10^15
  // (core/serving/model/version_number.h).
  const std::string dated = "6367888885634887";
  START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repo.path(), "--load-models=all",
                                      "--http-listen=127.0.0.1:0"}));
  const std::optional<std::string> http =
      WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+) \\(");
  ASSERT_TRUE(http.has_value()) << daemon->process->Stderr();
  const V2Client v2(daemon->channel);

  for (const auto& [model, number, label] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"plain", "1", ""}, {"dated", dated, "2024-06-01"}}) {
    SCOPED_TRACE(model);
    inference::ModelMetadataRequest request;
    request.set_name(model);
    inference::ModelMetadataResponse metadata;
    ASSERT_TRUE(v2.Call(&V2Stub::ModelMetadata, request, &metadata).ok());
    EXPECT_THAT(metadata.versions(), ElementsAre(number));

    std::vector<std::string> names = {"", number};
    if (!label.empty()) names.push_back(label);
    for (const std::string& version : names) {
      inference::ModelInferResponse answer;
      const grpc::Status status = V2InferIdentity(v2, model, version, &answer);
      ASSERT_TRUE(status.ok()) << version << ": " << status.error_message();
      EXPECT_EQ(answer.model_version(), number) << version;
      EXPECT_EQ(v2.ModelReady(model, version), true) << version;
      request.set_version(version);
      EXPECT_TRUE(v2.Call(&V2Stub::ModelMetadata, request, &metadata).ok()) << version;
    }
    inference::ModelInferResponse answer;
    const grpc::Status other = V2InferIdentity(v2, model, "7", &answer);
    EXPECT_EQ(other.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_THAT(other.error_message(),
                HasSubstr(label.empty() ? "version 7 is not found (version 1 (no label) is serving)"
                                        : "version 7 is not found (version '2024-06-01' (number " +
                                              dated + ") is serving)"));
    EXPECT_EQ(v2.ModelReady(model, "7"), false);

    inference::ModelStatisticsResponse statistics;
    ASSERT_TRUE(v2.Statistics(model, number, &statistics).ok());
    ASSERT_EQ(statistics.model_stats_size(), 1);
    EXPECT_EQ(statistics.model_stats(0).version(), number);

    // REST: the metadata's versions, the statistics and an inference's model_version.
    const HttpResult rest =
        HttpGet(absl::StrCat("http://", *http, "/v2/models/", model, "/versions/", number));
    EXPECT_EQ(rest.status, 200) << rest.body;
    EXPECT_THAT(rest.body, HasSubstr(absl::StrCat("\"versions\":[\"", number, "\"]")));
    const HttpResult stats =
        HttpGet(absl::StrCat("http://", *http, "/v2/models/", model, "/stats"));
    EXPECT_THAT(stats.body, HasSubstr(absl::StrCat("\"version\":\"", number, "\"")));
  }

  inference::RepositoryIndexResponse index;
  ASSERT_TRUE(v2.Index(&index).ok());
  ASSERT_NE(FindInIndex(index, "plain"), nullptr);
  EXPECT_EQ(FindInIndex(index, "plain")->version(), "1");
  ASSERT_NE(FindInIndex(index, "dated"), nullptr);
  EXPECT_EQ(FindInIndex(index, "dated")->version(), dated);
}

TEST(V2ServiceE2ETest, ModelStatisticsCountTheRequestsSentByOutcome) {
  TempDir repo;
  WriteRepository(repo);
  // Copies the simulator charges for: each 16-byte write and read takes 1 ms, so the device
  // time's parts can be told apart.
  START_DAEMON(daemon,
               SimDaemonArgs({"--model-repository=" + repo.path(), "--load-models=id,other"},
                             {{"NRTSIM_DMA_BYTES_PER_SECOND", "16000"}}));
  const V2Client v2(daemon->channel);

  inference::ModelStatisticsResponse before;
  ASSERT_TRUE(v2.Statistics("id", "", &before).ok());
  ASSERT_EQ(before.model_stats_size(), 1);
  EXPECT_EQ(before.model_stats(0).last_inference(), 0u);
  EXPECT_EQ(before.model_stats(0).inference_count(), 0u);

  const int64_t start_ms = absl::ToUnixMillis(absl::Now());
  constexpr int kGood = 5;
  constexpr int kBad = 3;
  for (int i = 0; i < kGood; ++i) {
    ASSERT_TRUE(Infer(*daemon->stub, IdentityRequest("id"), nullptr).ok());
  }
  for (int i = 0; i < kBad; ++i) {  // a wrong shape: refused before the device
    EXPECT_EQ(Infer(*daemon->stub, IdentityRequest("id", {2, 4}), nullptr).error_code(),
              grpc::StatusCode::INVALID_ARGUMENT);
  }
  const int64_t end_ms = absl::ToUnixMillis(absl::Now());

  inference::ModelStatisticsResponse response;
  ASSERT_TRUE(v2.Statistics("id", "", &response).ok());
  ASSERT_EQ(response.model_stats_size(), 1);
  const inference::ModelStatistics& stats = response.model_stats(0);
  EXPECT_EQ(stats.name(), "id");
  EXPECT_EQ(stats.version(), "3");
  EXPECT_EQ(stats.inference_count(), uint64_t{kGood});
  EXPECT_EQ(stats.execution_count(), uint64_t{kGood});
  EXPECT_GE(stats.last_inference(), static_cast<uint64_t>(start_ms));
  EXPECT_LE(stats.last_inference(), static_cast<uint64_t>(end_ms));
  const inference::InferStatistics& infer = stats.inference_stats();
  EXPECT_EQ(infer.success().count(), uint64_t{kGood});
  EXPECT_EQ(infer.fail().count(), uint64_t{kBad});
  EXPECT_GT(infer.success().ns(), 0u);
  EXPECT_GT(infer.fail().ns(), 0u);
  EXPECT_EQ(infer.queue().count(), uint64_t{kGood});
  // The device time in Triton's three parts, one count each (perf_analyzer requires them
  // equal): the writes, the execution, the reads.
  EXPECT_EQ(infer.compute_input().count(), uint64_t{kGood});
  EXPECT_EQ(infer.compute_infer().count(), uint64_t{kGood});
  EXPECT_EQ(infer.compute_output().count(), uint64_t{kGood});
  EXPECT_GE(infer.compute_input().ns(), uint64_t{kGood} * 900'000) << "1 ms per write";
  EXPECT_GE(infer.compute_output().ns(), uint64_t{kGood} * 900'000) << "1 ms per read";
  EXPECT_GT(infer.compute_infer().ns(), 0u);
  EXPECT_LT(infer.compute_infer().ns(), infer.compute_input().ns()) << "an identity's execution";
  // Parts of the whole: queue and device time fit in the successful requests' total.
  EXPECT_LE(infer.queue().ns() + infer.compute_input().ns() + infer.compute_infer().ns() +
                infer.compute_output().ns(),
            infer.success().ns());

  // The version asked for; every model (the other one untouched).
  ASSERT_TRUE(v2.Statistics("id", "3", &response).ok());
  EXPECT_EQ(response.model_stats(0).inference_count(), uint64_t{kGood});
  inference::ModelStatisticsResponse all;
  ASSERT_TRUE(v2.Statistics("", "", &all).ok());
  ASSERT_EQ(all.model_stats_size(), 2);
  EXPECT_EQ(all.model_stats(0).name(), "id");
  EXPECT_EQ(all.model_stats(0).inference_stats().fail().count(), uint64_t{kBad});
  EXPECT_EQ(all.model_stats(1).name(), "other");
  EXPECT_EQ(all.model_stats(1).inference_count(), 0u);

  grpc::Status status = v2.Statistics("nope", "", &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("Request for unknown model: 'nope' is not found"));
  status = v2.Statistics("id", "9", &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(
      status.error_message(),
      HasSubstr("Request for unknown model: 'id' version 9 is not found (version '3' is serving)"));
}

TEST(V2ServiceE2ETest, RepositoryIndexLoadAndUnload) {
  TempDir repo;
  WriteRepository(repo);
  WriteFile(repo.Join("garbage/model.neff"), GarbageNeff());
  START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repo.path()}));
  const V2Client v2(daemon->channel);

  inference::RepositoryIndexResponse index;
  ASSERT_TRUE(v2.Index(&index).ok());
  EXPECT_THAT(IndexStates(index), ElementsAre("broken:UNAVAILABLE", "garbage:UNAVAILABLE",
                                              "id:UNAVAILABLE", "other:UNAVAILABLE"));
  EXPECT_EQ(FindInIndex(index, "id")->reason(), "not loaded");
  EXPECT_EQ(FindInIndex(index, "id")->version(), "3");
  EXPECT_THAT(FindInIndex(index, "broken")->reason(), HasSubstr("config.pbtxt"));
  ASSERT_TRUE(v2.Index(&index, /*ready=*/true).ok());
  EXPECT_EQ(index.models_size(), 0);

  // A load with a JSON config over config.pbtxt: the call ends when the model is READY.
  ASSERT_TRUE(v2.Load("id", {{"config", R"({"version": "7", "maxQueue": 8})"}}).ok());
  EXPECT_EQ(v2.ModelReady("id", "7"), true);
  v1::ModelStatus status_native;
  ASSERT_TRUE(GetModel(*daemon->stub, "id", &status_native).ok());
  EXPECT_EQ(status_native.state(), v1::MODEL_STATE_READY);
  EXPECT_EQ(status_native.version(), "7");
  EXPECT_EQ(status_native.source(), "repository");
  ASSERT_TRUE(v2.Index(&index, /*ready=*/true,
                       /*repository=*/repo.path().substr(repo.path().find_last_of('/') + 1))
                  .ok());
  EXPECT_THAT(IndexStates(index), ElementsAre("id:READY"));
  EXPECT_EQ(index.models(0).version(), "7");

  // A load that fails ends with the load's error, and the index says why.
  grpc::Status status = v2.Load("garbage");
  EXPECT_NE(status.error_code(), grpc::StatusCode::OK);
  ASSERT_TRUE(v2.Index(&index).ok());
  ASSERT_NE(FindInIndex(index, "garbage"), nullptr);
  EXPECT_EQ(FindInIndex(index, "garbage")->state(), "UNAVAILABLE");
  // The index gives the reason; the load's answer puts Triton's words before it.
  EXPECT_EQ("failed to load 'garbage': " + FindInIndex(index, "garbage")->reason(),
            status.error_message());

  // Refusals, each naming what is wrong.
  status = v2.Load("other", {{"config", "{not json"}});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("parameter 'config'"));
  status = v2.Load("other", {{"config", R"({"bogusField": 1})"}});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("bogusField"));
  // A file's bytes in a string_param (uploads: python/triton_model_control_test.py).
  status = v2.Load("other", {{"file:1/model.neff", "bytes"}});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr("failed to load 'other': parameter 'file:1/model.neff' must be a "
                        "bytes_param"));
  status = v2.Load("other", {{"priority", "high"}});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("unknown parameter 'priority'"));
  status = v2.Load("missing");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("missing"));
  status = v2.Load("", {});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("model_name is empty"));
  status = v2.Load("other", {}, "elsewhere");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("repository 'elsewhere' not found"));
  status = v2.Index(&index, false, "elsewhere");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("repository 'elsewhere' not found"));
  EXPECT_EQ(v2.ModelReady("other"), false);  // no refused load loaded anything

  // Unload: the call ends when the model is gone.
  ASSERT_TRUE(v2.Unload("id").ok());
  EXPECT_EQ(v2.ModelReady("id"), false);
  EXPECT_EQ(GetModel(*daemon->stub, "id", &status_native).error_code(),
            grpc::StatusCode::NOT_FOUND);
  ASSERT_TRUE(v2.Index(&index).ok());
  EXPECT_EQ(FindInIndex(index, "id")->state(), "UNAVAILABLE");
  status = v2.Unload("id");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("Request for unknown model: 'id' is not found"));
}

TEST(V2ServiceE2ETest, RepositoryLoadsNeedARepositoryAndRespectMaxModels) {
  {
    START_DAEMON(bare, SimDaemonArgs());
    const grpc::Status status = V2Client(bare->channel).Load("id");
    EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_THAT(status.error_message(), HasSubstr("--model-repository"));
  }
  TempDir repo;
  WriteRepository(repo);
  START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repo.path(), "--max-models=1"}));
  const V2Client v2(daemon->channel);
  ASSERT_TRUE(v2.Load("id").ok());
  const grpc::Status status = v2.Load("other");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("--max-models=1"));
}

// ServerReady equals grpc.health.v1 "" and REST's /v2/health/ready, and ModelReady equals the
// model's service and /v2/models/{name}/ready (200 ready, 400 not): polled with a deadline
// until all say `expected` (each flip is published to all from one report).
bool AllSay(const V2Client& v2, const std::shared_ptr<grpc::Channel>& channel,
            const std::string& http, const std::string& model, bool expected) {
  const int health_status = expected ? HC::SERVING : HC::NOT_SERVING;
  const int http_status = expected ? 200 : 400;
  return WaitUntil([&] {
    if (model.empty()) {
      return v2.ServerReady() == expected && HealthCheck(channel, "") == health_status &&
             HttpGet(absl::StrCat("http://", http, "/v2/health/ready")).status == http_status;
    }
    const int model_health = HealthCheck(channel, model);
    // A model health has never heard of is SERVICE_UNKNOWN (the Check fails): not serving.
    const bool health_serving = model_health == HC::SERVING;
    return v2.ModelReady(model) == expected && health_serving == expected &&
           HttpGet(absl::StrCat("http://", http, "/v2/models/", model, "/ready")).status ==
               http_status;
  });
}

TEST(V2ServiceE2ETest, ReadinessEqualsGrpcHealthAndRestThroughStartupLoadUnloadAndDrain) {
  TempDir repo;
  simmodel::SimModel slow = IdentityModel({1, 4}, /*latency_us=*/3'000'000);
  slow.load_latency_ms = 1500;
  WriteFile(repo.Join("slow/model.neff"), EncodeNeff(slow));
  WriteFile(repo.Join("fast/model.neff"), EncodeNeff(IdentityModel({1, 4})));
  DaemonProcess process(SimDaemonArgs({"--model-repository=" + repo.path(), "--load-models=slow",
                                       "--drain-timeout=20s", "--http-listen=127.0.0.1:0"}));
  const std::optional<std::string> address = WaitForLog(process, "gRPC bound to ([^;]+);");
  ASSERT_TRUE(address.has_value()) << process.Stderr();
  const std::optional<std::string> http = WaitForLog(process, "HTTP endpoint on ([^ ]+) \\(");
  ASSERT_TRUE(http.has_value()) << process.Stderr();
  auto channel = grpc::CreateChannel(*address, grpc::InsecureChannelCredentials());
  const V2Client v2(channel);

  // Startup: the slow model still loading; both say not ready, for the server and the model.
  EXPECT_TRUE(AllSay(v2, channel, *http, "", false));
  EXPECT_TRUE(AllSay(v2, channel, *http, "slow", false));
  inference::ServerLiveResponse live;
  ASSERT_TRUE(v2.Call(&V2Stub::ServerLive, {}, &live).ok());
  EXPECT_TRUE(live.live());
  ASSERT_TRUE(process.WaitUntilListening(absl::Seconds(30)).has_value()) << process.Stderr();
  EXPECT_TRUE(AllSay(v2, channel, *http, "", true));
  EXPECT_TRUE(AllSay(v2, channel, *http, "slow", true));

  // A load, then an unload.
  EXPECT_TRUE(AllSay(v2, channel, *http, "fast", false));
  ASSERT_TRUE(v2.Load("fast").ok());
  EXPECT_TRUE(AllSay(v2, channel, *http, "fast", true));
  ASSERT_TRUE(v2.Unload("fast").ok());
  EXPECT_TRUE(AllSay(v2, channel, *http, "fast", false));

  // Drain: one request of 3 s keeps the daemon draining while the test looks.
  auto stub = v1::NeuronServing::NewStub(channel);
  std::thread in_flight([&] { (void)Infer(*stub, IdentityRequest("slow"), nullptr); });
  ASSERT_TRUE(WaitUntilInFlight(process, 1));
  ASSERT_EQ(kill(process.pid(), SIGTERM), 0);
  EXPECT_TRUE(AllSay(v2, channel, *http, "", false));
  EXPECT_TRUE(AllSay(v2, channel, *http, "slow", false));
  EXPECT_TRUE(WaitForLog(process, "draining: ([0-9]+) infer").has_value()) << process.Stderr();
  in_flight.join();
  EXPECT_EQ(process.WaitForExit(absl::Seconds(20)), 0);
}

TEST(V2ServiceE2ETest, ProbesNeedNoTokenMetadataNeedsInferAndTheRepositoryNeedsAdmin) {
  TempDir dir;
  TempDir repo;
  WriteRepository(repo);
  const std::string infer_file = dir.Write("infer-tokens", absl::StrCat("app:", kV2InferToken, "\n"));
  const std::string admin_file = dir.Write("admin-tokens", absl::StrCat("ops:", kV2AdminToken, "\n"));
  START_DAEMON(
      daemon, SimDaemonArgs({"--model-repository=" + repo.path(), "--load-models=id",
                             "--infer-token-file=" + infer_file, "--admin-token-file=" + admin_file,
                             "--audit-log=" + dir.Join("audit.log")}));
  const V2Client anonymous(daemon->channel);
  const V2Client reader(daemon->channel, kV2InferToken);
  const V2Client admin(daemon->channel, kV2AdminToken);
  const V2Client stranger(daemon->channel, "v2-e2e-unknown-token-000000000000");

  // Probes: no token needed.
  inference::ServerLiveResponse live;
  EXPECT_TRUE(anonymous.Call(&V2Stub::ServerLive, {}, &live).ok());
  EXPECT_EQ(anonymous.ServerReady(), true);
  EXPECT_EQ(anonymous.ModelReady("id"), true);

  // Infer scope: metadata and statistics.
  inference::ServerMetadataResponse server;
  grpc::Status status = anonymous.Call(&V2Stub::ServerMetadata, {}, &server);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(),
              HasSubstr("ServerMetadata needs a bearer token with the infer scope"));
  status = stranger.Call(&V2Stub::ServerMetadata, {}, &server);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("ServerMetadata: unknown token"));
  EXPECT_TRUE(reader.Call(&V2Stub::ServerMetadata, {}, &server).ok());
  EXPECT_TRUE(admin.Call(&V2Stub::ServerMetadata, {}, &server).ok());
  inference::ModelMetadataRequest metadata_request;
  metadata_request.set_name("id");
  inference::ModelMetadataResponse metadata;
  EXPECT_EQ(anonymous.Call(&V2Stub::ModelMetadata, metadata_request, &metadata).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(reader.Call(&V2Stub::ModelMetadata, metadata_request, &metadata).ok());
  inference::ModelStatisticsResponse stats;
  EXPECT_EQ(anonymous.Statistics("id", "", &stats).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(reader.Statistics("id", "", &stats).ok());

  // Admin scope: the repository.
  inference::RepositoryIndexResponse index;
  status = reader.Index(&index);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(status.error_message(), HasSubstr("RepositoryIndex"));
  EXPECT_THAT(status.error_message(), HasSubstr("admin"));
  EXPECT_EQ(anonymous.Index(&index).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(admin.Index(&index).ok());
  status = reader.Load("other");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(status.error_message(), HasSubstr("RepositoryModelLoad"));
  EXPECT_EQ(reader.Unload("id").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(admin.Load("other").ok());
  EXPECT_EQ(admin.Load("missing").error_code(), grpc::StatusCode::NOT_FOUND);
  ASSERT_TRUE(admin.Unload("other").ok());

  // The audit log: each repository call with its caller and outcome, and the refusals.
  // Every line awaited (not only the last call's): nothing promises the lines of different
  // calls reach the file in the order the calls were answered.
  std::string audit;
  EXPECT_TRUE(WaitUntil([&] {
    audit = ReadFileContents(dir.Join("audit.log"));
    for (const char* line :
         {"rpc=RepositoryModelUnload", "identity=ops model=other code=OK",
          "rpc=RepositoryModelLoad", "rpc=RepositoryIndex", "identity=ops model=missing code=NOT_FOUND",
          "identity=app model=other code=PERMISSION_DENIED", "rpc=ServerMetadata"}) {
      if (!absl::StrContains(audit, line)) return false;
    }
    return true;
  })) << audit;
  EXPECT_THAT(audit, HasSubstr("rpc=RepositoryModelLoad"));
  EXPECT_THAT(audit, HasSubstr("rpc=RepositoryIndex"));
  EXPECT_THAT(audit, HasSubstr("identity=ops model=missing code=NOT_FOUND"));
  EXPECT_THAT(audit, HasSubstr("identity=app model=other code=PERMISSION_DENIED"));
  EXPECT_THAT(audit, HasSubstr("rpc=ServerMetadata"));
  EXPECT_THAT(audit, ::testing::Not(HasSubstr("rpc=ServerReady")));
  EXPECT_THAT(audit, ::testing::Not(HasSubstr(kV2AdminToken)));
}

TEST(V2ServiceE2ETest, WithAnAdminListenerTheRepositoryIsServedThereOnly) {
  TempDir dir;
  TempDir repo;
  WriteRepository(repo);
  const std::string socket = dir.Join("admin.sock");
  START_DAEMON(daemon, SimDaemonArgs(
                           {"--model-repository=" + repo.path(), "--admin-listen=unix:" + socket}));
  const V2Client main_port(daemon->channel);
  const V2Client admin_port(
      grpc::CreateChannel("unix:" + socket, grpc::InsecureChannelCredentials()));

  grpc::Status status = main_port.Load("id");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(status.error_message(), HasSubstr("admin listener unix:" + socket));
  inference::RepositoryIndexResponse index;
  status = main_port.Index(&index);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(status.error_message(), HasSubstr("unix:" + socket));
  EXPECT_EQ(main_port.Unload("id").error_code(), grpc::StatusCode::PERMISSION_DENIED);

  ASSERT_TRUE(admin_port.Load("id").ok());
  ASSERT_TRUE(admin_port.Index(&index, /*ready=*/true).ok());
  EXPECT_THAT(IndexStates(index), ElementsAre("id:READY"));
  // The rest stays on the main port (and is also on the admin listener).
  EXPECT_EQ(main_port.ModelReady("id"), true);
  EXPECT_EQ(admin_port.ServerReady(), true);
  inference::ModelStatisticsResponse stats;
  EXPECT_TRUE(main_port.Statistics("id", "", &stats).ok());
  ASSERT_TRUE(admin_port.Unload("id").ok());
  EXPECT_EQ(main_port.ModelReady("id"), false);
}

}  // namespace
}  // namespace v2_service_e2e_test
}  // namespace neuronserve::testing
