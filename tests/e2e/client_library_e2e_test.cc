// The C++ client library (client/lib/) against the real daemon on loopback: Enumerate, the
// LoadModel forms, ListModels and GetModel, health, unload, the connection failure, the bearer
// token and a dns:/// target. Infer and InferSession: client_library_infer_e2e_test.cc.
#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "client/lib/client.h"
#include "client/simmodel/mlp_model.h"
#include "gmock/gmock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "sim/simmodel/sim_model.h"
#include "tests/e2e/client_library_support.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace client_library_e2e_test {
namespace {

std::string PortOf(const std::string& address) { return address.substr(address.rfind(':') + 1); }

struct ProgressLog {
  std::vector<uint64_t> sent;
  std::vector<uint64_t> totals;
  client::LoadProgress Callback() {
    return [this](uint64_t s, uint64_t total) {
      sent.push_back(s);
      totals.push_back(total);
    };
  }
};

// The health status of `service`, polled until it is `wanted` or 10 s pass: the daemon
// re-evaluates health on its own thread, so a status may trail the change that causes it.
absl::StatusOr<HealthStatus> WaitForHealth(Client& client, const std::string& service,
                                           HealthStatus wanted) {
  absl::StatusOr<HealthStatus> status;
  WaitUntil([&] {
    status = client.CheckHealth(service);
    return status.ok() && *status == wanted;
  }, absl::Seconds(10));
  return status;
}

TEST(ClientLibraryE2ETest, EnumerateSeesTheSimulatorsTwoCores) {
  START_DAEMON(daemon, SimDaemonArgs());
  CONNECT(client, To(daemon->address));
  EXPECT_EQ(client->target(), daemon->address);
  ASSERT_TRUE(client->WaitForReady(absl::Seconds(10)).ok());
  absl::StatusOr<v1::EnumerateResponse> cores = client->Enumerate();
  ASSERT_TRUE(cores.ok()) << cores.status();
  EXPECT_EQ(cores->visible_cores(), 2u);
  ASSERT_EQ(cores->cores_size(), 2);
  EXPECT_EQ(cores->cores(0).index(), 0u);
  EXPECT_EQ(cores->cores(1).index(), 1u);
}

TEST(ClientLibraryE2ETest, LoadModelFromFileReportsProgressUpToTheFileSize) {
  START_DAEMON(daemon, SimDaemonArgs());
  CONNECT(client, To(daemon->address));
  TempDir dir;
  const std::string neff = EncodeNeff(IdentityModel({1, 4}));
  const std::string path = dir.Join("identity.neff");
  WriteFile(path, neff);

  ProgressLog progress;
  absl::StatusOr<v1::LoadModelResponse> loaded =
      client->LoadModelFromFile(Config("id", "1"), path, progress.Callback());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->model().name(), "id");
  EXPECT_EQ(loaded->model().version(), "1");
  EXPECT_EQ(loaded->model().state(), v1::MODEL_STATE_READY);
  EXPECT_EQ(loaded->model().source(), "upload");

  ASSERT_FALSE(progress.sent.empty());
  EXPECT_TRUE(std::is_sorted(progress.sent.begin(), progress.sent.end()));
  EXPECT_EQ(progress.sent.back(), neff.size());
  for (uint64_t total : progress.totals) EXPECT_EQ(total, neff.size());
}

TEST(ClientLibraryE2ETest, LoadModelFromFileNamesAMissingOrUnreadableFile) {
  START_DAEMON(daemon, SimDaemonArgs());
  CONNECT(client, To(daemon->address));
  TempDir dir;
  const std::string missing = dir.Join("missing.neff");
  absl::StatusOr<v1::LoadModelResponse> loaded = client->LoadModelFromFile(Config("m"), missing);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound) << loaded.status();
  EXPECT_THAT(loaded.status().message(), HasSubstr(missing));

  // root reads any file whatever its mode, so the permission case needs an ordinary user.
  if (::geteuid() != 0) {
    const std::string locked = dir.Join("locked.neff");
    WriteFile(locked, EncodeNeff(IdentityModel({1, 4})));
    ASSERT_EQ(::chmod(locked.c_str(), 0), 0);
    loaded = client->LoadModelFromFile(Config("m"), locked);
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kPermissionDenied) << loaded.status();
    EXPECT_THAT(loaded.status().message(), HasSubstr(locked));
  }
  absl::StatusOr<std::vector<v1::ModelStatus>> models = client->ListModels();
  ASSERT_TRUE(models.ok()) << models.status();
  EXPECT_TRUE(models->empty());
}

TEST(ClientLibraryE2ETest, LoadModelSendsALargeNeffInMebibyteChunks) {
  START_DAEMON(daemon, SimDaemonArgs());
  CONNECT(client, To(daemon->address));
  simmodel::MlpOptions options;
  options.layer_sizes = {512, 1024, 8};
  options.seed = 20270101;
  absl::StatusOr<simmodel::SimModel> mlp = simmodel::BuildMlpModel(options);
  ASSERT_TRUE(mlp.ok()) << mlp.status();
  const std::string neff = EncodeNeff(*mlp);
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  ASSERT_GT(neff.size(), 2 * kMiB);

  ProgressLog progress;
  absl::StatusOr<v1::LoadModelResponse> loaded =
      client->LoadModel(Config("mlp"), Bytes(neff), progress.Callback());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->model().state(), v1::MODEL_STATE_READY);

  // One call per chunk, each chunk a full MiB but the last.
  const uint64_t chunks = (neff.size() + kMiB - 1) / kMiB;
  ASSERT_EQ(progress.sent.size(), chunks);
  for (uint64_t i = 0; i < chunks; ++i) {
    EXPECT_EQ(progress.sent[i], std::min<uint64_t>((i + 1) * kMiB, neff.size())) << i;
    EXPECT_EQ(progress.totals[i], neff.size());
  }

  // And the model that arrived is the one sent.
  std::vector<float> row(512);
  for (size_t i = 0; i < row.size(); ++i) row[i] = std::sin(0.1f * static_cast<float>(i));
  absl::StatusOr<InferResult> result = client->Infer("mlp", {{"input", {1, 512}, row}});
  ASSERT_TRUE(result.ok()) << result.status();
  const std::vector<double> expected = MlpReference(*mlp, row, 2);
  const std::vector<float>& got = result->outputs.at("output").values;
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-4) << i;
}

TEST(ClientLibraryE2ETest, LoadModelFromRepositoryNamesTheFolder) {
  TempDir repository;
  WriteFile(repository.Join("m/model.neff"), EncodeNeff(IdentityModel({1, 4})));
  WriteFile(repository.Join("m/config.pbtxt"), "version: \"7\"\n");
  START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repository.path()}));
  CONNECT(client, To(daemon->address));

  absl::StatusOr<v1::LoadModelResponse> loaded = client->LoadModelFromRepository({}, "m");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->model().name(), "m");
  EXPECT_EQ(loaded->model().version(), "7");
  EXPECT_EQ(loaded->model().source(), "repository");

  loaded = client->LoadModelFromRepository({}, "nonexistent");
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound) << loaded.status();
  EXPECT_THAT(loaded.status().message(), HasSubstr("'nonexistent'"));
}

TEST(ClientLibraryE2ETest, ListModelsAndGetModelDescribeTheModels) {
  START_DAEMON(daemon, SimDaemonArgs());
  CONNECT(client, To(daemon->address));
  const std::string neff = EncodeNeff(IdentityModel({1, 4}));
  ASSERT_TRUE(client->LoadModel(Config("b"), Bytes(neff)).ok());
  ASSERT_TRUE(client->LoadModel(Config("a", "2"), Bytes(neff)).ok());

  absl::StatusOr<std::vector<v1::ModelStatus>> models = client->ListModels();
  ASSERT_TRUE(models.ok()) << models.status();
  ASSERT_EQ(models->size(), 2u);
  EXPECT_EQ((*models)[0].name(), "a");
  EXPECT_EQ((*models)[1].name(), "b");

  absl::StatusOr<v1::ModelStatus> a = client->GetModel("a");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->version(), "2");
  EXPECT_EQ(a->state(), v1::MODEL_STATE_READY);
  ASSERT_EQ(a->inputs_size(), 1);
  EXPECT_EQ(a->inputs(0).name(), "input");
  EXPECT_THAT(a->inputs(0).shape(), ElementsAre(1u, 4u));
  ASSERT_EQ(a->outputs_size(), 1);
  EXPECT_EQ(a->outputs(0).name(), "output");
  ASSERT_EQ(a->replicas_size(), 1);
}

TEST(ClientLibraryE2ETest, CheckHealthServesTheDaemonAndRefusesUnknownServices) {
  START_DAEMON(daemon, SimDaemonArgs());
  CONNECT(client, To(daemon->address));
  absl::StatusOr<HealthStatus> overall = WaitForHealth(*client, "", HealthStatus::kServing);
  ASSERT_TRUE(overall.ok()) << overall.status();
  EXPECT_EQ(*overall, HealthStatus::kServing);

  absl::StatusOr<HealthStatus> unknown = client->CheckHealth("no-such-model");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound) << unknown.status();

  ASSERT_TRUE(client->LoadModel(Config("m"), Bytes(EncodeNeff(IdentityModel({1, 4})))).ok());
  absl::StatusOr<HealthStatus> model = WaitForHealth(*client, "m", HealthStatus::kServing);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(*model, HealthStatus::kServing);
  EXPECT_EQ(client::HealthStatusName(*model), "SERVING");
}

TEST(ClientLibraryE2ETest, UnloadThenGetModelIsNotFound) {
  START_DAEMON(daemon, SimDaemonArgs());
  CONNECT(client, To(daemon->address));
  ASSERT_TRUE(client->LoadModel(Config("m"), Bytes(EncodeNeff(IdentityModel({1, 4})))).ok());

  absl::StatusOr<v1::UnloadModelResponse> unloaded = client->Unload("m");
  ASSERT_TRUE(unloaded.ok()) << unloaded.status();
  EXPECT_EQ(unloaded->model().name(), "m");

  absl::StatusOr<v1::ModelStatus> gone = client->GetModel("m");
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kNotFound) << gone.status();
  EXPECT_EQ(client->Unload("m").status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<std::vector<v1::ModelStatus>> models = client->ListModels();
  ASSERT_TRUE(models.ok()) << models.status();
  EXPECT_TRUE(models->empty());
}

TEST(ClientLibraryE2ETest, AnUnreachableServerIsUnavailableNamingTheTarget) {
  const std::string target = "127.0.0.1:1";
  ConnectOptions options = To(target);
  options.timeout = absl::Seconds(10);
  // Connect is lazy: nothing is tried yet.
  CONNECT(client, options);

  const absl::Time start = absl::Now();
  absl::StatusOr<v1::EnumerateResponse> cores = client->Enumerate();
  EXPECT_LT(absl::Now() - start, options.timeout);
  EXPECT_EQ(cores.status().code(), absl::StatusCode::kUnavailable) << cores.status();
  EXPECT_THAT(cores.status().message(), HasSubstr(target));

  absl::StatusOr<InferResult> result = client->Infer("m", {});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable) << result.status();
  EXPECT_THAT(result.status().message(), HasSubstr(target));

  absl::Status ready = client->WaitForReady(absl::Milliseconds(300));
  EXPECT_EQ(ready.code(), absl::StatusCode::kUnavailable) << ready;
  EXPECT_THAT(ready.message(), HasSubstr(target));

  absl::StatusOr<std::unique_ptr<InferSession>> session = client->OpenStream();
  ASSERT_TRUE(session.ok()) << session.status();
  (*session)->Send("m", {}).IgnoreError();  // may be taken before the stream fails
  absl::Status finished = (*session)->Finish();
  EXPECT_EQ(finished.code(), absl::StatusCode::kUnavailable) << finished;
  EXPECT_THAT(finished.message(), HasSubstr(target));
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
}

// Records the authorization header of each health check it answers.
class RecordingHealthService final : public grpc::health::v1::Health::Service {
 public:
  grpc::Status Check(grpc::ServerContext* context,
                     const grpc::health::v1::HealthCheckRequest* /*request*/,
                     grpc::health::v1::HealthCheckResponse* response) override {
    const auto& metadata = context->client_metadata();
    auto found = metadata.find("authorization");
    absl::MutexLock lock(&mutex_);
    seen_.push_back(found == metadata.end()
                        ? std::string("<none>")
                        : std::string(found->second.data(), found->second.size()));
    response->set_status(grpc::health::v1::HealthCheckResponse::SERVING);
    return grpc::Status::OK;
  }

  std::vector<std::string> seen() {
    absl::MutexLock lock(&mutex_);
    return seen_;
  }

 private:
  absl::Mutex mutex_;
  std::vector<std::string> seen_ ABSL_GUARDED_BY(mutex_);
};

TEST(ClientLibraryE2ETest, TheTokenIsSentAsBearerMetadataOnEveryCall) {
  // A recording server shows what goes on the wire...
  RecordingHealthService recorder;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&recorder);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  const std::string address = absl::StrCat("127.0.0.1:", port);

  ConnectOptions with_token = To(address);
  with_token.token = "s3cret-token";
  CONNECT(token_client, with_token);
  ASSERT_TRUE(token_client->CheckHealth().ok());
  ASSERT_TRUE(token_client->CheckHealth("x").ok());

  TempDir dir;
  ConnectOptions with_file = To(address);
  with_file.token_file = dir.Join("token");
  WriteFile(with_file.token_file, "from-file\n  \n");
  CONNECT(file_client, with_file);
  ASSERT_TRUE(file_client->CheckHealth().ok());

  CONNECT(plain_client, To(address));
  ASSERT_TRUE(plain_client->CheckHealth().ok());
  EXPECT_THAT(recorder.seen(), ElementsAre("Bearer s3cret-token", "Bearer s3cret-token",
                                           "Bearer from-file", "<none>"));
  server->Shutdown();

  // ...and the daemon, which does not check tokens, still answers a call carrying one.
  START_DAEMON(daemon, SimDaemonArgs());
  with_token.target = daemon->address;
  CONNECT(daemon_client, with_token);
  absl::StatusOr<v1::EnumerateResponse> cores = daemon_client->Enumerate();
  EXPECT_TRUE(cores.ok()) << cores.status();
}

TEST(ClientLibraryE2ETest, ConnectRejectsBadOptionsNamingTheFile) {
  EXPECT_EQ(Client::Connect(ConnectOptions()).status().code(), absl::StatusCode::kInvalidArgument);

  ConnectOptions both = To("127.0.0.1:1");
  both.token = "a";
  both.token_file = "/nonexistent/token";
  EXPECT_EQ(Client::Connect(both).status().code(), absl::StatusCode::kInvalidArgument);

  ConnectOptions missing_file = To("127.0.0.1:1");
  missing_file.token_file = "/nonexistent/token";
  absl::Status missing = Client::Connect(missing_file).status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound) << missing;
  EXPECT_THAT(missing.message(), HasSubstr("/nonexistent/token"));

  ConnectOptions tls_without_tls = To("127.0.0.1:1");
  tls_without_tls.tls_ca_file = "/nonexistent/ca.pem";
  EXPECT_EQ(Client::Connect(tls_without_tls).status().code(), absl::StatusCode::kInvalidArgument);

  ConnectOptions missing_ca = To("127.0.0.1:1");
  missing_ca.tls = true;
  missing_ca.tls_ca_file = "/nonexistent/ca.pem";
  absl::Status ca = Client::Connect(missing_ca).status();
  EXPECT_EQ(ca.code(), absl::StatusCode::kNotFound) << ca;
  EXPECT_THAT(ca.message(), HasSubstr("/nonexistent/ca.pem"));

  ConnectOptions half_pair = To("127.0.0.1:1");
  half_pair.tls = true;
  half_pair.tls_cert_file = "/nonexistent/cert.pem";
  EXPECT_EQ(Client::Connect(half_pair).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ClientLibraryE2ETest, ADnsTargetReachesTheDaemon) {
  // gRPC's native resolver (getaddrinfo) rather than its default c-ares one: Debian's libcares
  // leaks 10 bytes per lookup, which LeakSanitizer (the ASan build) reports as this test's.
  // Set before this process's first gRPC call, which is where gRPC reads it. What is tested,
  // dns:/// resolution and round_robin over the addresses, is the same with either.
  setenv("GRPC_DNS_RESOLVER", "native", 1);
  START_DAEMON(daemon, SimDaemonArgs());
  ASSERT_TRUE(Upload(*daemon->stub, Config("id"), EncodeNeff(IdentityModel({1, 4}))).status.ok());
  const std::string target = "dns:///localhost:" + PortOf(daemon->address);
  CONNECT(client, To(target));
  ASSERT_TRUE(client->WaitForReady(absl::Seconds(10)).ok());
  // localhost may also resolve to ::1, where nothing listens; round_robin picks only the
  // connected address, so every call still succeeds.
  const std::vector<float> values = {1, 2, 3, 4};
  for (int i = 0; i < 10; ++i) {
    absl::StatusOr<InferResult> result = client->Infer("id", {{"input", {1, 4}, values}});
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_THAT(result->outputs.at("output").values, ElementsAre(1, 2, 3, 4));
  }
}

}  // namespace
}  // namespace client_library_e2e_test
}  // namespace neuronserve::testing
