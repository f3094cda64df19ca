// deploy/kserve: renders it (and its examples/) with `kubectl kustomize` and checks what KServe
// needs of the two ClusterServingRuntimes, REST and gRPC (model format, the one protocol and the
// one container port each, the container KServe completes, its probes and NeuronCores) and of the
// example InferenceServices; then runs the daemon with each runtime's own arguments on the
// simulator, as KServe would start it (its {{.Name}} replaced by the InferenceService's name,
// /mnt/models a folder the test fills in each layout the storage initializer can leave), and asks
// it what KServe's clients and probes ask. Which runtime KServe picks for which InferenceService,
// and what Knative accepts of the pod, is deploy.KServeRuntimeSelection's (python/).
#include <signal.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/lifecycle/model_name.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "tests/deploy/deploy_tools.h"
#include "tests/deploy/manifest.h"
#include "tests/deploy/pod_runner.h"
#include "tests/support/http_get.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/temp_dir.h"
#include "tests/support/build_paths.h"

namespace neuronserve::testing {
namespace {

const std::string kKServeDir = std::string(DEPLOY_DIR) + "/kserve";
const std::string kExamplesDir = kKServeDir + "/examples";
// The container KServe completes (adds the model volume to, merges resources into).
constexpr char kKServeContainer[] = "kserve-container";
constexpr char kModelMount[] = "/mnt/models";
constexpr char kNameTemplate[] = "{{.Name}}";
constexpr char kNeuronCore[] = "aws.amazon.com/neuroncore";
// KServe's ports: HTTP on 8080, gRPC (h2c) on 8081.
constexpr int kHttpPort = 8080;
constexpr int kGrpcPort = 8081;
constexpr int kHealthServing = 1;  // grpc.health.v1 SERVING
constexpr char kKServeLivenessService[] = "neuronserve/liveness";
constexpr char kRestRuntime[] = "neuron-serve";
constexpr char kGrpcRuntime[] = "neuron-serve-grpc";

// What each runtime is for: its one protocol and its one container port.
struct RuntimeCase {
  const char* name;
  const char* protocol;
  const char* port_name;
  int port;
};
const RuntimeCase kRuntimes[] = {{kRestRuntime, "v2", "http1", kHttpPort},
                                 {kGrpcRuntime, "grpc-v2", "h2c", kGrpcPort}};
void PrintTo(const RuntimeCase& runtime, std::ostream* out) { *out << runtime.name; }

YAML::Node Runtime(const Manifest& manifest, const std::string& name) {
  std::optional<YAML::Node> runtime = manifest.Find("ClusterServingRuntime", name);
  EXPECT_TRUE(runtime.has_value()) << "no ClusterServingRuntime " << name;
  return runtime.value_or(YAML::Node(YAML::NodeType::Undefined));
}

YAML::Node Service(const Manifest& manifest) {
  std::vector<YAML::Node> services = manifest.OfKind("InferenceService");
  EXPECT_EQ(services.size(), 1u);
  return services.empty() ? YAML::Node(YAML::NodeType::Undefined) : services.front();
}

class KServeManifestTest : public ::testing::TestWithParam<RuntimeCase> {
 protected:
  void SetUp() override {
    absl::StatusOr<Manifest> manifest = Manifest::RenderDir(kKServeDir);
    ASSERT_TRUE(manifest.ok()) << manifest.status();
    manifest_ = *std::move(manifest);
    ASSERT_EQ(manifest_.OfKind("ClusterServingRuntime").size(), std::size(kRuntimes));
    runtime_ = Runtime(manifest_, GetParam().name);
    ASSERT_TRUE(runtime_.IsDefined());
    std::optional<ContainerRef> container = ContainerNamed(runtime_["spec"], kKServeContainer);
    ASSERT_TRUE(container.has_value()) << "no container named " << kKServeContainer;
    container_ = container->node;
  }
  std::string Flag(const std::string& name) const {
    std::optional<std::string> value = EffectiveFlag(container_, name);
    EXPECT_TRUE(value.has_value()) << "the daemon has no flag --" << name;
    return value.value_or("");
  }

  Manifest manifest_;
  YAML::Node runtime_;
  YAML::Node container_;
};

TEST_P(KServeManifestTest, TheRuntimeServesTheNeuronFormatOverItsOneProtocol) {
  EXPECT_EQ(runtime_["apiVersion"].as<std::string>(""), "serving.kserve.io/v1alpha1");
  const YAML::Node formats = At(runtime_, {"spec", "supportedModelFormats"});
  ASSERT_TRUE(formats.IsSequence());
  bool neuron = false;
  for (const YAML::Node& format : formats) {
    if (format["name"].as<std::string>("") != "neuron") continue;
    neuron = true;
    EXPECT_EQ(format["version"].as<std::string>(""), "1");
    EXPECT_TRUE(format["autoSelect"].as<bool>(false));
  }
  EXPECT_TRUE(neuron) << "no supported model format named neuron";
  // One protocol each: KServe picks the runtime by the InferenceService's protocolVersion, and
  // each protocol needs its own port in Serverless mode.
  EXPECT_EQ(StringList(At(runtime_, {"spec", "protocolVersions"})),
            std::vector<std::string>{GetParam().protocol});
  EXPECT_FALSE(At(runtime_, {"spec", "multiModel"}).as<bool>(true));
}

TEST_P(KServeManifestTest, TheContainerIsTheImageOfTheOtherManifestsWithTheModelDirFlags) {
  absl::StatusOr<Manifest> daemonset = Manifest::Render("daemonset");
  ASSERT_TRUE(daemonset.ok()) << daemonset.status();
  std::optional<ContainerRef> daemon =
      ContainerNamed(PodSpecOf(*daemonset->Workload()), kDaemonContainer);
  ASSERT_TRUE(daemon.has_value());
  EXPECT_EQ(container_["image"].as<std::string>(""), daemon->node["image"].as<std::string>("-"));
  EXPECT_EQ(container_["image"].as<std::string>(""), kNeuronImage);
  EXPECT_FALSE(container_["command"].IsDefined()) << "the image's ENTRYPOINT is the daemon";

  const std::vector<std::string> args = StringList(container_["args"]);
  for (const std::string& wanted :
       {absl::StrCat("--model-dir=", kModelMount), absl::StrCat("--model-name=", kNameTemplate)}) {
    EXPECT_NE(std::find(args.begin(), args.end(), wanted), args.end())
        << "args lack " << wanted << ": " << absl::StrJoin(args, " ");
  }
  // Every argument is a flag the daemon has (EffectiveFlag knows them from --helpfull).
  for (const std::string& arg : args) {
    ASSERT_TRUE(absl::StartsWith(arg, "--")) << arg;
    const std::string name = arg.substr(2, arg.find('=') - 2);
    EXPECT_TRUE(DaemonFlagDefaults().contains(CanonicalFlagName(name))) << "unknown flag " << arg;
  }
  EXPECT_EQ(Flag("model_repository"), "");
  EXPECT_EQ(Flag("load_models"), "");
  // Both runtimes are the same daemon: only the protocol, the port and the probes differ.
  std::optional<ContainerRef> rest =
      ContainerNamed(At(Runtime(manifest_, kRestRuntime), {"spec"}), kKServeContainer);
  ASSERT_TRUE(rest.has_value());
  EXPECT_EQ(StringList(container_["args"]), StringList(rest->node["args"]));
}

TEST_P(KServeManifestTest, OneContainerPortThatTheDaemonListensOn) {
  // Knative (Serverless mode) accepts exactly one, named h2c (gRPC) or http1.
  const YAML::Node ports = container_["ports"];
  ASSERT_TRUE(ports.IsSequence());
  ASSERT_EQ(ports.size(), 1u);
  EXPECT_EQ(ports[0]["name"].as<std::string>(""), GetParam().port_name);
  EXPECT_EQ(ports[0]["containerPort"].as<int>(-1), GetParam().port);
  EXPECT_EQ(ports[0]["protocol"].as<std::string>("TCP"), "TCP");
  // The daemon listens for both protocols in either runtime (an InferenceService in
  // RawDeployment mode may add the other port), on every interface: KServe's Service and the
  // kubelet's probes come from outside the container.
  EXPECT_EQ(PortOf(Flag("http_listen")), kHttpPort);
  EXPECT_EQ(PortOf(Flag("listen")), kGrpcPort);
  EXPECT_EQ(HostOf(Flag("http_listen")), "0.0.0.0");
  EXPECT_EQ(HostOf(Flag("listen")), "0.0.0.0");
  // The scrape annotation KServe copies to the pod points at the HTTP port's /metrics.
  EXPECT_EQ(At(runtime_, {"spec", "annotations", "prometheus.kserve.io/port"}).as<std::string>(""),
            std::to_string(kHttpPort));
  EXPECT_EQ(At(runtime_, {"spec", "annotations", "prometheus.kserve.io/path"}).as<std::string>(""),
            "/metrics");
}

TEST_P(KServeManifestTest, ProbesAskTheDaemonsHealthOnTheContainerPort) {
  const std::map<std::string, std::pair<std::string, std::string>> expected = {
      // probe -> (HTTP path, gRPC health service)
      {"startupProbe", {"/v2/health/ready", ""}},
      {"readinessProbe", {"/v2/health/ready", ""}},
      {"livenessProbe", {"/v2/health/live", kKServeLivenessService}}};
  for (const auto& [probe, wanted] : expected) {
    SCOPED_TRACE(probe);
    if (GetParam().port == kHttpPort) {
      const YAML::Node http = At(container_, {probe, "httpGet"});
      ASSERT_TRUE(http.IsDefined()) << probe << " is not an httpGet probe";
      EXPECT_EQ(http["path"].as<std::string>(""), wanted.first);
      EXPECT_EQ(http["port"].as<int>(-1), kHttpPort);
    } else {
      // Knative points an HTTP liveness probe at the container port, here the gRPC one: the
      // gRPC runtime's probes are gRPC probes, which keep their port.
      const YAML::Node grpc = At(container_, {probe, "grpc"});
      ASSERT_TRUE(grpc.IsDefined()) << probe << " is not a gRPC probe";
      EXPECT_EQ(grpc["service"].as<std::string>(""), wanted.second);
      EXPECT_EQ(grpc["port"].as<int>(-1), kGrpcPort);
    }
  }
  // Loading a big model may take minutes: the startup probe allows them before liveness counts.
  const YAML::Node startup = container_["startupProbe"];
  EXPECT_GE(startup["periodSeconds"].as<int>(10) * startup["failureThreshold"].as<int>(3), 300);
}

TEST_P(KServeManifestTest, NeuronCoresAreRequestedAndTheRuntimeLibraryIsTheImages) {
  for (const char* kind : {"requests", "limits"}) {
    EXPECT_GE(At(container_, {"resources", kind, kNeuronCore}).as<int>(0), 1) << kind;
  }
  // The runtime library the daemon opens is the image's (the Dockerfile's `neuron` target), on
  // no volume: nothing of the host is mounted.
  const std::string library = Flag("nrt_library");
  EXPECT_EQ(library, kImageNeuronRuntime);
  for (const YAML::Node& mount : container_["volumeMounts"]) {
    EXPECT_FALSE(absl::StartsWith(library, mount["mountPath"].as<std::string>("?") + "/"))
        << library;
  }
  for (const YAML::Node& volume : At(runtime_, {"spec", "volumes"})) {
    EXPECT_TRUE(volume["emptyDir"].IsDefined()) << volume["name"].as<std::string>("");
  }
}

INSTANTIATE_TEST_SUITE_P(Runtimes, KServeManifestTest, ::testing::ValuesIn(kRuntimes),
                         [](const ::testing::TestParamInfo<RuntimeCase>& info) {
                           return std::string(info.param.port_name);
                         });

// The example InferenceServices: each names the format and the protocol of one runtime (which
// one KServe picks is deploy.KServeRuntimeSelection's), and its name becomes the model's.
TEST(KServeExamplesTest, EachExampleNamesTheFormatAndAProtocolOfTheRuntimes) {
  std::vector<YAML::Node> services;
  for (const std::string& dir : {kKServeDir, kExamplesDir}) {
    absl::StatusOr<Manifest> manifest = Manifest::RenderDir(dir);
    ASSERT_TRUE(manifest.ok()) << manifest.status();
    for (const YAML::Node& service : manifest->OfKind("InferenceService")) {
      services.push_back(service);
    }
  }
  std::map<std::string, std::string> protocol_of;  // example -> protocol
  for (const YAML::Node& service : services) {
    const std::string name = At(service, {"metadata", "name"}).as<std::string>("");
    SCOPED_TRACE(name);
    EXPECT_EQ(service["apiVersion"].as<std::string>(""), "serving.kserve.io/v1beta1");
    const YAML::Node model = At(service, {"spec", "predictor", "model"});
    EXPECT_EQ(At(model, {"modelFormat", "name"}).as<std::string>(""), "neuron");
    EXPECT_EQ(At(model, {"modelFormat", "version"}).as<std::string>(""), "1");
    EXPECT_FALSE(model["storageUri"].as<std::string>("").empty());
    EXPECT_GE(At(model, {"resources", "limits", kNeuronCore}).as<int>(0), 1);
    // Without it KServe asks for protocol v1 and finds no runtime.
    protocol_of[name] = model["protocolVersion"].as<std::string>("");
    // Its name becomes the model's (--model-name): it must be one the daemon accepts.
    EXPECT_TRUE(ValidateModelName(name).ok()) << ValidateModelName(name);
  }
  EXPECT_EQ(protocol_of, (std::map<std::string, std::string>{
                             {"mlp", "v2"}, {"mlp-grpc", "grpc-v2"}, {"mlp-raw", "v2"}}));
}

// The layouts KServe's storage initializer can leave in /mnt/models.
enum class Layout { kNeff, kVersionFolderWithConfig, kRepository };

struct LayoutCase {
  const char* name;
  Layout layout;
};

// The runtime's pod, started under `root` (its /mnt/models is <root>/mnt/models).
class KServeRun : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Manifest> manifest = Manifest::RenderDir(kKServeDir);
    ASSERT_TRUE(manifest.ok()) << manifest.status();
    manifest_ = *std::move(manifest);
    isvc_ = At(Service(manifest_), {"metadata", "name"}).as<std::string>("");
    ASSERT_FALSE(isvc_.empty());
    ASSERT_FALSE(root_.path().empty());
  }
  absl::StatusOr<RunningPod> Start(bool wait_until_listening) {
    return StartIn(root_, wait_until_listening);
  }
  absl::StatusOr<RunningPod> StartIn(const TempDir& root, bool wait_until_listening,
                                     const std::string& runtime = kRestRuntime) {
    PodOptions options;
    options.container = kKServeContainer;
    options.placeholders = {{kNameTemplate, isvc_}};
    options.provided_mounts = {kModelMount};
    options.wait_until_listening = wait_until_listening;
    return StartPodSpec(manifest_, At(Runtime(manifest_, runtime), {"spec"}), options, root.path());
  }

  Manifest manifest_;
  std::string isvc_;
  TempDir root_;
};

class KServeRunTest : public KServeRun, public ::testing::WithParamInterface<LayoutCase> {};

// An identity model y = x of float32 [1,4]: the answer is the request, computed by no one.
std::string IdentityNeff() { return EncodeNeff(IdentityModel({1, 4})); }

// One ModelInfer of the identity model `model` ([1, 4] float32) as KServe's gRPC clients send it
// (raw contents), checking the answer is the input; `*answer` gets the response.
void InferIdentity(inference::GRPCInferenceService::Stub& stub, const std::string& model,
                   const std::vector<float>& input, inference::ModelInferResponse* answer) {
  grpc::ClientContext context;
  inference::ModelInferRequest request;
  request.set_model_name(model);
  inference::ModelInferRequest::InferInputTensor* tensor = request.add_inputs();
  tensor->set_name("input");
  tensor->set_datatype("FP32");
  tensor->add_shape(1);
  tensor->add_shape(4);
  request.add_raw_input_contents(
      std::string(reinterpret_cast<const char*>(input.data()), input.size() * sizeof(float)));
  const grpc::Status status = stub.ModelInfer(&context, request, answer);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(answer->raw_output_contents_size(), 1);
  ASSERT_EQ(answer->raw_output_contents(0).size(), input.size() * sizeof(float));
  std::vector<float> output(input.size());
  std::memcpy(output.data(), answer->raw_output_contents(0).data(),
              answer->raw_output_contents(0).size());
  EXPECT_EQ(output, input);
}

TEST_P(KServeRunTest, TheDaemonServesWhatTheStorageInitializerLeft) {
  // The models served, by name.
  std::vector<std::string> models;
  switch (GetParam().layout) {
    case Layout::kNeff:  // storageUri naming one file
      root_.Write("mnt/models/resnet-compiled.neff", IdentityNeff());
      models = {isvc_};
      break;
    case Layout::kVersionFolderWithConfig:  // a repository model's folder, Triton's layout
      root_.Write("mnt/models/config.pbtxt", "name: \"ignored\"\nreplicas: 2\n");
      root_.Write("mnt/models/1/model.neff", "an older version that is never read");
      root_.Write("mnt/models/2/model.neff", IdentityNeff());
      models = {isvc_};
      break;
    case Layout::kRepository:
      root_.Write("mnt/models/first/model.neff", IdentityNeff());
      root_.Write("mnt/models/second/config.pbtxt", "file: \"weights.neff\"\n");
      root_.Write("mnt/models/second/weights.neff", IdentityNeff());
      models = {"first", "second"};
      break;
  }
  absl::StatusOr<RunningPod> pod = Start(/*wait_until_listening=*/true);
  ASSERT_TRUE(pod.ok()) << pod.status();
  SCOPED_TRACE(absl::StrCat("substitutions:\n  ", absl::StrJoin(pod->substitutions, "\n  "),
                            "\nargv: ", absl::StrJoin(pod->daemon_argv, " "), "\ndaemon log:\n",
                            pod->daemon->Stderr()));
  ASSERT_TRUE(pod->address_for_port.contains(kGrpcPort));
  ASSERT_TRUE(pod->address_for_port.contains(kHttpPort));
  const std::string grpc_address = pod->address_for_port[kGrpcPort];
  const std::string http_address = pod->address_for_port[kHttpPort];

  EXPECT_EQ(HealthStatus(grpc_address, ""), kHealthServing);
  const HttpResult ready = HttpGet(absl::StrCat("http://", http_address, "/readyz"));
  EXPECT_EQ(ready.status, 200) << ready.body;
  // The kubelet's probes as the runtime declares them (the v2 health paths): 200 now.
  std::optional<ContainerRef> container =
      ContainerNamed(At(Runtime(manifest_, kRestRuntime), {"spec"}), kKServeContainer);
  ASSERT_TRUE(container.has_value());
  for (const char* probe : {"startupProbe", "readinessProbe", "livenessProbe"}) {
    const std::string path = At(container->node, {probe, "httpGet", "path"}).as<std::string>("");
    ASSERT_FALSE(path.empty()) << probe;
    const HttpResult answer = HttpGet(absl::StrCat("http://", http_address, path));
    EXPECT_EQ(answer.status, 200) << probe << " " << path << ": " << answer.body;
  }

  auto stub = inference::GRPCInferenceService::NewStub(
      grpc::CreateChannel(grpc_address, grpc::InsecureChannelCredentials()));
  {
    grpc::ClientContext context;
    inference::ServerReadyResponse response;
    ASSERT_TRUE(stub->ServerReady(&context, {}, &response).ok());
    EXPECT_TRUE(response.ready());
  }
  const std::vector<float> input = {1.5f, -2.0f, 0.25f, 8.0f};
  for (const std::string& model : models) {
    SCOPED_TRACE(model);
    EXPECT_EQ(HealthStatus(grpc_address, model), kHealthServing);
    grpc::ClientContext ready_context;
    inference::ModelReadyRequest ready_request;
    ready_request.set_name(model);
    inference::ModelReadyResponse ready_response;
    ASSERT_TRUE(stub->ModelReady(&ready_context, ready_request, &ready_response).ok());
    EXPECT_TRUE(ready_response.ready());

    inference::ModelInferResponse response;
    ASSERT_NO_FATAL_FAILURE(InferIdentity(*stub, model, input, &response));
    if (GetParam().layout == Layout::kVersionFolderWithConfig) {
      EXPECT_EQ(response.model_version(), "2") << "the newest version folder";
    }
    // The same request as KServe's REST clients send it.
    const HttpResult model_ready =
        HttpGet(absl::StrCat("http://", http_address, "/v2/models/", model, "/ready"));
    EXPECT_EQ(model_ready.status, 200) << model_ready.body;
    root_.Write("infer.json",
                R"({"inputs":[{"name":"input","datatype":"FP32","shape":[1,4],)"
                R"("data":[1.5,-2.0,0.25,8.0]}]})");
    HttpRequest rest;
    rest.method = "POST";
    rest.url = absl::StrCat("http://", http_address, "/v2/models/", model, "/infer");
    rest.headers = {"Content-Type: application/json"};
    rest.body_file = root_.Join("infer.json");
    const HttpResult answer = HttpFetch(rest);
    EXPECT_EQ(answer.status, 200) << answer.body;
    EXPECT_TRUE(absl::StrContains(answer.body, R"("data":[1.5,-2.0,0.25,8.0])") ||
                absl::StrContains(answer.body, R"("data":[1.5,-2,0.25,8])"))
        << answer.body;
  }
  if (GetParam().layout == Layout::kRepository) {
    // Each model keeps its folder's name: the InferenceService's names none of them.
    grpc::ClientContext context;
    inference::ModelReadyRequest request;
    request.set_name(isvc_);
    inference::ModelReadyResponse response;
    ASSERT_TRUE(stub->ModelReady(&context, request, &response).ok());
    EXPECT_FALSE(response.ready());
  }
  EXPECT_EQ(pod->daemon->StopWith(SIGTERM, absl::Seconds(30)), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, KServeRunTest,
    ::testing::Values(LayoutCase{"OneNeff", Layout::kNeff},
                      LayoutCase{"VersionFolderWithConfig", Layout::kVersionFolderWithConfig},
                      LayoutCase{"Repository", Layout::kRepository}),
    [](const ::testing::TestParamInfo<LayoutCase>& info) { return std::string(info.param.name); });

// The gRPC runtime's pod: its probes (gRPC, on the one container port) find the daemon serving,
// and a ModelInfer on that port answers.
using KServeGrpcRunTest = KServeRun;

TEST_F(KServeGrpcRunTest, TheGrpcProbesAndAnInferenceOnTheContainerPort) {
  root_.Write("mnt/models/model.neff", IdentityNeff());
  absl::StatusOr<RunningPod> pod = StartIn(root_, /*wait_until_listening=*/true, kGrpcRuntime);
  ASSERT_TRUE(pod.ok()) << pod.status();
  SCOPED_TRACE(absl::StrCat("argv: ", absl::StrJoin(pod->daemon_argv, " "), "\ndaemon log:\n",
                            pod->daemon->Stderr()));
  std::optional<ContainerRef> container =
      ContainerNamed(At(Runtime(manifest_, kGrpcRuntime), {"spec"}), kKServeContainer);
  ASSERT_TRUE(container.has_value());
  for (const char* probe : {"startupProbe", "readinessProbe", "livenessProbe"}) {
    SCOPED_TRACE(probe);
    const YAML::Node grpc = At(container->node, {probe, "grpc"});
    ASSERT_TRUE(grpc.IsDefined());
    const int port = grpc["port"].as<int>(-1);
    ASSERT_TRUE(pod->address_for_port.contains(port)) << "the daemon does not listen on " << port;
    EXPECT_TRUE(WaitForServing(pod->address_for_port[port], grpc["service"].as<std::string>(""),
                               absl::Seconds(10)));
  }
  const int port = container->node["ports"][0]["containerPort"].as<int>(-1);
  ASSERT_TRUE(pod->address_for_port.contains(port));
  auto stub = inference::GRPCInferenceService::NewStub(
      grpc::CreateChannel(pod->address_for_port[port], grpc::InsecureChannelCredentials()));
  const std::vector<float> input = {1.5f, -2.0f, 0.25f, 8.0f};
  inference::ModelInferResponse response;
  ASSERT_NO_FATAL_FAILURE(InferIdentity(*stub, isvc_, input, &response));
  EXPECT_EQ(pod->daemon->StopWith(SIGTERM, absl::Seconds(30)), 0);
}

// What /mnt/models may wrongly hold: the daemon exits 1, and its last words name the folder
// and what it expected, which is what `kubectl logs` shows of a crash-looping predictor.
struct BadFolder {
  const char* name;
  std::vector<std::pair<std::string, std::string>> files;  // relative path -> contents; none:
  bool create = true;                                      // an empty folder, unless !create
  const char* says;
};

using KServeBadModelDirTest = KServeRun;

TEST_F(KServeBadModelDirTest, TheDaemonExitsNamingTheFolderAndWhatItExpected) {
  std::vector<BadFolder> cases = {
      {"empty", {}, true, "holds no model (it is empty); expected one model"},
      {"two unrelated NEFFs",
       {{"a.neff", IdentityNeff()}, {"b.neff", IdentityNeff()}},
       true,
       "holds 2 .neff files (a.neff, b.neff) and no config.pbtxt whose `file` names one of them"},
      {"missing", {}, false, "does not exist; expected one model"},
      {"only other files",
       {{"README.md", "x"}, {"notes/todo.txt", "y"}},
       true,
       "holds no model (it holds README.md, notes/); expected one model"},
  };
  // A model the runtime refuses (bytes that are no NEFF): the pod must not look ready.
  cases.push_back({"a NEFF the runtime refuses",
                   {{"model.neff", "these bytes are not a NEFF"}},
                   true,
                   "holds model 'mlp' ("});
  for (const BadFolder& bad : cases) {
    SCOPED_TRACE(bad.name);
    TempDir root;  // a pod of its own each
    if (bad.create) std::filesystem::create_directories(root.Join("mnt/models"));
    for (const auto& [path, contents] : bad.files) {
      root.Write(absl::StrCat("mnt/models/", path), contents);
    }
    absl::StatusOr<RunningPod> pod = StartIn(root, /*wait_until_listening=*/false);
    ASSERT_TRUE(pod.ok()) << pod.status();
    EXPECT_EQ(pod->daemon->WaitForExit(absl::Seconds(30)), 1);
    const std::string log = pod->daemon->Stderr();
    EXPECT_TRUE(absl::StrContains(
        log, absl::StrCat("--model-dir '", root.path(), kModelMount, "' ", bad.says)))
        << log;
    if (std::string_view(bad.name) == "a NEFF the runtime refuses") {
      EXPECT_TRUE(absl::StrContains(log, "which failed to load; every model of --model-dir must load"))
          << log;
    }
  }
}

// Flags that contradict --model-dir are refused before anything starts (exit 2, bad flags).
TEST(KServeFlagsTest, ContradictingFlagsAreUsageErrors) {
  TempDir dir;
  dir.Write("models/model.neff", IdentityNeff());
  const std::string folder = dir.Join("models");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--model-dir=" + folder, "--model-repository=" + folder},
       "--model-dir and --model-repository exclude each other"},
      {{"--model-dir=" + folder, "--load-models=all"},
       "--model-dir and --load-models exclude each other"},
      {{"--model-name=mlp"}, "--model-name names the model of --model-dir, which is not set"},
      {{"--model-dir=" + folder, "--model-name=-bad"}, "--model-name: "},
  };
  for (const auto& [flags, says] : cases) {
    SCOPED_TRACE(absl::StrJoin(flags, " "));
    ChildSpec spec;
    spec.argv = {NEURON_SERVE_PATH, absl::StrCat("--nrt-library=", NRTSIM_LIBRARY_PATH),
                 "--listen=127.0.0.1:0"};
    spec.argv.insert(spec.argv.end(), flags.begin(), flags.end());
    spec.env = ImageEnvironment();
    ChildProcess daemon(spec);
    EXPECT_EQ(daemon.WaitForExit(absl::Seconds(20)), 2);
    EXPECT_TRUE(absl::StrContains(daemon.Stderr(), says)) << daemon.Stderr();
  }
}

}  // namespace
}  // namespace neuronserve::testing
