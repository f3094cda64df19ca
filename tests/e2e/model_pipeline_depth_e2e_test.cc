// ModelLifecycleE2ETest's pipeline depth cases, against the real neuron-serve binary on the
// simulator: the tensor sets a depth binds and their device memory, a depth past the limit
// refused naming the model, and the daemon's --pipeline-depth as the default a model's own wins
// over.
#include <signal.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/http_get.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing {
namespace model_lifecycle_e2e_test {
namespace {

using ::testing::HasSubstr;

// The device memory in use on all cores together.
uint64_t TotalMemoryUsed(v1::NeuronServing::Stub& stub) {
  const v1::EnumerateResponse enumerated = EnumerateCores(stub);
  uint64_t used = 0;
  for (const v1::NeuronCore& core : enumerated.cores()) used += core.memory_used_bytes();
  return used;
}

// The device memory in use on the cores of `model`'s one replica.
uint64_t MemoryUsedByTheReplica(v1::NeuronServing::Stub& stub, const v1::ModelStatus& model) {
  EXPECT_EQ(model.replicas_size(), 1) << model.DebugString();
  if (model.replicas_size() != 1) return 0;
  const v1::EnumerateResponse enumerated = EnumerateCores(stub);
  uint64_t used = 0;
  for (uint32_t core : model.replicas(0).cores()) {
    EXPECT_LT(core, static_cast<uint32_t>(enumerated.cores_size()));
    if (core < static_cast<uint32_t>(enumerated.cores_size())) {
      used += enumerated.cores(static_cast<int>(core)).memory_used_bytes();
    }
  }
  return used;
}

// `count` requests to SimNeff's relu on one InferStream, all sent before any answer is read,
// each with its own row: every answer must be relu of its own request's row, which a pipelined
// replica (several units in flight, each in its own tensor set) must never mix up.
void ExpectEachReluAnswerIsItsOwn(v1::NeuronServing::Stub& stub, const std::string& model,
                                  uint32_t width, int count) {
  std::vector<v1::InferRequest> requests;
  for (int i = 0; i < count; ++i) {
    v1::InferRequest request;
    request.set_model(model);
    request.set_id(std::to_string(i));
    std::vector<float> row(width);
    for (uint32_t j = 0; j < width; ++j) {
      row[j] = static_cast<float>(i * 100 + static_cast<int>(j)) * (j % 2 == 0 ? 1.0f : -1.0f);
    }
    AddInput(request, "x", {1, width}, row, TensorForm::kFloat);
    requests.push_back(std::move(request));
  }
  grpc::Status status;
  const std::vector<v1::InferResponse> responses = RunStream(stub, requests, &status);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(responses.size(), static_cast<size_t>(count));
  for (const v1::InferResponse& response : responses) {
    ASSERT_FALSE(response.has_error()) << response.id() << ": " << response.error().message();
    const int i = std::stoi(response.id());
    std::vector<float> expected(width);
    for (uint32_t j = 0; j < width; ++j) {
      expected[j] = j % 2 == 0 ? static_cast<float>(i * 100 + static_cast<int>(j)) : 0.0f;
    }
    ASSERT_EQ(response.outputs_size(), 1) << response.id();
    EXPECT_EQ(OutputValues(response.outputs(0)), expected) << "request " << i;
  }
}

// The replicas of `name` in the daemon's /v1/models.
nlohmann::json ListedReplicas(const std::string& http, const std::string& name) {
  const HttpResult listing = HttpGet(http + "/v1/models");
  EXPECT_EQ(listing.status, 200) << listing.body;
  if (listing.status != 200) return nlohmann::json();
  const nlohmann::json parsed = nlohmann::json::parse(listing.body);
  for (const nlohmann::json& model : parsed.at("models")) {
    if (model.at("name") == name) return model.at("replicas");
  }
  ADD_FAILURE() << "'" << name << "' is not in /v1/models: " << listing.body;
  return nlohmann::json();
}

TEST(ModelLifecycleE2ETest, PipelineDepthSetsTheTensorSetsAndTheirDeviceMemory) {
  const ReluNeffOptions relu = {.input_width = 8, .constant_floats = 16};
  const uint64_t set_bytes = SimNeffTensorSetBytes(relu);  // x and y: 2 x 8 floats
  ASSERT_EQ(set_bytes, 64u);
  TempDir repository;
  WriteFile(repository.Join("m/model.neff"), SimNeff(relu));
  WriteFile(repository.Join("m/config.pbtxt"), "pipeline_depth: 1\n");
  START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repository.path(),
                                      "--http-listen=127.0.0.1:0"}));
  const std::optional<std::string> http =
      WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+) \\(");
  ASSERT_TRUE(http.has_value()) << daemon->process->Stderr();
  const std::string http_base = "http://" + *http;

  // The config's depth: one tensor set.
  LoadResult one = LoadFromRepository(*daemon->stub, "m");
  ASSERT_TRUE(one.status.ok()) << one.status.error_message();
  v1::ModelStatus at_one;
  ASSERT_TRUE(GetModel(*daemon->stub, "m", &at_one).ok());
  ASSERT_EQ(at_one.replicas_size(), 1);
  EXPECT_EQ(at_one.replicas(0).tensor_sets(), 1u);
  EXPECT_EQ(at_one.replicas(0).tensor_bytes(), set_bytes);
  EXPECT_EQ(one.response.model().SerializeAsString(), at_one.SerializeAsString());
  const uint64_t used_at_one = TotalMemoryUsed(*daemon->stub);
  EXPECT_EQ(used_at_one, SimNeffDeviceBytes(relu, 1));
  EXPECT_EQ(MemoryUsedByTheReplica(*daemon->stub, at_one), used_at_one);
  ExpectEachReluAnswerIsItsOwn(*daemon->stub, "m", relu.input_width, 64);
  ASSERT_TRUE(UnloadModel(*daemon->stub, "m").ok());
  EXPECT_EQ(TotalMemoryUsed(*daemon->stub), 0u);

  // The same model with the header's override, 3: three times the tensor bytes, and exactly
  // two more sets on the device.
  v1::ModelConfig deeper;
  deeper.set_pipeline_depth(3);
  LoadResult three = LoadFromRepository(*daemon->stub, "m", deeper);
  ASSERT_TRUE(three.status.ok()) << three.status.error_message();
  v1::ModelStatus at_three;
  ASSERT_TRUE(GetModel(*daemon->stub, "m", &at_three).ok());
  ASSERT_EQ(at_three.replicas_size(), 1);
  EXPECT_EQ(at_three.replicas(0).tensor_sets(), 3u);
  EXPECT_EQ(at_three.replicas(0).tensor_bytes(), 3 * at_one.replicas(0).tensor_bytes());
  EXPECT_EQ(TotalMemoryUsed(*daemon->stub), used_at_one + 2 * set_bytes);
  EXPECT_EQ(MemoryUsedByTheReplica(*daemon->stub, at_three), SimNeffDeviceBytes(relu, 3));
  ExpectEachReluAnswerIsItsOwn(*daemon->stub, "m", relu.input_width, 64);
  const nlohmann::json listed = ListedReplicas(http_base, "m");
  ASSERT_EQ(listed.size(), 1u) << listed;
  EXPECT_EQ(listed[0].at("tensor_sets"), 3);
  EXPECT_EQ(listed[0].at("tensor_bytes"), 3 * set_bytes);
  ASSERT_TRUE(UnloadModel(*daemon->stub, "m").ok());

  // An upload's header sets it too; without it, the daemon's default.
  v1::ModelConfig uploaded = Config("up");
  uploaded.set_pipeline_depth(3);
  LoadResult up = Upload(*daemon->stub, uploaded, SimNeff(relu));
  ASSERT_TRUE(up.status.ok()) << up.status.error_message();
  ASSERT_EQ(up.response.model().replicas_size(), 1);
  EXPECT_EQ(up.response.model().replicas(0).tensor_sets(), 3u);
  EXPECT_EQ(up.response.model().replicas(0).tensor_bytes(), 3 * set_bytes);
  EXPECT_EQ(MemoryUsedByTheReplica(*daemon->stub, up.response.model()),
            SimNeffDeviceBytes(relu, 3));
  LoadResult plain = Upload(*daemon->stub, Config("plain"), SimNeff(relu));
  ASSERT_TRUE(plain.status.ok()) << plain.status.error_message();
  ASSERT_EQ(plain.response.model().replicas_size(), 1);
  EXPECT_EQ(plain.response.model().replicas(0).tensor_sets(), kDefaultPipelineDepth);
  EXPECT_EQ(plain.response.model().replicas(0).tensor_bytes(), kDefaultPipelineDepth * set_bytes);
  EXPECT_EQ(MemoryUsedByTheReplica(*daemon->stub, plain.response.model()),
            SimNeffDeviceBytes(relu));
  EXPECT_EQ(TotalMemoryUsed(*daemon->stub), SimNeffDeviceBytes(relu, 3) + SimNeffDeviceBytes(relu));
  ExpectEachReluAnswerIsItsOwn(*daemon->stub, "plain", relu.input_width, 64);
}

TEST(ModelLifecycleE2ETest, APipelineDepthPastTheLimitIsRefusedNamingTheModel) {
  TempDir repository;
  WriteFile(repository.Join("r/model.neff"), SimNeff());
  WriteFile(repository.Join("r/config.pbtxt"), "pipeline_depth: 9\n");
  WriteFile(repository.Join("m/model.neff"), SimNeff());
  START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repository.path()}));
  auto expect_refused = [](const grpc::Status& status, const std::string& model, uint32_t depth) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr("model '" + model + "'"));
    EXPECT_THAT(status.error_message(), HasSubstr("pipeline_depth is " + std::to_string(depth) +
                                                  ", more than the limit of 8"));
  };

  // An upload's header: refused before any byte of the NEFF is taken.
  v1::ModelConfig uploaded = Config("deep");
  uploaded.set_pipeline_depth(9);
  expect_refused(Upload(*daemon->stub, uploaded, SimNeff()).status, "deep", 9);
  // A repository model's config.pbtxt.
  expect_refused(LoadFromRepository(*daemon->stub, "r").status, "r", 9);
  // A repository load's header override.
  v1::ModelConfig overrides;
  overrides.set_pipeline_depth(100);
  expect_refused(LoadFromRepository(*daemon->stub, "m", overrides).status, "m", 100);

  for (const char* name : {"deep", "r", "m"}) {
    EXPECT_EQ(GetModel(*daemon->stub, name, nullptr).error_code(), grpc::StatusCode::NOT_FOUND)
        << name;
  }
  EXPECT_EQ(ListModels(*daemon->stub).models_size(), 0);
  EXPECT_EQ(TotalMemoryUsed(*daemon->stub), 0u);
  // 8, the limit itself, loads.
  overrides.set_pipeline_depth(8);
  LoadResult eight = LoadFromRepository(*daemon->stub, "m", overrides);
  ASSERT_TRUE(eight.status.ok()) << eight.status.error_message();
  ASSERT_EQ(eight.response.model().replicas_size(), 1);
  EXPECT_EQ(eight.response.model().replicas(0).tensor_sets(), 8u);
  EXPECT_EQ(TotalMemoryUsed(*daemon->stub), SimNeffDeviceBytes({}, 8));
}

TEST(ModelLifecycleE2ETest, TheDaemonsPipelineDepthIsTheDefaultAndAModelsOwnWins) {
  TempDir state;
  const std::string state_flag = "--state-dir=" + state.Join("state");
  const ReluNeffOptions relu = {.input_width = 4, .constant_floats = 8};
  {
    START_DAEMON(daemon, SimDaemonArgs({"--pipeline-depth=1", state_flag}));
    LoadResult plain = Upload(*daemon->stub, Config("plain"), SimNeff(relu));
    ASSERT_TRUE(plain.status.ok()) << plain.status.error_message();
    v1::ModelStatus model;
    ASSERT_TRUE(GetModel(*daemon->stub, "plain", &model).ok());
    ASSERT_EQ(model.replicas_size(), 1);
    EXPECT_EQ(model.replicas(0).tensor_sets(), 1u);
    EXPECT_EQ(model.replicas(0).tensor_bytes(), SimNeffTensorSetBytes(relu));
    EXPECT_EQ(MemoryUsedByTheReplica(*daemon->stub, model), SimNeffDeviceBytes(relu, 1));
    ExpectEachReluAnswerIsItsOwn(*daemon->stub, "plain", relu.input_width, 32);

    v1::ModelConfig own = Config("own");
    own.set_pipeline_depth(4);
    LoadResult deep = Upload(*daemon->stub, own, SimNeff(relu));
    ASSERT_TRUE(deep.status.ok()) << deep.status.error_message();
    ASSERT_EQ(deep.response.model().replicas_size(), 1);
    EXPECT_EQ(deep.response.model().replicas(0).tensor_sets(), 4u);
    EXPECT_EQ(deep.response.model().replicas(0).tensor_bytes(), 4 * SimNeffTensorSetBytes(relu));
    EXPECT_EQ(MemoryUsedByTheReplica(*daemon->stub, deep.response.model()),
              SimNeffDeviceBytes(relu, 4));
    EXPECT_EQ(daemon->process->StopWith(SIGTERM), 0) << daemon->process->Stderr();
  }
  // After a restart with the default depth: a model's own depth was recorded with it, and one
  // that had none takes the restarted daemon's.
  START_DAEMON(restarted, SimDaemonArgs({state_flag}));
  v1::ModelStatus own;
  ASSERT_TRUE(GetModel(*restarted->stub, "own", &own).ok()) << restarted->process->Stderr();
  ASSERT_EQ(own.replicas_size(), 1);
  EXPECT_EQ(own.source(), "state");
  EXPECT_EQ(own.replicas(0).tensor_sets(), 4u);
  v1::ModelStatus plain;
  ASSERT_TRUE(GetModel(*restarted->stub, "plain", &plain).ok());
  ASSERT_EQ(plain.replicas_size(), 1);
  EXPECT_EQ(plain.replicas(0).tensor_sets(), kDefaultPipelineDepth);
  EXPECT_EQ(TotalMemoryUsed(*restarted->stub),
            SimNeffDeviceBytes(relu, 4) + SimNeffDeviceBytes(relu, kDefaultPipelineDepth));
}

}  // namespace
}  // namespace model_lifecycle_e2e_test
}  // namespace neuronserve::testing
