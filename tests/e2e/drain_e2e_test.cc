// Graceful drain through the real daemon binary: SIGTERM with 32 requests in flight (queued
// and executing) and an idle stream open. Health turns NOT_SERVING at once, new requests are
// refused UNAVAILABLE, every request in flight completes successfully, the idle stream is
// ended with a status, models are unloaded, nrt_close runs and the process exits 0 within the
// drain timeout. A drain timeout that is too short, or a second SIGTERM, ends it sooner, still
// with exit 0 after unloading.
#include <signal.h>

#include <atomic>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/prometheus/prometheus_text_parser.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace drain_e2e_test {
namespace {

using ::testing::HasSubstr;
using HC = grpc::health::v1::HealthCheckResponse;

constexpr int kInFlight = 32;
// 1 s per execution on 2 replicas: 16 s for all 32. The signal comes right after they are all
// in, so none has finished then, even on a loaded machine under a sanitizer (at 250 ms two had,
// once, with three sanitized e2e tests at a time); and a drain cut short ends far sooner.
constexpr uint64_t kDrainLatencyUs = 1000000;

v1::InferRequest Request(int i) {
  v1::InferRequest request;
  request.set_model("slow");
  request.set_id(absl::StrCat(i));
  AddInput(request, "input", {1, 4}, {float(i), 2, 3, 4}, TensorForm::kFloat);
  return request;
}

struct Outcome {
  grpc::Status status;
  v1::InferResponse response;
};

// Starts `count` unary calls on their own threads; each records its outcome.
std::vector<std::thread> SendInFlight(v1::NeuronServing::Stub& stub, std::vector<Outcome>& outcomes) {
  std::vector<std::thread> threads;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    threads.emplace_back([&stub, &outcomes, i] {
      outcomes[i].status = Infer(stub, Request(static_cast<int>(i)), &outcomes[i].response);
    });
  }
  return threads;
}

std::unique_ptr<RunningDaemon> StartWithSlowModel(const std::vector<std::string>& flags,
                                                  std::string* log) {
  std::vector<std::string> all_flags = flags;
  all_flags.push_back("--http-listen=127.0.0.1:0");
  std::unique_ptr<RunningDaemon> daemon = StartDaemon(SimDaemonArgs(all_flags), log);
  if (daemon == nullptr) return nullptr;
  v1::ModelConfig config = Config("slow");
  config.set_replicas(2);
  // Unpipelined: the tests wait until the queue_depth and executions_in_flight gauges count
  // every request sent before they signal. A pipelined replica also holds a unit whose inputs
  // are written while its core executes another, which neither gauge counts.
  config.set_pipeline_depth(1);
  if (!Upload(*daemon->stub, config, EncodeNeff(IdentityModel({1, 4}, kDrainLatencyUs))).status.ok()) {
    *log = daemon->process->Stderr();
    return nullptr;
  }
  return daemon;
}

TEST(DrainE2ETest, SigtermLetsEveryRequestInFlightFinishAndRefusesNewOnes) {
  std::string log;
  std::unique_ptr<RunningDaemon> daemon =
      StartWithSlowModel({"--drain-timeout=60s"}, &log);
  ASSERT_NE(daemon, nullptr) << log;
  const std::optional<std::string> http = WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+)");
  ASSERT_TRUE(http.has_value());
  HealthWatch health(daemon->channel, "");
  ASSERT_TRUE(health.WaitForLatest(HC::SERVING));

  // An idle stream: open, nothing sent. The drain must end it rather than wait for it.
  grpc::ClientContext idle_context;
  auto idle = daemon->stub->InferStream(&idle_context);
  // A busy stream: one request in flight when the signal comes.
  grpc::ClientContext busy_context;
  auto busy = daemon->stub->InferStream(&busy_context);
  ASSERT_TRUE(busy->Write(Request(1000)));

  std::vector<Outcome> outcomes(kInFlight);
  std::vector<std::thread> threads = SendInFlight(*daemon->stub, outcomes);
  ASSERT_TRUE(WaitUntilInFlight(*daemon->process, kInFlight + 1));  // and the busy stream's request

  const absl::Time signalled = absl::Now();
  ASSERT_EQ(kill(daemon->process->pid(), SIGTERM), 0);
  // Health turns NOT_SERVING at once, before the requests in flight are done.
  EXPECT_TRUE(health.WaitForLatest(HC::NOT_SERVING, absl::Seconds(5)))
      << Describe(health.Received());
  EXPECT_LT(absl::Now() - signalled, absl::Seconds(5));  // of the 16 s the requests take
  EXPECT_EQ(HttpGet("http://" + *http + "/readyz").status, 503);
  // A new request is refused with UNAVAILABLE (the daemon still answers it, and says why).
  const grpc::Status refused = Infer(*daemon->stub, Request(999), nullptr);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(refused.error_message(), HasSubstr("shutting down"));

  for (std::thread& thread : threads) thread.join();
  for (int i = 0; i < kInFlight; ++i) {
    ASSERT_TRUE(outcomes[i].status.ok()) << i << ": " << outcomes[i].status.error_message();
    EXPECT_EQ(outcomes[i].response.id(), absl::StrCat(i));
    ASSERT_EQ(outcomes[i].response.outputs_size(), 1);
    EXPECT_EQ(OutputValues(outcomes[i].response.outputs(0))[0], float(i));
  }
  // The busy stream got its answer, then both streams were ended with a status, not a reset.
  v1::InferResponse streamed;
  ASSERT_TRUE(busy->Read(&streamed));
  EXPECT_EQ(streamed.id(), "1000");
  EXPECT_EQ(streamed.error().code(), 0) << streamed.error().message();
  EXPECT_FALSE(busy->Read(&streamed));
  const grpc::Status busy_end = busy->Finish();
  EXPECT_EQ(busy_end.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(busy_end.error_message(), HasSubstr("shutting down"));
  v1::InferResponse nothing;
  EXPECT_FALSE(idle->Read(&nothing));
  const grpc::Status idle_end = idle->Finish();
  EXPECT_EQ(idle_end.error_code(), grpc::StatusCode::UNAVAILABLE) << idle_end.error_message();

  EXPECT_EQ(daemon->process->WaitForExit(absl::Seconds(60)), 0);
  EXPECT_LT(absl::Now() - signalled, absl::Seconds(60));
  const std::string stderr_log = daemon->process->Stderr();
  // The 32 unary calls and the busy stream were open at the signal (and the idle stream, unless
  // the server had not yet seen its call start: then it was refused at once).
  const std::optional<std::string> open = WaitForLog(*daemon->process, "draining: ([0-9]+) infer");
  ASSERT_TRUE(open.has_value());
  EXPECT_GE(std::stoi(*open), kInFlight + 1);
  EXPECT_THAT(stderr_log, HasSubstr("drained: every inference call finished"));
  EXPECT_THAT(stderr_log, HasSubstr("model 'slow' unloaded"));
  EXPECT_THAT(stderr_log, HasSubstr("nrtsim: nrt_close"));
  EXPECT_THAT(stderr_log, ::testing::Not(HasSubstr("warning: nrt_close with")));
}

TEST(DrainE2ETest, TheDrainTimeoutCutsTheWaitShortAndStillUnloads) {
  std::string log;
  std::unique_ptr<RunningDaemon> daemon = StartWithSlowModel({"--drain-timeout=300ms"}, &log);
  ASSERT_NE(daemon, nullptr) << log;
  std::vector<Outcome> outcomes(kInFlight);
  std::vector<std::thread> threads = SendInFlight(*daemon->stub, outcomes);
  ASSERT_TRUE(WaitUntilInFlight(*daemon->process, kInFlight));
  const absl::Time signalled = absl::Now();
  EXPECT_EQ(daemon->process->StopWith(SIGTERM, absl::Seconds(10)), 0);
  // Far less than the 16 s all 32 would take.
  EXPECT_LT(absl::Now() - signalled, absl::Seconds(8));
  for (std::thread& thread : threads) thread.join();
  int succeeded = 0;
  for (const Outcome& outcome : outcomes) {
    if (outcome.status.ok()) {
      ++succeeded;
    } else {
      // Cut short: cancelled or unavailable, never a wrong answer.
      EXPECT_THAT(outcome.status.error_code(),
                  ::testing::AnyOf(grpc::StatusCode::CANCELLED, grpc::StatusCode::UNAVAILABLE))
          << outcome.status.error_message();
    }
  }
  EXPECT_LT(succeeded, kInFlight);
  const std::string stderr_log = daemon->process->Stderr();
  EXPECT_THAT(stderr_log, HasSubstr("drain cut short (--drain-timeout passed)"));
  EXPECT_THAT(stderr_log, HasSubstr("model 'slow' unloaded"));
  EXPECT_THAT(stderr_log, HasSubstr("nrtsim: nrt_close"));
}

TEST(DrainE2ETest, ASecondSigtermEndsTheDrainAtOnce) {
  std::string log;
  std::unique_ptr<RunningDaemon> daemon = StartWithSlowModel({"--drain-timeout=60s"}, &log);
  ASSERT_NE(daemon, nullptr) << log;
  std::vector<Outcome> outcomes(kInFlight);
  std::vector<std::thread> threads = SendInFlight(*daemon->stub, outcomes);
  ASSERT_TRUE(WaitUntilInFlight(*daemon->process, kInFlight));
  const absl::Time signalled = absl::Now();
  ASSERT_EQ(kill(daemon->process->pid(), SIGTERM), 0);
  ASSERT_TRUE(WaitForLog(*daemon->process, "(draining: )").has_value());
  ASSERT_EQ(kill(daemon->process->pid(), SIGTERM), 0);
  EXPECT_EQ(daemon->process->WaitForExit(absl::Seconds(10)), 0);
  // Far less than the 16 s all 32 would take.
  EXPECT_LT(absl::Now() - signalled, absl::Seconds(8));
  for (std::thread& thread : threads) thread.join();
  const std::string stderr_log = daemon->process->Stderr();
  EXPECT_THAT(stderr_log, HasSubstr("drain cut short (second signal)"));
  EXPECT_THAT(stderr_log, HasSubstr("nrtsim: nrt_close"));
}

}  // namespace
}  // namespace drain_e2e_test
}  // namespace neuronserve::testing
