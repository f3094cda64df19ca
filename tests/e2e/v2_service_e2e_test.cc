// The Open Inference Protocol's non-inference RPCs (inference.GRPCInferenceService, issue 18)
// through a real channel with stubs generated from the project's proto, against the real daemon
// on the simulator: the probes and the health they must equal at every moment (startup with a
// slow model, load, unload, drain), ServerMetadata and ModelMetadata, versions, and
// ModelStatistics against the requests the test sent. The repository extension, tokens and the
// admin listener: v2_service_repository_e2e_test.cc.
#include <signal.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

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
#include "tests/e2e/v2_service_client.h"
#include "tests/support/health_check.h"
#include "tests/support/http_get.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing {
namespace v2_service_e2e_test {
namespace {

using HC = grpc::health::v1::HealthCheckResponse;

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

}  // namespace
}  // namespace v2_service_e2e_test
}  // namespace neuronserve::testing
