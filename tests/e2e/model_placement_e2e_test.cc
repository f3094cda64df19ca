// End-to-end tests of model repositories (startup loads and header.repository_path) and of core
// placement, against the real neuron-serve binary on the simulator.
#include <signal.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "tests/e2e/lifecycle_client.h"

namespace neuronserve::testing {
namespace model_placement_e2e_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr int kServing = grpc::health::v1::HealthCheckResponse::SERVING;

std::vector<std::vector<uint32_t>> ReplicaCores(const v1::ModelStatus& model) {
  std::vector<std::vector<uint32_t>> cores;
  for (const v1::ModelReplica& replica : model.replicas()) {
    cores.emplace_back(replica.cores().begin(), replica.cores().end());
  }
  return cores;
}

// good/ (2 replicas), broken/ (garbage), renamed/ (name "custom", file weights.neff), and a
// folder and a file outside the repository with symlinks to them from inside.
struct Repository {
  TempDir dir;
  std::string root = dir.Join("repo");
  Repository() {
    WriteFile(root + "/good/model.neff", SimNeff({.constant_floats = 16}));
    WriteFile(root + "/good/config.pbtxt", "version: \"3\"\nreplicas: 2\n");
    WriteFile(root + "/broken/model.neff", GarbageNeff());
    WriteFile(root + "/renamed/weights.neff", SimNeff({.input_width = 2}));
    WriteFile(root + "/renamed/config.pbtxt", "name: \"custom\"\nfile: \"weights.neff\"\n");
    WriteFile(dir.Join("outside/model.neff"), SimNeff());
    std::filesystem::create_symlink(dir.Join("outside"), root + "/linked_folder");
    std::filesystem::create_symlink(dir.Join("outside/model.neff"), root + "/linked.neff");
  }
};

// 4. Startup loads from the repository.
TEST(ModelRepositoryE2ETest, LoadModelsAllLoadsEveryFolder) {
  Repository repo;
  START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repo.root, "--load-models=all"},
                                     {{"NRTSIM_CORES", "4"}}));
  // The listening line comes after the startup loads, and so does SERVING.
  EXPECT_EQ(HealthCheck(daemon->channel, ""), kServing);

  v1::ModelStatus good;
  ASSERT_TRUE(GetModel(*daemon->stub, "good", &good).ok());
  EXPECT_EQ(good.state(), v1::MODEL_STATE_READY);
  EXPECT_EQ(good.version(), "3");
  EXPECT_EQ(good.source(), "repository");
  EXPECT_THAT(ReplicaCores(good), ElementsAre(ElementsAre(0u), ElementsAre(1u)));

  v1::ModelStatus broken;
  ASSERT_TRUE(GetModel(*daemon->stub, "broken", &broken).ok());
  EXPECT_EQ(broken.state(), v1::MODEL_STATE_FAILED);
  EXPECT_THAT(broken.error(), HasSubstr("'broken'"));
  EXPECT_THAT(broken.error(), HasSubstr("NRT_INVALID"));

  v1::ModelStatus custom;
  ASSERT_TRUE(GetModel(*daemon->stub, "custom", &custom).ok());
  EXPECT_EQ(custom.state(), v1::MODEL_STATE_READY);
  ASSERT_EQ(custom.inputs_size(), 1);
  EXPECT_THAT(custom.inputs(0).shape(), ElementsAre(1u, 2u));
  EXPECT_EQ(GetModel(*daemon->stub, "renamed", nullptr).error_code(), grpc::StatusCode::NOT_FOUND);

  // The symlink to a folder outside the repository is not loaded: it is FAILED with the reason.
  v1::ListModelsResponse list = ListModels(*daemon->stub);
  ASSERT_EQ(list.models_size(), 4) << list.DebugString();
  EXPECT_EQ(list.models(0).name(), "broken");
  EXPECT_EQ(list.models(1).name(), "custom");
  EXPECT_EQ(list.models(2).name(), "good");
  EXPECT_EQ(list.models(3).name(), "linked_folder");
  EXPECT_EQ(list.models(3).state(), v1::MODEL_STATE_FAILED);
  EXPECT_THAT(list.models(3).error(), HasSubstr("'linked_folder' resolves outside"));
  EXPECT_EQ(list.models(3).replicas_size(), 0);
}

TEST(ModelRepositoryE2ETest, LoadModelsByNameLoadsOnlyThose) {
  Repository repo;
  START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repo.root, "--load-models=good"},
                                     {{"NRTSIM_CORES", "4"}}));
  EXPECT_EQ(HealthCheck(daemon->channel, ""), kServing);
  v1::ListModelsResponse list = ListModels(*daemon->stub);
  ASSERT_EQ(list.models_size(), 1);
  EXPECT_EQ(list.models(0).name(), "good");
  EXPECT_EQ(list.models(0).state(), v1::MODEL_STATE_READY);
}

// 5. header.repository_path.
TEST(ModelRepositoryE2ETest, RepositoryPathLoadsAndStaysInsideTheRepository) {
  Repository repo;
  START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repo.root}, {{"NRTSIM_CORES", "4"}}));
  EXPECT_EQ(ListModels(*daemon->stub).models_size(), 0);

  LoadResult good = LoadFromRepository(*daemon->stub, "good");
  ASSERT_TRUE(good.status.ok()) << good.status.error_message();
  EXPECT_EQ(good.response.model().name(), "good");
  EXPECT_EQ(good.response.model().state(), v1::MODEL_STATE_READY);
  EXPECT_EQ(good.response.model().source(), "repository");
  EXPECT_EQ(good.response.model().replicas_size(), 2);

  struct Case {
    std::string path;
    grpc::StatusCode code;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"../outside", grpc::StatusCode::INVALID_ARGUMENT, "contains '..'"},
           {"good/../../outside", grpc::StatusCode::INVALID_ARGUMENT, "contains '..'"},
           {"/etc/passwd", grpc::StatusCode::INVALID_ARGUMENT, "absolute"},
           {"linked_folder", grpc::StatusCode::PERMISSION_DENIED, "outside the model repository"},
           {"linked.neff", grpc::StatusCode::PERMISSION_DENIED, "outside the model repository"},
           {"nonexistent", grpc::StatusCode::NOT_FOUND, "does not exist"},
       }) {
    LoadResult result = LoadFromRepository(*daemon->stub, c.path);
    EXPECT_EQ(result.status.error_code(), c.code)
        << c.path << ": " << result.status.error_message();
    EXPECT_THAT(result.status.error_message(), HasSubstr("'" + c.path + "'")) << c.path;
    EXPECT_THAT(result.status.error_message(), HasSubstr(c.message)) << c.path;
  }
  EXPECT_EQ(ListModels(*daemon->stub).models_size(), 1);
}

TEST(ModelRepositoryE2ETest, RepositoryPathWithoutARepositoryIsFailedPrecondition) {
  START_DAEMON(daemon, SimDaemonArgs());
  LoadResult result = LoadFromRepository(*daemon->stub, "good");
  EXPECT_EQ(result.status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(result.status.error_message(), HasSubstr("'good'"));
  EXPECT_THAT(result.status.error_message(), HasSubstr("--model-repository"));
}

// 6. Placement on 4 cores.
TEST(ModelPlacementE2ETest, ReplicasOfMultiCoreModelsAndExhaustion) {
  START_DAEMON(daemon, SimDaemonArgs({}, {{"NRTSIM_CORES", "4"}}));
  v1::ModelConfig wide = Config("wide");
  wide.set_replicas(2);
  LoadResult placed = Upload(*daemon->stub, wide, SimNeff({.nc_count = 2, .constant_floats = 8}));
  ASSERT_TRUE(placed.status.ok()) << placed.status.error_message();
  EXPECT_THAT(ReplicaCores(placed.response.model()),
              ElementsAre(ElementsAre(0u, 1u), ElementsAre(2u, 3u)));
  v1::EnumerateResponse cores = EnumerateCores(*daemon->stub);
  ASSERT_EQ(cores.cores_size(), 4);
  for (const v1::NeuronCore& core : cores.cores())
    EXPECT_THAT(ResidentModels(core), ElementsAre("wide"));

  LoadResult refused = Upload(*daemon->stub, Config("other"), SimNeff());
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.status.error_message(), HasSubstr("'other'"));
  EXPECT_THAT(refused.status.error_message(), HasSubstr("no free cores"));
  EXPECT_THAT(refused.status.error_message(), HasSubstr("held by 'wide'"));

  ASSERT_TRUE(UnloadModel(*daemon->stub, "wide").ok());
  v1::ModelConfig pinned = Config("other");
  pinned.add_start_cores(2);
  LoadResult on_two = Upload(*daemon->stub, pinned, SimNeff({.constant_floats = 8}));
  ASSERT_TRUE(on_two.status.ok()) << on_two.status.error_message();
  EXPECT_THAT(ReplicaCores(on_two.response.model()), ElementsAre(ElementsAre(2u)));
  cores = EnumerateCores(*daemon->stub);
  ASSERT_EQ(cores.cores_size(), 4);
  EXPECT_THAT(ResidentModels(cores.cores(2)), ElementsAre("other"));
  EXPECT_EQ(cores.cores(2).memory_used_bytes(), SimNeffDeviceBytes({.constant_floats = 8}));
  EXPECT_EQ(cores.cores(0).memory_used_bytes(), 0u);

  v1::ModelConfig outside = Config("far");
  outside.add_start_cores(4);
  LoadResult out_of_range = Upload(*daemon->stub, outside, SimNeff());
  EXPECT_EQ(out_of_range.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(out_of_range.status.error_message(), HasSubstr("'far'"));
  EXPECT_THAT(out_of_range.status.error_message(), HasSubstr("start core 4"));
  EXPECT_THAT(out_of_range.status.error_message(), HasSubstr("0-3"));
}

// Regression test (fixed in d226e2b): the first replica used to be loaded with nrt_load at the
// explicit start core before the CoreAllocator saw the request, so a multi-core replica running
// past the last core failed in the runtime (NRT_LOAD_NOT_ENOUGH_NC, RESOURCE_EXHAUSTED) instead
// of the allocator's INVALID_ARGUMENT.
TEST(ModelPlacementE2ETest, MultiCoreStartCoreThatLeavesTheMachineIsInvalidArgument) {
  START_DAEMON(daemon, SimDaemonArgs({}, {{"NRTSIM_CORES", "4"}}));
  v1::ModelConfig config = Config("wide");
  config.add_start_cores(3);
  LoadResult result = Upload(*daemon->stub, config, SimNeff({.nc_count = 2}));
  EXPECT_EQ(result.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
      << result.status.error_message();
  EXPECT_THAT(result.status.error_message(), HasSubstr("'wide'"));
  EXPECT_THAT(result.status.error_message(), HasSubstr("start core 3 is out of range"));
}

TEST(ModelPlacementE2ETest, SharedModelsShareAnExplicitStartCore) {
  START_DAEMON(daemon, SimDaemonArgs({}, {{"NRTSIM_CORES", "4"}}));
  for (const std::string name : {"s1", "s2"}) {
    v1::ModelConfig config = Config(name);
    config.add_start_cores(1);
    config.set_shared(true);
    LoadResult result = Upload(*daemon->stub, config, SimNeff());
    ASSERT_TRUE(result.status.ok()) << name << ": " << result.status.error_message();
    EXPECT_EQ(result.response.model().state(), v1::MODEL_STATE_READY);
    EXPECT_THAT(ReplicaCores(result.response.model()), ElementsAre(ElementsAre(1u)));
  }
  const v1::EnumerateResponse cores = EnumerateCores(*daemon->stub);
  ASSERT_EQ(cores.cores_size(), 4);
  EXPECT_THAT(ResidentModels(cores.cores(1)), UnorderedElementsAre("s1", "s2"));
  // An exclusive model may not join them.
  v1::ModelConfig exclusive = Config("x");
  exclusive.add_start_cores(1);
  LoadResult refused = Upload(*daemon->stub, exclusive, SimNeff());
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.status.error_message(), HasSubstr("'x'"));
  EXPECT_THAT(refused.status.error_message(), HasSubstr("core 1 is held by"));
}

TEST(ModelPlacementE2ETest, ExhaustionIsAllOrNothing) {
  START_DAEMON(daemon, SimDaemonArgs({}, {{"NRTSIM_CORES", "4"}}));
  v1::ModelConfig holder = Config("holder");
  holder.add_start_cores(1);
  ASSERT_TRUE(Upload(*daemon->stub, holder, SimNeff()).status.ok());

  v1::ModelConfig greedy = Config("greedy");
  greedy.set_replicas(4);
  LoadResult result = Upload(*daemon->stub, greedy, SimNeff({.constant_floats = 100}));
  EXPECT_EQ(result.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(result.status.error_message(), HasSubstr("'greedy'"));
  EXPECT_THAT(result.status.error_message(), HasSubstr("4 replicas"));
  EXPECT_THAT(result.status.error_message(), HasSubstr("only 3 fit"));
  EXPECT_THAT(result.status.error_message(), HasSubstr("free cores: 0, 2-3"));
  EXPECT_THAT(result.status.error_message(), HasSubstr("core 1 held by 'holder'"));

  v1::ModelStatus model;
  ASSERT_TRUE(GetModel(*daemon->stub, "greedy", &model).ok());
  EXPECT_EQ(model.state(), v1::MODEL_STATE_FAILED);
  EXPECT_THAT(model.error(), HasSubstr("only 3 fit"));
  v1::ListModelsResponse list = ListModels(*daemon->stub);
  ASSERT_EQ(list.models_size(), 2);
  EXPECT_EQ(list.models(0).name(), "greedy");
  EXPECT_EQ(list.models(0).state(), v1::MODEL_STATE_FAILED);

  v1::EnumerateResponse cores = EnumerateCores(*daemon->stub);
  ASSERT_EQ(cores.cores_size(), 4);
  for (uint32_t core : {0u, 2u, 3u}) {
    EXPECT_THAT(ResidentModels(cores.cores(core)), IsEmpty()) << "core " << core;
    EXPECT_EQ(cores.cores(core).memory_used_bytes(), 0u) << "core " << core;
  }
  EXPECT_THAT(ResidentModels(cores.cores(1)), ElementsAre("holder"));
}

}  // namespace
}  // namespace model_placement_e2e_test
}  // namespace neuronserve::testing
