// Issue 17's listeners and limits on the real daemon: the admin unix socket (admin calls only
// there, mode 0660, one daemon per socket path, reached by the client library and neuronctl),
// the plain-text probe listener (health only, the same statuses as the main port), the limits
// (--max-models, --max-concurrent-uploads, --max-metadata-bytes) and the start-up warning of an
// exposed listener.
#include <sys/stat.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/lib/client.h"
#include "gmock/gmock.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/neuronctl_runner.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/build_paths.h"
#include "tests/support/health_check.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "util/sha256.h"

namespace neuronserve::testing {
namespace listeners_e2e_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using HC = grpc::health::v1::HealthCheckResponse;

std::shared_ptr<grpc::Channel> Channel(const std::string& target) {
  return grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
}

// How many times `needle` occurs in `haystack`.
int Count(const std::string& haystack, const std::string& needle) {
  int count = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

// The status of a reflection stream opened and closed at once on `channel` (grpcurl's first
// call): OK where reflection is served, UNIMPLEMENTED where it is not.
grpc::Status ReflectionStatus(const std::shared_ptr<grpc::Channel>& channel) {
  grpc::CompletionQueue queue;
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  auto call = stub.PrepareCall(
      &context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &queue);
  void* tag = nullptr;
  bool ok = false;
  call->StartCall(reinterpret_cast<void*>(1));
  queue.Next(&tag, &ok);
  call->WritesDone(reinterpret_cast<void*>(2));
  queue.Next(&tag, &ok);
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(3));
  queue.Next(&tag, &ok);
  return status;
}

client::ConnectOptions To(const std::string& target) {
  client::ConnectOptions options;
  options.target = target;
  options.timeout = absl::Seconds(60);
  return options;
}

TEST(ListenersE2ETest, AdminCallsGoThroughTheUnixSocketWithMode0660) {
  TempDir dir;
  const std::string socket = dir.Join("admin.sock");
  START_DAEMON(daemon, SimDaemonArgs({"--admin-listen=unix:" + socket}));
  const std::optional<std::string> admin =
      WaitForLog(*daemon->process, "admin listener on ([^ \\n]+)");
  ASSERT_TRUE(admin.has_value()) << daemon->process->Stderr();
  EXPECT_EQ(*admin, "unix:" + socket);

  struct stat info;
  ASSERT_EQ(::stat(socket.c_str(), &info), 0);
  EXPECT_TRUE(S_ISSOCK(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0660);

  // The client library reaches the socket: admin calls, inference-scope calls and health.
  absl::StatusOr<std::unique_ptr<client::Client>> client = client::Client::Connect(To(*admin));
  ASSERT_TRUE(client.ok()) << client.status();
  const std::string neff = SimNeff();
  absl::StatusOr<v1::LoadModelResponse> loaded = (*client)->LoadModel(
      Config("relu"),
      absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(neff.data()), neff.size()));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->model().state(), v1::MODEL_STATE_READY);
  absl::StatusOr<client::HealthStatus> health = (*client)->CheckHealth("relu");
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, client::HealthStatus::kServing);

  // So does neuronctl.
  const std::string model_path = dir.Join("second.neff");
  WriteFile(model_path, neff);
  ProcessResult load = NeuronctlAt(*admin, {"load", model_path, "--name=second"});
  EXPECT_EQ(load.exit_code, 0) << load.out << load.err;
  ProcessResult probe = NeuronctlAt(*admin, {"health"});
  EXPECT_EQ(probe.exit_code, 0) << probe.out << probe.err;
  ProcessResult models = NeuronctlAt(*admin, {"models"});
  EXPECT_THAT(models.out, HasSubstr("second"));
}

// Depends on the call guard of the `auth` branch (ListenerPolicy::admin_listener_elsewhere).
TEST(ListenersE2ETest, AdminCallsOnTheMainPortArePermissionDeniedNamingTheSocket) {
  TempDir dir;
  const std::string socket = dir.Join("admin.sock");
  START_DAEMON(daemon, SimDaemonArgs({"--admin-listen=unix:" + socket}));
  LoadResult refused = Upload(*daemon->stub, Config("relu"), SimNeff());
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::PERMISSION_DENIED)
      << refused.status.error_message();
  EXPECT_THAT(refused.status.error_message(), HasSubstr("unix:" + socket));
  EXPECT_EQ(UnloadModel(*daemon->stub, "relu").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  // Inference-scope calls stay on the main port.
  EXPECT_EQ(ListModels(*daemon->stub).models_size(), 0);
}

TEST(ListenersE2ETest, ASecondDaemonOnTheSameSocketRefusesToStartNamingTheLock) {
  TempDir dir;
  const std::string socket = dir.Join("admin.sock");
  START_DAEMON(first, SimDaemonArgs({"--admin-listen=unix:" + socket}));
  DaemonProcess second(SimDaemonArgs({"--admin-listen=unix:" + socket}));
  EXPECT_EQ(second.WaitForExit(), 1) << second.Stderr();
  EXPECT_THAT(second.Stderr(), HasSubstr(socket + ".lock"));
  EXPECT_THAT(second.Stderr(), HasSubstr("another neuron-serve"));
  // The first one still serves its socket.
  EXPECT_EQ(HealthCheck(Channel("unix:" + socket), ""), HC::SERVING);
}

TEST(ListenersE2ETest, TheAdminListenerMayBeALoopbackPortNamedWithItsBoundPort) {
  START_DAEMON(daemon, SimDaemonArgs({"--admin-listen=127.0.0.1:0"}));
  const std::optional<std::string> admin =
      WaitForLog(*daemon->process, "admin listener on ([^ \\n]+)");
  ASSERT_TRUE(admin.has_value()) << daemon->process->Stderr();
  EXPECT_THAT(*admin, Not(::testing::EndsWith(":0")));
  auto stub = v1::NeuronServing::NewStub(Channel(*admin));
  EXPECT_TRUE(Upload(*stub, Config("relu"), SimNeff()).status.ok());
  EXPECT_EQ(HealthCheck(Channel(*admin), "relu"), HC::SERVING);
}

TEST(ListenersE2ETest, ANonLoopbackAdminAddressIsAStartupError) {
  DaemonProcess daemon(SimDaemonArgs({"--admin-listen=0.0.0.0:0"}));
  EXPECT_EQ(daemon.WaitForExit(), 1) << daemon.Stderr();
  EXPECT_THAT(daemon.Stderr(), HasSubstr("--admin-listen='0.0.0.0:0' is not a loopback address"));
}

TEST(ListenersE2ETest, TheHealthListenerSaysWhatTheMainPortSaysAndServesNothingElse) {
  TempDir repo;
  simmodel::SimModel slow = IdentityModel({1, 4});
  slow.load_latency_ms = 1500;
  WriteFile(repo.Join("slow/model.neff"), EncodeNeff(slow));
  WriteFile(repo.Join("slow/config.pbtxt"), "name: \"slow\"\n");
  DaemonProcess daemon(SimDaemonArgs(
      {"--model-repository=" + repo.path(), "--load-models=all", "--health-listen=127.0.0.1:0"}));
  const std::optional<std::string> probe_address =
      WaitForLog(daemon, "health listener on ([^ \\n]+)");
  const std::optional<std::string> main_address = WaitForLog(daemon, "gRPC bound to ([^;]+);");
  ASSERT_TRUE(probe_address.has_value() && main_address.has_value()) << daemon.Stderr();
  EXPECT_THAT(*probe_address, Not(::testing::EndsWith(":0")));
  auto probe = Channel(*probe_address);
  auto main = Channel(*main_address);

  // While the startup model loads: NOT_SERVING on both.
  EXPECT_EQ(HealthCheck(probe, ""), HC::NOT_SERVING);
  EXPECT_EQ(HealthCheck(main, ""), HC::NOT_SERVING);
  ASSERT_TRUE(daemon.WaitUntilListening(absl::Seconds(30)).has_value()) << daemon.Stderr();
  EXPECT_EQ(HealthCheck(probe, ""), HC::SERVING);
  EXPECT_EQ(HealthCheck(main, ""), HC::SERVING);
  EXPECT_EQ(HealthCheck(probe, "slow"), HC::SERVING);
  EXPECT_EQ(HealthCheck(probe, "neuronserve/liveness"), HC::SERVING);

  // Only health: the API and reflection are not there (they are on the main port).
  v1::ListModelsRequest request;
  v1::ListModelsResponse response;
  grpc::ClientContext context;
  grpc::Status listed = v1::NeuronServing::NewStub(probe)->ListModels(&context, request, &response);
  EXPECT_EQ(listed.error_code(), grpc::StatusCode::UNIMPLEMENTED) << listed.error_message();
  EXPECT_EQ(ReflectionStatus(probe).error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_TRUE(ReflectionStatus(main).ok()) << ReflectionStatus(main).error_message();

  // The model's unload turns its service NOT_SERVING on the probe port too.
  auto stub = v1::NeuronServing::NewStub(main);
  ASSERT_TRUE(UnloadModel(*stub, "slow").ok());
  EXPECT_TRUE(WaitUntil([&] { return HealthCheck(main, "slow") == HC::NOT_SERVING; }));
  EXPECT_EQ(HealthCheck(probe, "slow"), HC::NOT_SERVING);
}

TEST(ListenersE2ETest, MaxModelsRefusesANewModelButNotANewVersion) {
  START_DAEMON(daemon, SimDaemonArgs({"--max-models=1"}));
  ASSERT_TRUE(Upload(*daemon->stub, Config("a", "1"), SimNeff()).status.ok());
  LoadResult refused = Upload(*daemon->stub, Config("b"), SimNeff());
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.status.error_message(), HasSubstr("--max-models=1"));
  LoadResult replaced = Upload(*daemon->stub, Config("a", "2"), SimNeff({.tag = "2"}));
  EXPECT_TRUE(replaced.status.ok()) << replaced.status.error_message();
  ASSERT_TRUE(UnloadModel(*daemon->stub, "a").ok());
  LoadResult after = Upload(*daemon->stub, Config("b"), SimNeff());
  EXPECT_TRUE(after.status.ok()) << after.status.error_message();
}

TEST(ListenersE2ETest, StartupModelsPastMaxModelsAreFailedWithTheLimit) {
  TempDir repo;
  for (const char* name : {"one", "two"}) {
    WriteFile(repo.Join(absl::StrCat(name, "/model.neff")), SimNeff());
    WriteFile(repo.Join(absl::StrCat(name, "/config.pbtxt")),
              absl::StrCat("name: \"", name, "\"\n"));
  }
  START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repo.path(), "--load-models=all",
                                      "--max-models=1"}));
  const v1::ListModelsResponse models = ListModels(*daemon->stub);
  ASSERT_EQ(models.models_size(), 2);
  int ready = 0;
  int failed = 0;
  for (const v1::ModelStatus& model : models.models()) {
    if (model.state() == v1::MODEL_STATE_READY) ++ready;
    if (model.state() == v1::MODEL_STATE_FAILED) {
      ++failed;
      EXPECT_THAT(model.error(), HasSubstr("--max-models=1"));
    }
  }
  EXPECT_EQ(ready, 1);
  EXPECT_EQ(failed, 1);
}

TEST(ListenersE2ETest, MaxConcurrentUploadsRefusesTheOneTooManyUntilOneEnds) {
  START_DAEMON(daemon, SimDaemonArgs({"--max-concurrent-uploads=1"}));
  const std::string neff = SimNeff();
  // An upload held open: header sent, bytes not yet. The server takes a call's slot when its
  // handler runs, a moment after the call starts, and the two calls below travel separately: the
  // probing upload can reach its handler first, and then the held one is the one refused. Only
  // a RESOURCE_EXHAUSTED probe proves that the held call has the slot; any other answer ends
  // that held call and starts a new one.
  std::unique_ptr<grpc::ClientContext> held_context;
  v1::LoadModelResponse held_response;
  std::unique_ptr<grpc::ClientWriter<v1::LoadModelRequest>> held;
  auto open_held = [&] {
    if (held != nullptr) {
      held->WritesDone();
      held->Finish();  // refused, or incomplete: either way over
    }
    held_context = std::make_unique<grpc::ClientContext>();
    held = daemon->stub->LoadModel(held_context.get(), &held_response);
    v1::LoadModelRequest header;
    *header.mutable_header()->mutable_config() = Config("held");
    header.mutable_header()->set_total_size(neff.size());
    header.mutable_header()->set_sha256(Sha256Hex(neff));
    return held->Write(header);
  };
  ASSERT_TRUE(open_held());
  LoadResult refused;
  EXPECT_TRUE(WaitUntil([&] {
    refused = Upload(*daemon->stub, Config("other"), neff);
    if (refused.status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) return true;
    if (refused.status.ok()) UnloadModel(*daemon->stub, "other");
    open_held();
    return false;
  })) << refused.status.error_message();
  EXPECT_THAT(refused.status.error_message(), HasSubstr("--max-concurrent-uploads=1"));

  v1::LoadModelRequest chunk;
  chunk.set_chunk(neff);
  ASSERT_TRUE(held->Write(chunk));
  held->WritesDone();
  grpc::Status held_status = held->Finish();
  EXPECT_TRUE(held_status.ok()) << held_status.error_message();
  // The slot is free again once the held call is done.
  LoadResult after;
  EXPECT_TRUE(WaitUntil([&] {
    after = Upload(*daemon->stub, Config("other"), neff);
    return after.status.ok();
  })) << after.status.error_message();
}

TEST(ListenersE2ETest, MaxMetadataBytesRefusesLargeHeadersNamingTheFlag) {
  START_DAEMON(daemon, SimDaemonArgs({"--max-metadata-bytes=1024"}));
  auto list_with = [&](size_t pad_bytes, std::string* message) {
    grpc::ClientContext context;
    context.AddMetadata("x-pad", std::string(pad_bytes, 'p'));
    v1::ListModelsResponse response;
    grpc::Status status = daemon->stub->ListModels(&context, v1::ListModelsRequest(), &response);
    *message = status.error_message();
    return status.error_code();
  };
  std::string message;
  EXPECT_EQ(list_with(2000, &message), grpc::StatusCode::RESOURCE_EXHAUSTED) << message;
  EXPECT_THAT(message, HasSubstr("--max-metadata-bytes=1024"));
  EXPECT_EQ(list_with(100, &message), grpc::StatusCode::OK) << message;
  // The streaming methods check it too, before anything is read.
  {
    grpc::ClientContext context;
    context.AddMetadata("x-pad", std::string(2000, 'p'));
    auto stream = daemon->stub->InferStream(&context);
    stream->WritesDone();
    grpc::Status status = stream->Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_THAT(status.error_message(), HasSubstr("--max-metadata-bytes=1024"));
  }
  {
    grpc::ClientContext context;
    context.AddMetadata("x-pad", std::string(2000, 'p'));
    v1::LoadModelResponse response;
    auto upload = daemon->stub->LoadModel(&context, &response);
    upload->WritesDone();
    grpc::Status status = upload->Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_THAT(status.error_message(), HasSubstr("--max-metadata-bytes=1024"));
  }
  // Far past it, gRPC's own limit (server/grpc/metadata_limit.h: MetadataLimitFor) answers
  // before the handler.
  const grpc::StatusCode far = list_with(64 * 1024, &message);
  EXPECT_EQ(far, grpc::StatusCode::RESOURCE_EXHAUSTED) << message;
  EXPECT_THAT(message, HasSubstr("metadata size exceeds limit"));
  // gRPC closed that connection: a call racing the close may still see "Socket closed", and
  // channels to the same target share connections (the global subchannel pool). The daemon
  // serves the next connection: a channel of its own, asked until it answers.
  grpc::ChannelArguments own_connection;
  own_connection.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  auto fresh = v1::NeuronServing::NewStub(grpc::CreateCustomChannel(
      daemon->address, grpc::InsecureChannelCredentials(), own_connection));
  grpc::Status listed;
  EXPECT_TRUE(WaitUntil([&] {
    v1::ListModelsResponse response;
    grpc::ClientContext next;
    next.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    listed = fresh->ListModels(&next, v1::ListModelsRequest(), &response);
    return listed.ok();
  })) << listed.error_message();
}

TEST(ListenersE2ETest, ZeroLimitsAreRefusedAtStart) {
  for (const char* flag :
       {"--max-models=0", "--max-concurrent-uploads=0", "--max-metadata-bytes=0"}) {
    DaemonProcess daemon(SimDaemonArgs({flag}));
    EXPECT_EQ(daemon.WaitForExit(), 2) << flag;
    EXPECT_THAT(daemon.Stderr(), HasSubstr("must be at least 1")) << flag;
  }
}

TEST(ListenersE2ETest, AnExposedListenerWarnsOnceAtStart) {
  constexpr char kWarning[] = "is reachable from other machines without TLS or tokens";
  {
    DaemonArgs args = SimDaemonArgs();
    args.flags.push_back("--listen=0.0.0.0:0");
    DaemonProcess exposed(args);
    ASSERT_TRUE(exposed.WaitUntilListening().has_value()) << exposed.Stderr();
    EXPECT_EQ(Count(exposed.Stderr(), kWarning), 1) << exposed.Stderr();
    EXPECT_THAT(exposed.Stderr(), HasSubstr("--tls-cert"));
    EXPECT_THAT(exposed.Stderr(), HasSubstr("--infer-token-file"));
  }
  DaemonArgs args = SimDaemonArgs();
  args.flags.push_back("--listen=127.0.0.1:0");
  DaemonProcess loopback(args);
  ASSERT_TRUE(loopback.WaitUntilListening().has_value()) << loopback.Stderr();
  EXPECT_EQ(Count(loopback.Stderr(), kWarning), 0) << loopback.Stderr();
}

}  // namespace
}  // namespace listeners_e2e_test
}  // namespace neuronserve::testing
