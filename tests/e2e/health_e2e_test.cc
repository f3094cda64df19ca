// gRPC health (Check and Watch) and the HTTP probes through the real daemon: "" through a slow
// startup load, a model's own service through load, replacement, unload and a hardware fault,
// and the watchdog's liveness when an execution is stuck past --execution-timeout.
#include <signal.h>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/prometheus/prometheus_text_parser.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace health_e2e_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using HC = grpc::health::v1::HealthCheckResponse;

constexpr char kLiveness[] = "neuronserve/liveness";

v1::InferRequest IdentityRequest(const std::string& model) {
  v1::InferRequest request;
  request.set_model(model);
  AddInput(request, "input", {1, 4}, {1, 2, 3, 4}, TensorForm::kFloat);
  return request;
}

TEST(HealthE2ETest, StartupIsNotServingUntilTheSlowModelIsReady) {
  TempDir repo;
  simmodel::SimModel slow = IdentityModel({1, 4});
  slow.load_latency_ms = 1500;
  WriteFile(repo.Join("slow/model.neff"), EncodeNeff(slow));
  WriteFile(repo.Join("slow/config.pbtxt"), "name: \"slow\"\n");
  DaemonProcess daemon(SimDaemonArgs({"--model-repository=" + repo.path(), "--load-models=all",
                                      "--http-listen=127.0.0.1:0"}));
  const std::optional<std::string> http = WaitForLog(daemon, "HTTP endpoint on ([^ ]+)");
  const std::optional<std::string> grpc_address = WaitForLog(daemon, "gRPC bound to ([^;]+);");
  ASSERT_TRUE(http.has_value() && grpc_address.has_value()) << daemon.Stderr();
  auto channel = grpc::CreateChannel(*grpc_address, grpc::InsecureChannelCredentials());
  HealthWatch overall(channel, "");
  HealthWatch model(channel, "slow");

  // While the model loads: not serving, over gRPC and HTTP; alive all the same.
  EXPECT_EQ(HealthCheck(channel, ""), HC::NOT_SERVING);
  EXPECT_EQ(HttpGet("http://" + *http + "/readyz").status, 503);
  const HttpResult readyz = HttpGet("http://" + *http + "/readyz");
  EXPECT_THAT(readyz.body, HasSubstr("startup models are still loading"));
  EXPECT_EQ(HttpGet("http://" + *http + "/livez").status, 200);
  EXPECT_EQ(HealthCheck(channel, kLiveness), HC::SERVING);
  EXPECT_NE(HealthCheck(channel, "slow"), HC::SERVING);

  ASSERT_TRUE(daemon.WaitUntilListening(absl::Seconds(30)).has_value()) << daemon.Stderr();
  EXPECT_TRUE(overall.WaitForLatest(HC::SERVING)) << Describe(overall.Received());
  EXPECT_TRUE(model.WaitForLatest(HC::SERVING)) << Describe(model.Received());
  EXPECT_EQ(HealthCheck(channel, ""), HC::SERVING);
  EXPECT_EQ(HealthCheck(channel, "slow"), HC::SERVING);
  EXPECT_EQ(HttpGet("http://" + *http + "/readyz").status, 200);
  // Watch saw each change: NOT_SERVING first, then SERVING, nothing in between.
  EXPECT_THAT(overall.Received(), ElementsAre(HC::NOT_SERVING, HC::SERVING))
      << Describe(overall.Received());
  // The model's service: unknown or NOT_SERVING while loading, then SERVING.
  const std::vector<HealthStatus> statuses = model.Received();
  ASSERT_GE(statuses.size(), 2u) << Describe(statuses);
  EXPECT_EQ(statuses.back(), HC::SERVING);
  EXPECT_EQ(statuses[statuses.size() - 2], HC::NOT_SERVING) << Describe(statuses);
}

TEST(HealthE2ETest, AModelsServiceFollowsLoadReplacementUnloadAndAHardwareFault) {
  START_DAEMON(daemon, SimDaemonArgs({"--http-listen=127.0.0.1:0"}));
  HealthWatch watch(daemon->channel, "m");
  HealthWatch overall(daemon->channel, "");
  ASSERT_TRUE(watch.WaitForLatest(HC::SERVICE_UNKNOWN)) << Describe(watch.Received());
  EXPECT_EQ(HealthCheck(daemon->channel, "m"), -1);  // NOT_FOUND: no such service yet

  // Load: LOADING (NOT_SERVING) while nrt_load takes its 300 ms, then SERVING.
  simmodel::SimModel model = IdentityModel({1, 4});
  model.load_latency_ms = 300;
  v1::ModelConfig config = Config("m", "1");
  config.add_start_cores(0);
  config.add_start_cores(1);
  ASSERT_TRUE(Upload(*daemon->stub, config, EncodeNeff(model)).status.ok());
  EXPECT_EQ(HealthCheck(daemon->channel, "m"), HC::SERVING);  // set before Upload answered
  EXPECT_TRUE(watch.WaitForLatest(HC::SERVING)) << Describe(watch.Received());
  EXPECT_THAT(watch.Received(), ElementsAre(HC::SERVICE_UNKNOWN, HC::NOT_SERVING, HC::SERVING))
      << Describe(watch.Received());

  // Replacement: the old version serves until the new one is READY, so no change at all.
  config.set_version("2");
  ASSERT_TRUE(Upload(*daemon->stub, config, EncodeNeff(model)).status.ok());
  EXPECT_EQ(HealthCheck(daemon->channel, "m"), HC::SERVING);
  EXPECT_THAT(watch.Received(), ElementsAre(HC::SERVICE_UNKNOWN, HC::NOT_SERVING, HC::SERVING))
      << Describe(watch.Received());

  // Unload: NOT_SERVING.
  ASSERT_TRUE(UnloadModel(*daemon->stub, "m", nullptr).ok());
  EXPECT_TRUE(watch.WaitForLatest(HC::NOT_SERVING)) << Describe(watch.Received());
  EXPECT_EQ(HealthCheck(daemon->channel, "m"), HC::NOT_SERVING);
  // A late flip during the replacement (a status published before the unload's, but not yet
  // delivered when the Watch was read above) would have arrived before the unload's NOT_SERVING,
  // which comes on the same stream: the stream holds the unload's change and nothing else.
  // (The old version was retired on the registry's one thread before the unload ran there.)
  EXPECT_THAT(watch.Received(), ElementsAre(HC::SERVICE_UNKNOWN, HC::NOT_SERVING, HC::SERVING,
                                            HC::NOT_SERVING))
      << Describe(watch.Received());

  // A hardware fault on one of two replicas: the model keeps serving on the other.
  // (The copy on core 1 fails every execution in hardware; 2 ms each keeps both busy.)
  const std::string faulty =
      FaultyIdentityNeff(R"([{"every": 1, "status": "NRT_HW_ERROR", "core": 1}])");
  config.set_version("3");
  ASSERT_TRUE(Upload(*daemon->stub, config, faulty).status.ok());
  ASSERT_TRUE(watch.WaitForLatest(HC::SERVING)) << Describe(watch.Received());
  const size_t statuses_before_fault = watch.Received().size();
  std::vector<v1::InferRequest> burst(64, IdentityRequest("m"));
  grpc::Status stream_status;
  RunStream(*daemon->stub, burst, &stream_status);
  ASSERT_TRUE(stream_status.ok()) << stream_status.error_message();
  ASSERT_TRUE(WaitForLog(*daemon->process, "taking core 1 out of rotation").has_value())
      << daemon->process->Stderr();
  // The core left rotation, and health was re-evaluated, before the failed request was retried
  // and answered: these are the statuses after the fault. (That no late flip follows, the Watch
  // streams say below, at the next change of each service.)
  EXPECT_EQ(HealthCheck(daemon->channel, "m"), HC::SERVING);
  EXPECT_EQ(HealthCheck(daemon->channel, ""), HC::SERVING);  // core 0 is still healthy
  // The metrics say so too: one hardware error on core 1, which is out of rotation.
  const std::optional<std::string> http = WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+)");
  ASSERT_TRUE(http.has_value());
  absl::StatusOr<std::vector<PromFamily>> metrics =
      ParsePrometheusText(HttpGet("http://" + *http + "/metrics").body + "\n");
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_EQ(FindSample(*metrics, "neuronserve_nrt_errors_total",
                       {{"core", "1"}, {"status", "NRT_HW_ERROR"}})
                .value_or(-1),
            1);
  EXPECT_EQ(FindSample(*metrics, "neuronserve_core_healthy", {{"core", "1"}}).value_or(-1), 0);
  EXPECT_EQ(FindSample(*metrics, "neuronserve_core_healthy", {{"core", "0"}}).value_or(-1), 1);

  // A model whose only replica is on the failed core has no healthy replica: NOT_SERVING,
  // while the daemon goes on (core 0 is healthy).
  ASSERT_TRUE(UnloadModel(*daemon->stub, "m", nullptr).ok());
  // The model's service did not flip after the fault: its next status is the unload's.
  EXPECT_TRUE(watch.WaitForLatest(HC::NOT_SERVING)) << Describe(watch.Received());
  EXPECT_EQ(watch.Received().size(), statuses_before_fault + 1) << Describe(watch.Received());
  v1::ModelConfig lone = Config("lone");
  lone.add_start_cores(1);
  HealthWatch lone_watch(daemon->channel, "lone");
  ASSERT_TRUE(Upload(*daemon->stub, lone, EncodeNeff(IdentityModel({1, 4}))).status.ok());
  EXPECT_TRUE(lone_watch.WaitForLatest(HC::NOT_SERVING)) << Describe(lone_watch.Received());
  EXPECT_EQ(HealthCheck(daemon->channel, "lone"), HC::NOT_SERVING);
  EXPECT_EQ(HealthCheck(daemon->channel, ""), HC::SERVING);
  EXPECT_THAT(overall.Received(), ElementsAre(HC::SERVING)) << Describe(overall.Received());
  // And "" never flipped: a status published before now arrives before the drain's
  // NOT_SERVING, the next change of "" (the shutdown may repeat NOT_SERVING after it).
  ASSERT_EQ(kill(daemon->process->pid(), SIGTERM), 0);
  EXPECT_TRUE(overall.WaitForLatest(HC::NOT_SERVING)) << Describe(overall.Received());
  const std::vector<HealthStatus> drained = overall.Received();
  ASSERT_GE(drained.size(), 2u) << Describe(drained);
  EXPECT_EQ(drained[0], HC::SERVING) << Describe(drained);
  for (size_t i = 1; i < drained.size(); ++i) {
    EXPECT_EQ(drained[i], HC::NOT_SERVING) << Describe(drained);
  }
}

TEST(HealthE2ETest, TheWatchdogMarksTheDaemonNotLiveWhileAnExecutionIsStuck) {
  START_DAEMON(daemon, SimDaemonArgs({"--http-listen=127.0.0.1:0", "--execution-timeout=500ms"}));
  const std::optional<std::string> http = WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+)");
  ASSERT_TRUE(http.has_value());
  ASSERT_TRUE(Upload(*daemon->stub, Config("stuck"),
                     EncodeNeff(IdentityModel({1, 4}, /*latency_us=*/2500000)))
                  .status.ok());
  HealthWatch live(daemon->channel, kLiveness);
  ASSERT_TRUE(live.WaitForLatest(HC::SERVING));
  EXPECT_EQ(HttpGet("http://" + *http + "/livez").status, 200);
  EXPECT_EQ(HttpGet("http://" + *http + "/v2/health/live").status, 200);

  std::thread request([&] {
    v1::InferResponse response;
    EXPECT_TRUE(Infer(*daemon->stub, IdentityRequest("stuck"), &response).ok());
  });
  EXPECT_TRUE(live.WaitForLatest(HC::NOT_SERVING, absl::Seconds(5))) << Describe(live.Received());
  const HttpResult livez = HttpGet("http://" + *http + "/livez");
  EXPECT_EQ(livez.status, 503);
  EXPECT_THAT(livez.body, HasSubstr("NeuronCore 0 has been in one execution for"));
  // The Open Inference Protocol's REST probe says the same, as 400 with the reason.
  const HttpResult v2_live = HttpGet("http://" + *http + "/v2/health/live");
  EXPECT_EQ(v2_live.status, 400);
  EXPECT_THAT(v2_live.body, HasSubstr("{\"error\":\"not live: "));
  EXPECT_THAT(v2_live.body, HasSubstr("NeuronCore 0 has been in one execution for"));
  // Logged as the status is published: it reaches the capture some time after the Watch saw it.
  EXPECT_TRUE(WaitForLog(*daemon->process, "watchdog: not live").has_value())
      << daemon->process->Stderr();
  request.join();
  // Once the execution ends the daemon is live again.
  EXPECT_TRUE(live.WaitForLatest(HC::SERVING, absl::Seconds(5))) << Describe(live.Received());
  EXPECT_EQ(HttpGet("http://" + *http + "/livez").status, 200);
  EXPECT_EQ(HttpGet("http://" + *http + "/v2/health/live").status, 200);
}

}  // namespace
}  // namespace health_e2e_test
}  // namespace neuronserve::testing
