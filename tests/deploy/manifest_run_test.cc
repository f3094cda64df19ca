// Runs the daemon exactly as the rendered manifests start it (their init container, then the
// daemon with the container's own arguments and environment, pod_runner.h lists the few
// substitutions a machine without a cluster needs), on the simulated runtime, and asks it what
// the kubelet's probes ask: grpc.health.v1 Check on the probe's port for the probe's service.
// Also that the startup models of the ConfigMap really loaded, that the Prometheus annotation's
// port serves metrics, and that SIGTERM ends in a clean exit well within the grace period.
#include <signal.h>
#include <sys/stat.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "client/lib/client.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "tests/deploy/deploy_tools.h"
#include "tests/deploy/manifest.h"
#include "tests/deploy/pod_runner.h"
#include "tests/support/http_get.h"
#include "tests/support/test_certificates.h"

namespace neuronserve::testing {
namespace {

constexpr int kServing = grpc::health::v1::HealthCheckResponse::SERVING;

// The tokens the test puts into Secret neuron-serve-tokens, as LABEL:TOKEN lines.
constexpr char kInferToken[] = "deploy-test-infer-token-0123456789";
constexpr char kAdminToken[] = "deploy-test-admin-token-0123456789";

class ManifestRunTest : public ::testing::TestWithParam<std::string> {
 protected:
  // Renders the overlay and starts its pod, with the Secrets a cluster operator would have made
  // (deploy/README.md): the TLS pair and client CA, and the token files.
  void StartThePod() {
    absl::StatusOr<Manifest> manifest = Manifest::Render(GetParam());
    ASSERT_TRUE(manifest.ok()) << manifest.status();
    manifest_ = *std::move(manifest);
    ASSERT_FALSE(root_.path().empty());
    certificates_ = TestCertificates::Make(certificate_dir_.path());
    SecretData secrets;
    secrets["neuron-serve-tls"] = {{"tls.crt", certificates_.server.CertPem()},
                                   {"tls.key", certificates_.server.KeyPem()},
                                   {"ca.crt", certificates_.ca.CertPem()}};
    secrets["neuron-serve-tokens"] = {{"infer", absl::StrCat("app:", kInferToken, "\n")},
                                      {"admin", absl::StrCat("ops:", kAdminToken, "\n")}};
    absl::StatusOr<RunningPod> pod = StartPod(manifest_, root_.path(), secrets);
    ASSERT_TRUE(pod.ok()) << pod.status();
    pod_ = *std::move(pod);
    trace_ = absl::StrCat("substitutions:\n  ", absl::StrJoin(pod_.substitutions, "\n  "),
                          "\nargv: ", absl::StrJoin(pod_.daemon_argv, " "),
                          "\ninit containers:\n", pod_.init_log);
  }
  YAML::Node Daemon() const {
    return ContainerNamed(PodSpecOf(*manifest_.Workload()), kDaemonContainer)->node;
  }
  // Where the daemon's --listen went.
  std::string ApiAddress() {
    return pod_.address_for_port[PortOf(*EffectiveFlag(Daemon(), "listen")).value_or(-1)];
  }

  Manifest manifest_;
  TempDir root_;
  TempDir certificate_dir_;
  TestCertificates certificates_;
  RunningPod pod_;
  std::string trace_;
};

TEST_P(ManifestRunTest, TheKubeletsProbesFindTheDaemonServing) {
  ASSERT_NO_FATAL_FAILURE(StartThePod());
  const Manifest* manifest = &manifest_;
  RunningPod* pod = &pod_;
  SCOPED_TRACE(absl::StrCat("substitutions:\n  ", absl::StrJoin(pod->substitutions, "\n  "),
                            "\nargv: ", absl::StrJoin(pod->daemon_argv, " "),
                            "\ninit containers:\n", pod->init_log, "\ndaemon log:\n",
                            pod->daemon->Stderr()));

  const YAML::Node pod_spec = PodSpecOf(*manifest->Workload());
  const YAML::Node daemon = ContainerNamed(pod_spec, kDaemonContainer)->node;
  // Its environment is the manifest's env (mapped) plus only the image's: nothing leaked in.
  absl::StatusOr<std::map<std::string, std::string>> env = EnvOf(daemon);
  ASSERT_TRUE(env.ok()) << env.status();
  for (const auto& [name, value] : pod->daemon_env) {
    EXPECT_TRUE(env->contains(name) || ImageEnvironment().contains(name)) << name;
  }
  for (const char* probe : {"startupProbe", "readinessProbe", "livenessProbe"}) {
    SCOPED_TRACE(probe);
    const YAML::Node grpc = At(daemon, {probe, "grpc"});
    ASSERT_TRUE(grpc.IsDefined());
    const int port = grpc["port"].as<int>(0);
    ASSERT_TRUE(pod->address_for_port.contains(port))
        << "the probe's port " << port << " is none the daemon was told to listen on";
    const std::string service = grpc["service"].as<std::string>("");
    // Like the kubelet, ask again until it answers SERVING (the startup models are loaded by
    // the time the daemon logs "listening on", so the first answer should be it).
    EXPECT_TRUE(WaitForServing(pod->address_for_port[port], service, absl::Seconds(10)))
        << "service '" << service << "' answers "
        << HealthStatus(pod->address_for_port[port], service);
  }

  // "" is SERVING once every startup model is READY *or FAILED*: that the models of the
  // ConfigMap are really served, each model's own health says (on the probes' listener, which
  // publishes the same statuses as the API's).
  const int probe_port = At(daemon, {"readinessProbe", "grpc", "port"}).as<int>(-1);
  ASSERT_FALSE(pod->models.empty()) << "the ConfigMap names no model";
  for (const std::string& model : pod->models) {
    EXPECT_EQ(HealthStatus(pod->address_for_port[probe_port], model), kServing)
        << "model '" << model << "' of the ConfigMap is not serving";
  }

  // Prometheus scrapes the port of the pod's annotation.
  const YAML::Node annotations =
      At(*manifest->Workload(), {"spec", "template", "metadata", "annotations"});
  const int metrics_port = std::stoi(annotations["prometheus.io/port"].as<std::string>("0"));
  ASSERT_TRUE(pod->address_for_port.contains(metrics_port));
  // With token files /metrics needs an infer token, as ListModels does (it names the models):
  // Prometheus then scrapes with `authorization: credentials_file:` (docs/operations.md, the
  // HTTP endpoint).
  const std::string metrics_url = absl::StrCat("http://", pod->address_for_port[metrics_port],
                                               annotations["prometheus.io/path"].as<std::string>());
  const bool tokens = absl::StrContains(absl::StrJoin(pod->daemon_argv, " "), "--infer-token-file=");
  HttpRequest scrape;
  scrape.url = metrics_url;
  if (tokens) {
    const HttpResult anonymous = HttpFetch(scrape);
    ASSERT_NE(anonymous.status, 0) << "cannot connect to " << metrics_url;
    EXPECT_EQ(anonymous.status, 401) << anonymous.body;
    scrape.headers.push_back(absl::StrCat("Authorization: Bearer ", kInferToken));
  }
  const HttpResult metrics = HttpFetch(scrape);
  ASSERT_NE(metrics.status, 0) << "cannot connect to " << metrics_url;
  EXPECT_EQ(metrics.status, 200);
  EXPECT_TRUE(absl::StrContains(metrics.body, "neuronserve_ready 1")) << metrics.body;

  // The kubelet's SIGTERM (after preStop): a drain with nothing in flight ends at once, exit 0.
  const absl::Time start = absl::Now();
  EXPECT_EQ(pod->daemon->StopWith(SIGTERM, absl::Seconds(30)), 0);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
}

// What the overlay promises callers, asked through the client library as an application
// would: the DaemonSet's API answers a client with a certificate of the CA and a token, and no
// one else; the sidecar's admin calls go through the shared socket (mode 0660) and not the API.
TEST_P(ManifestRunTest, CallersGetInTheWayTheOverlaySays) {
  ASSERT_NO_FATAL_FAILURE(StartThePod());
  SCOPED_TRACE(absl::StrCat(trace_, "\ndaemon log:\n", pod_.daemon->Stderr()));
  const YAML::Node daemon = Daemon();
  client::ConnectOptions options;
  options.target = ApiAddress();
  options.timeout = absl::Seconds(10);
  if (absl::StartsWith(GetParam(), "daemonset")) {
    options.tls = true;
    options.tls_ca_file = certificates_.ca.cert;
    options.tls_cert_file = certificates_.client.cert;
    options.tls_key_file = certificates_.client.key;
    options.token = kInferToken;
    absl::StatusOr<std::unique_ptr<client::Client>> client = client::Client::Connect(options);
    ASSERT_TRUE(client.ok()) << client.status();
    absl::StatusOr<std::vector<v1::ModelStatus>> models = (*client)->ListModels();
    ASSERT_TRUE(models.ok()) << models.status();
    EXPECT_EQ(models->size(), pod_.models.size());
    // The infer token may not unload.
    EXPECT_EQ((*client)->Unload(pod_.models.front()).status().code(),
              absl::StatusCode::kPermissionDenied);
    // No token: refused; no client certificate: no connection at all.
    options.token.clear();
    client = client::Client::Connect(options);
    ASSERT_TRUE(client.ok()) << client.status();
    EXPECT_EQ((*client)->ListModels().status().code(), absl::StatusCode::kUnauthenticated);
    options.token = kInferToken;
    options.tls_cert_file.clear();
    options.tls_key_file.clear();
    client = client::Client::Connect(options);
    ASSERT_TRUE(client.ok()) << client.status();
    EXPECT_EQ((*client)->ListModels().status().code(), absl::StatusCode::kUnavailable);
  } else {
    // The application's view: the API on loopback, admin calls only through the socket.
    absl::StatusOr<std::unique_ptr<client::Client>> api = client::Client::Connect(options);
    ASSERT_TRUE(api.ok()) << api.status();
    absl::StatusOr<v1::UnloadModelResponse> refused = (*api)->Unload(pod_.models.front());
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied) << refused.status();
    const std::string admin_listen = *EffectiveFlag(daemon, "admin_listen");
    ASSERT_TRUE(absl::StartsWith(admin_listen, "unix:")) << admin_listen;
    const std::string socket = pod_.root + admin_listen.substr(5);
    struct stat info {};
    ASSERT_EQ(stat(socket.c_str(), &info), 0) << socket;
    EXPECT_TRUE(S_ISSOCK(info.st_mode));
    EXPECT_EQ(info.st_mode & 0777, 0660u);
    options.target = "unix:" + socket;
    absl::StatusOr<std::unique_ptr<client::Client>> admin = client::Client::Connect(options);
    ASSERT_TRUE(admin.ok()) << admin.status();
    absl::StatusOr<v1::UnloadModelResponse> unloaded = (*admin)->Unload(pod_.models.front());
    EXPECT_TRUE(unloaded.ok()) << unloaded.status();
  }
  EXPECT_EQ(pod_.daemon->StopWith(SIGTERM, absl::Seconds(30)), 0);
}

INSTANTIATE_TEST_SUITE_P(Overlays, ManifestRunTest, ::testing::Values("daemonset", "sidecar"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace neuronserve::testing
