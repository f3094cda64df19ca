// Runtime errors through the real daemon, with the simulator's fault injection: an execution
// error comes back with its gRPC code and NRT status name; a hardware error takes the core out
// of rotation and the model goes on serving on its other replica (the failed request retried
// there), and so does an execution that hangs past NEURON_RT_EXEC_TIMEOUT (NRT_TIMEOUT); a
// transient error is retried once on another replica.
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace infer_faults_e2e_test {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

v1::InferRequest Request(const std::string& model) {
  v1::InferRequest request;
  request.set_model(model);
  AddInput(request, "input", {1, 4}, {1, 2, 3, 4}, TensorForm::kFloat);
  return request;
}

// Sends `count` requests to `model` on one stream (all in flight at once, so every replica gets
// work) and expects each to succeed with the identity's output; returns the responses.
std::vector<v1::InferResponse> StreamSucceeds(v1::NeuronServing::Stub& stub,
                                              const std::string& model, size_t count) {
  std::vector<v1::InferRequest> requests(count, Request(model));
  for (size_t i = 0; i < requests.size(); ++i) requests[i].set_id(absl::StrCat(i));
  grpc::Status status;
  std::vector<v1::InferResponse> responses = RunStream(stub, requests, &status);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(responses.size(), count);
  for (const v1::InferResponse& response : responses) {
    EXPECT_EQ(response.error().code(), 0) << response.error().message();
    if (response.outputs_size() == 1) {
      EXPECT_THAT(OutputValues(response.outputs(0)), ElementsAre(1, 2, 3, 4));
    } else {
      ADD_FAILURE() << "request " << response.id() << ": " << response.outputs_size()
                    << " outputs";
    }
  }
  return responses;
}

std::vector<uint64_t> ReplicaExecutions(v1::NeuronServing::Stub& stub, const std::string& model) {
  v1::ModelStatus status;
  EXPECT_TRUE(GetModel(stub, model, &status).ok());
  std::vector<uint64_t> executions;
  for (const v1::ModelReplica& replica : status.replicas()) {
    executions.push_back(replica.executions());
  }
  return executions;
}

std::vector<bool> ReplicaHealth(v1::NeuronServing::Stub& stub, const std::string& model) {
  v1::ModelStatus status;
  EXPECT_TRUE(GetModel(stub, model, &status).ok());
  std::vector<bool> health;
  for (const v1::ModelReplica& replica : status.replicas()) health.push_back(replica.healthy());
  return health;
}

TEST(InferFaultsE2ETest, AnExecutionErrorIsMappedWithItsStatusName) {
  START_DAEMON(daemon, SimDaemonArgs());
  const std::string neff =
      FaultyIdentityNeff(R"([{"on_execution": 2, "status": "NRT_EXEC_BAD_INPUT"}])");
  ASSERT_TRUE(Upload(*daemon->stub, Config("m"), neff).status.ok());
  ASSERT_TRUE(Infer(*daemon->stub, Request("m"), nullptr).ok());
  grpc::Status failed = Infer(*daemon->stub, Request("m"), nullptr);
  EXPECT_EQ(failed.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(failed.error_message(),
              AllOf(HasSubstr("model 'm' on core 0"), HasSubstr("NRT_EXEC_BAD_INPUT")));
  // Not a hardware error: the core stays in rotation and the next request succeeds.
  EXPECT_THAT(ReplicaHealth(*daemon->stub, "m"), ElementsAre(true));
  EXPECT_TRUE(Infer(*daemon->stub, Request("m"), nullptr).ok());
}

TEST(InferFaultsE2ETest, AHardwareErrorOnTheOnlyReplicaLeavesTheModelUnavailable) {
  START_DAEMON(daemon, SimDaemonArgs());
  const std::string neff = FaultyIdentityNeff(R"([{"on_execution": 2, "status": "NRT_HW_ERROR"}])");
  ASSERT_TRUE(Upload(*daemon->stub, Config("m"), neff).status.ok());
  ASSERT_TRUE(Infer(*daemon->stub, Request("m"), nullptr).ok());
  grpc::Status failed = Infer(*daemon->stub, Request("m"), nullptr);
  EXPECT_EQ(failed.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(failed.error_message(), AllOf(HasSubstr("model 'm'"), HasSubstr("NRT_HW_ERROR")));
  EXPECT_THAT(ReplicaHealth(*daemon->stub, "m"), ElementsAre(false));
  grpc::Status after = Infer(*daemon->stub, Request("m"), nullptr);
  EXPECT_EQ(after.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(after.error_message(), HasSubstr("model 'm' has no healthy replica left"));
  // The line reaches the capture of the daemon's stderr some time after the answers: wait for it.
  EXPECT_TRUE(WaitForLog(*daemon->process, "taking core 0 out of rotation").has_value())
      << daemon->process->Stderr();
}

TEST(InferFaultsE2ETest, AHardwareErrorFailsOverToTheOtherReplica) {
  START_DAEMON(daemon, SimDaemonArgs());
  // The copy on core 1 fails every execution in hardware; the copy on core 0 works.
  const std::string neff =
      FaultyIdentityNeff(R"([{"every": 1, "status": "NRT_HW_ERROR", "core": 1}])");
  v1::ModelConfig config = Config("m");
  config.add_start_cores(0);
  config.add_start_cores(1);
  ASSERT_TRUE(Upload(*daemon->stub, config, neff).status.ok());
  // Keep both replicas busy so that core 1 is certain to take some requests: a stream of many.
  // Every one succeeds: the one that hit core 1 was retried on core 0.
  constexpr size_t kRequests = 200;
  StreamSucceeds(*daemon->stub, "m", kRequests);
  if (::testing::Test::HasFailure()) return;
  EXPECT_THAT(ReplicaHealth(*daemon->stub, "m"), ElementsAre(true, false));
  // Core 1 ran exactly one execution (its failure) and then left rotation; core 0 ran the rest
  // (the failed request once more included).
  EXPECT_THAT(ReplicaExecutions(*daemon->stub, "m"), ElementsAre(kRequests, 1u));
  EXPECT_TRUE(WaitForLog(*daemon->process, "taking core 1 out of rotation").has_value())
      << daemon->process->Stderr();
  // And it goes on serving on core 0.
  EXPECT_TRUE(Infer(*daemon->stub, Request("m"), nullptr).ok());
}

TEST(InferFaultsE2ETest, AnExecutionPastTheExecTimeoutFailsOverToTheOtherReplica) {
  // The copy on core 1 runs its first execution for 30 s of device time; the runtime gives up
  // after NEURON_RT_EXEC_TIMEOUT=1 s with NRT_TIMEOUT. The copy on core 0 works.
  START_DAEMON(daemon, SimDaemonArgs({}, {{"NEURON_RT_EXEC_TIMEOUT", "1"}}));
  const std::string neff =
      FaultyIdentityNeff(R"([{"on_execution": 1, "latency_us": 30000000, "core": 1}])");
  v1::ModelConfig config = Config("m");
  config.add_start_cores(0);
  config.add_start_cores(1);
  ASSERT_TRUE(Upload(*daemon->stub, config, neff).status.ok());
  // Many at once, so that core 1 is certain to take one. Every one succeeds: the one that hung
  // on core 1 was retried on core 0.
  constexpr size_t kRequests = 200;
  StreamSucceeds(*daemon->stub, "m", kRequests);
  if (::testing::Test::HasFailure()) return;
  EXPECT_THAT(ReplicaHealth(*daemon->stub, "m"), ElementsAre(true, false));
  EXPECT_THAT(ReplicaExecutions(*daemon->stub, "m"), ElementsAre(kRequests, 1u));
  // The simulator's line comes before the daemon's (the daemon logs the status nrt_execute
  // returned), and both reach the capture some time after the answers: wait for the last.
  ASSERT_TRUE(WaitForLog(*daemon->process, "taking core 1 out of rotation").has_value())
      << daemon->process->Stderr();
  const std::string log = daemon->process->Stderr();
  EXPECT_THAT(log, HasSubstr("timed out after NEURON_RT_EXEC_TIMEOUT=1 s"));
  EXPECT_THAT(log, AllOf(HasSubstr("NRT_TIMEOUT"), HasSubstr("taking core 1 out of rotation")));
  EXPECT_TRUE(Infer(*daemon->stub, Request("m"), nullptr).ok());
}

TEST(InferFaultsE2ETest, ATimeoutOnTheOnlyReplicaLeavesTheModelUnavailable) {
  START_DAEMON(daemon, SimDaemonArgs({}, {{"NEURON_RT_EXEC_TIMEOUT", "1"}}));
  const std::string neff =
      FaultyIdentityNeff(R"([{"on_execution": 1, "latency_us": 30000000}])");
  ASSERT_TRUE(Upload(*daemon->stub, Config("m"), neff).status.ok());
  grpc::Status failed = Infer(*daemon->stub, Request("m"), nullptr);
  EXPECT_EQ(failed.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(failed.error_message(), AllOf(HasSubstr("model 'm' on core 0"),
                                            HasSubstr("NRT_TIMEOUT")));
  EXPECT_THAT(ReplicaHealth(*daemon->stub, "m"), ElementsAre(false));
  grpc::Status after = Infer(*daemon->stub, Request("m"), nullptr);
  EXPECT_EQ(after.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(after.error_message(), HasSubstr("model 'm' has no healthy replica left"));
}

TEST(InferFaultsE2ETest, ATransientErrorIsRetriedOnceOnAnotherReplica) {
  START_DAEMON(daemon, SimDaemonArgs());
  // Core 1 is busy every time; core 0 works. Both stay in rotation (not a hardware error).
  const std::string flaky =
      FaultyIdentityNeff(R"([{"every": 1, "status": "NRT_EXEC_NC_BUSY", "core": 1}])");
  v1::ModelConfig two = Config("two");
  two.add_start_cores(0);
  two.add_start_cores(1);
  ASSERT_TRUE(Upload(*daemon->stub, two, flaky).status.ok());
  constexpr size_t kRequests = 100;
  StreamSucceeds(*daemon->stub, "two", kRequests);
  if (::testing::Test::HasFailure()) return;
  EXPECT_THAT(ReplicaHealth(*daemon->stub, "two"), ElementsAre(true, true));
  // Core 1 was tried (and failed every time), each of its failures ran again on core 0.
  const std::vector<uint64_t> executions = ReplicaExecutions(*daemon->stub, "two");
  ASSERT_EQ(executions.size(), 2u);
  EXPECT_GT(executions[1], 0u);
  EXPECT_EQ(executions[0], kRequests);
  ASSERT_TRUE(UnloadModel(*daemon->stub, "two").ok());

  // With one replica there is nowhere else to go: the error comes back with its name.
  v1::ModelConfig one = Config("one");
  one.add_start_cores(1);
  ASSERT_TRUE(Upload(*daemon->stub, one, flaky).status.ok());
  grpc::Status failed = Infer(*daemon->stub, Request("one"), nullptr);
  EXPECT_EQ(failed.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(failed.error_message(), AllOf(HasSubstr("model 'one' on core 1"),
                                            HasSubstr("NRT_EXEC_NC_BUSY")));
  EXPECT_THAT(ReplicaHealth(*daemon->stub, "one"), ElementsAre(true));
}

}  // namespace
}  // namespace infer_faults_e2e_test
}  // namespace neuronserve::testing
