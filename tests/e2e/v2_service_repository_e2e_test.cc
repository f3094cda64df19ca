// The Open Inference Protocol's repository extension through the real daemon (index, load with a
// JSON config, unload, each refusal), tokens (probes need none; metadata needs infer; the
// repository needs admin), the admin listener, and the audit lines of the repository calls.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "neuron_serve_version.h"  // generated in the build tree (server/oip/CMakeLists.txt)
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/e2e/v2_service_client.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing {
namespace v2_service_e2e_test {
namespace {

constexpr char kV2InferToken[] = "v2-e2e-infer-token-7d1c0b2a99e8";
constexpr char kV2AdminToken[] = "v2-e2e-admin-token-3e4f5a6b7c8d";

// "name:STATE" for each model of an index, in its order.
std::vector<std::string> IndexStates(const inference::RepositoryIndexResponse& index) {
  std::vector<std::string> states;
  for (const auto& model : index.models()) {
    states.push_back(absl::StrCat(model.name(), ":", model.state()));
  }
  return states;
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
