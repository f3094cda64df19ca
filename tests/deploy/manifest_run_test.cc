// Runs the daemon exactly as the rendered manifests start it (their init container, then the
// daemon with the container's own arguments and environment, pod_runner.h lists the few
// substitutions a machine without a cluster needs), on the simulated runtime, and asks it what
// the kubelet's probes ask: grpc.health.v1 Check on the probe's port for the probe's service.
// Also that the startup models of the ConfigMap really loaded, that the Prometheus annotation's
// port serves metrics, and that SIGTERM ends in a clean exit well within the grace period.
#include <signal.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "tests/deploy/deploy_tools.h"
#include "tests/deploy/manifest.h"
#include "tests/deploy/pod_runner.h"
#include "tests/support/http_get.h"

namespace neuronserve::testing {
namespace {

constexpr int kServing = grpc::health::v1::HealthCheckResponse::SERVING;

class ManifestRunTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ManifestRunTest, TheKubeletsProbesFindTheDaemonServing) {
  absl::StatusOr<Manifest> manifest = Manifest::Render(GetParam());
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  TempDir root;
  ASSERT_FALSE(root.path().empty());
  absl::StatusOr<RunningPod> pod = StartPod(*manifest, root.path());
  ASSERT_TRUE(pod.ok()) << pod.status();
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
  const HttpResult metrics = HttpGet(absl::StrCat("http://", pod->address_for_port[metrics_port],
                                                 annotations["prometheus.io/path"].as<std::string>()));
  ASSERT_NE(metrics.status, 0) << "cannot connect to " << pod->address_for_port[metrics_port];
  EXPECT_EQ(metrics.status, 200);
  EXPECT_TRUE(absl::StrContains(metrics.body, "neuronserve_ready 1")) << metrics.body;

  // The kubelet's SIGTERM (after preStop): a drain with nothing in flight ends at once, exit 0.
  const absl::Time start = absl::Now();
  EXPECT_EQ(pod->daemon->StopWith(SIGTERM, absl::Seconds(30)), 0);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
}

INSTANTIATE_TEST_SUITE_P(Overlays, ManifestRunTest, ::testing::Values("daemonset", "sidecar"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace neuronserve::testing
