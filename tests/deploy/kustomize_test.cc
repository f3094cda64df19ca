// Renders every overlay of deploy/kubernetes with `kubectl kustomize` and checks the objects the
// cluster would get: that the probes and Services point at the ports the daemon is told to
// listen on, that the probes ask the daemon's own health services, that shutdown leaves the
// drain its time, resources, the security context, and that the volumes cover every path the
// daemon writes to under a read-only root filesystem.
#include <algorithm>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "neuronserve/v1/model_config.pb.h"
#include "tests/deploy/deploy_tools.h"
#include "tests/deploy/manifest.h"
#include "tests/support/build_paths.h"

namespace neuronserve::testing {
namespace {

// The daemon's health services (server/, README "Operations"): "" is readiness, this one the
// watchdog.
constexpr char kLivenessService[] = "neuronserve/liveness";

class KustomizeTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    absl::StatusOr<Manifest> manifest = Manifest::Render(GetParam());
    ASSERT_TRUE(manifest.ok()) << manifest.status();
    manifest_ = *std::move(manifest);
    absl::StatusOr<YAML::Node> workload = manifest_.Workload();
    ASSERT_TRUE(workload.ok()) << workload.status();
    workload_ = *workload;
    pod_ = PodSpecOf(workload_);
    std::optional<ContainerRef> daemon = ContainerNamed(pod_, kDaemonContainer);
    ASSERT_TRUE(daemon.has_value()) << "no container named " << kDaemonContainer;
    daemon_ = daemon->node;
    daemon_ref_ = *daemon;
    ASSERT_FALSE(DaemonFlagDefaults().empty()) << "neuron-serve --helpfull listed no flags";
  }

  std::string Flag(const std::string& name) const {
    std::optional<std::string> value = EffectiveFlag(daemon_, name);
    EXPECT_TRUE(value.has_value()) << "the daemon has no flag --" << name;
    return value.value_or("");
  }
  int ListenPort() const { return PortOf(Flag("listen")).value_or(-1); }
  int HealthPort() const { return PortOf(Flag("health_listen")).value_or(-1); }
  // The daemonset overlay and the overlays built on it.
  bool IsDaemonSet() const { return absl::StartsWith(GetParam(), "daemonset"); }
  // The mount path of the pod volume named `volume` in the daemon container, or "".
  std::string DaemonMountOf(const std::string& volume) const {
    for (const YAML::Node& mount : daemon()["volumeMounts"]) {
      if (mount["name"].as<std::string>("") == volume) return mount["mountPath"].as<std::string>("");
    }
    return "";
  }
  // The pod volume named `name` (an undefined node if there is none).
  YAML::Node Volume(const std::string& name) const {
    for (const YAML::Node& volume : pod()["volumes"]) {
      if (volume["name"].as<std::string>("") == name) return volume;
    }
    return YAML::Node(YAML::NodeType::Undefined);
  }
  // The volume a path lies in, by the daemon's mounts (the innermost), or "".
  std::string VolumeHolding(const std::string& path) const {
    std::string volume;
    size_t longest = 0;
    for (const YAML::Node& mount : daemon()["volumeMounts"]) {
      const std::string mount_path = mount["mountPath"].as<std::string>("");
      if (absl::StartsWith(path, mount_path + "/") && mount_path.size() > longest) {
        longest = mount_path.size();
        volume = mount["name"].as<std::string>("");
      }
    }
    return volume;
  }
  int HttpPort() const { return PortOf(Flag("http_listen")).value_or(-1); }

  // Read through const nodes only: yaml-cpp's non-const operator[] inserts missing keys.
  const YAML::Node& workload() const { return workload_; }
  const YAML::Node& pod() const { return pod_; }
  const YAML::Node& daemon() const { return daemon_; }

  Manifest manifest_;
  YAML::Node workload_;
  YAML::Node pod_;
  YAML::Node daemon_;
  ContainerRef daemon_ref_;
};

TEST_P(KustomizeTest, RendersTheBaseObjectsAndOneWorkload) {
  EXPECT_TRUE(manifest_.Find("ServiceAccount", "neuron-serve").has_value());
  EXPECT_TRUE(manifest_.Find("Service", "neuron-serve").has_value());
  ASSERT_EQ(manifest_.OfKind("ConfigMap").size(), 1u);
  EXPECT_EQ(pod()["serviceAccountName"].as<std::string>(""), "neuron-serve");
  if (IsDaemonSet()) {
    EXPECT_EQ(workload()["kind"].as<std::string>(), "DaemonSet");
  } else {
    EXPECT_EQ(workload()["kind"].as<std::string>(), "Deployment");
  }
}

TEST_P(KustomizeTest, EveryDaemonFlagAndFlagVariableExists) {
  const auto& flags = DaemonFlagDefaults();
  for (const std::string& arg : StringList(daemon()["args"])) {
    ASSERT_TRUE(absl::StartsWith(arg, "--")) << "not a flag: " << arg;
    const std::string name = CanonicalFlagName(arg.substr(2, arg.find('=') - 2));
    EXPECT_TRUE(flags.contains(name)) << "neuron-serve has no flag " << arg;
  }
  absl::StatusOr<std::map<std::string, std::string>> env = EnvOf(daemon_);
  ASSERT_TRUE(env.ok()) << env.status();
  for (const auto& [variable, value] : *env) {
    const std::string flag = FlagForEnvironmentVariable(variable);
    if (!flag.empty()) {
      EXPECT_TRUE(flags.contains(flag)) << variable << " names no flag";
    }
  }
}

TEST_P(KustomizeTest, ProbesAskTheDaemonsHealthServicesOnTheHealthListener) {
  // The kubelet's probes can present neither a client certificate nor a token, and they connect
  // to the pod IP: they get the plain-text listener that serves only gRPC health, on every
  // interface, whatever the API's listener requires.
  const std::string health_listen = Flag("health_listen");
  ASSERT_TRUE(PortOf(health_listen).has_value()) << "--health-listen=" << health_listen;
  const std::string host = HostOf(health_listen);
  EXPECT_TRUE(host == "0.0.0.0" || host == "[::]") << "--health-listen=" << health_listen;
  EXPECT_NE(HealthPort(), ListenPort());
  for (const char* probe : {"startupProbe", "readinessProbe", "livenessProbe"}) {
    SCOPED_TRACE(probe);
    const YAML::Node& grpc = At(daemon(), {probe, "grpc"});
    ASSERT_TRUE(grpc.IsDefined()) << "not a native gRPC probe";
    EXPECT_EQ(grpc["port"].as<int>(0), HealthPort());
    const std::string service = grpc["service"].as<std::string>("");
    if (std::string(probe) == "livenessProbe") {
      // Readiness ("") is NOT_SERVING while models load and while draining: as a liveness
      // probe it would restart a daemon that is only busy.
      EXPECT_EQ(service, kLivenessService);
    } else if (std::string(probe) == "readinessProbe") {
      EXPECT_EQ(service, "");
    } else {
      EXPECT_TRUE(service == "" || service == kLivenessService) << service;
    }
    EXPECT_GE(At(daemon(), {probe, "failureThreshold"}).as<int>(3), 1);
  }
  // The startup probe gives the startup models their time to load.
  const YAML::Node& startup = daemon()["startupProbe"];
  EXPECT_GE(startup["periodSeconds"].as<int>(10) * startup["failureThreshold"].as<int>(3), 300);
}

TEST_P(KustomizeTest, TheApiListensWhereItsCallersAre) {
  const std::string listen = Flag("listen");
  ASSERT_TRUE(PortOf(listen).has_value()) << listen;
  const std::string host = HostOf(listen);
  if (IsDaemonSet()) {
    // Clients anywhere in the cluster: every interface.
    EXPECT_TRUE(host == "0.0.0.0" || host == "[::]") << "--listen=" << listen;
  } else {
    // The sidecar's application is in the same pod: nothing outside it reaches the API.
    EXPECT_EQ(host, "127.0.0.1") << "--listen=" << listen;
  }
}

TEST_P(KustomizeTest, ContainerPortsAreTheListenPorts) {
  std::optional<ResolvedPort> grpc = ResolvePort(pod_, YAML::Node("grpc"));
  if (IsDaemonSet()) {
    ASSERT_TRUE(grpc.has_value());
    EXPECT_EQ(grpc->container, kDaemonContainer);
    EXPECT_EQ(grpc->port, ListenPort());
  } else {
    // A loopback listener is no port of the pod: declaring it would mislead.
    EXPECT_FALSE(grpc.has_value()) << "the sidecar declares its loopback gRPC port";
  }
  std::optional<ResolvedPort> health = ResolvePort(pod_, YAML::Node("health"));
  ASSERT_TRUE(health.has_value());
  EXPECT_EQ(health->container, kDaemonContainer);
  EXPECT_EQ(health->port, HealthPort());
  std::optional<ResolvedPort> metrics = ResolvePort(pod_, YAML::Node("metrics"));
  ASSERT_TRUE(metrics.has_value());
  EXPECT_EQ(metrics->container, kDaemonContainer);
  EXPECT_EQ(metrics->port, HttpPort()) << "--http-listen=" << Flag("http_listen");
}

TEST_P(KustomizeTest, ServicesSelectThePodAndTargetItsPorts) {
  const YAML::Node labels = At(workload(), {"spec", "template", "metadata", "labels"});
  std::set<int> daemon_ports_published;
  for (const YAML::Node& service : manifest_.OfKind("Service")) {
    const std::string name = At(service, {"metadata", "name"}).as<std::string>("");
    SCOPED_TRACE("Service " + name);
    EXPECT_TRUE(SelectorMatches(At(service, {"spec", "selector"}), labels))
        << "the selector does not match the pod's labels";
    for (const YAML::Node& port : At(service, {"spec", "ports"})) {
      const YAML::Node target = port["targetPort"].IsDefined() ? port["targetPort"] : port["port"];
      std::optional<ResolvedPort> resolved = ResolvePort(pod_, target);
      ASSERT_TRUE(resolved.has_value())
          << "targetPort " << target.as<std::string>("") << " is no container port of the pod";
      if (resolved->container != kDaemonContainer) continue;
      EXPECT_TRUE(resolved->port == ListenPort() || resolved->port == HttpPort())
          << "targetPort " << resolved->port << " is neither --listen nor --http-listen";
      // Services resolve named ports of native sidecars only from Kubernetes 1.32.
      EXPECT_FALSE(daemon_ref_.sidecar && resolved->by_name)
          << "a named targetPort on a native sidecar";
      daemon_ports_published.insert(resolved->port);
    }
  }
  EXPECT_TRUE(daemon_ports_published.contains(HttpPort())) << "no Service for the metrics";
  if (IsDaemonSet()) {
    EXPECT_TRUE(daemon_ports_published.contains(ListenPort())) << "no Service for gRPC";
    std::optional<YAML::Node> headless = manifest_.Find("Service", "neuron-serve-headless");
    ASSERT_TRUE(headless.has_value()) << "no headless Service for dns:/// round robin";
    EXPECT_EQ(At((*headless), {"spec", "clusterIP"}).as<std::string>(""), "None");
  } else {
    // The sidecar is the application's own: its API is not published.
    EXPECT_FALSE(daemon_ports_published.contains(ListenPort()));
  }
}

TEST_P(KustomizeTest, PrometheusScrapesTheHttpEndpoint) {
  const YAML::Node annotations = At(workload(), {"spec", "template", "metadata", "annotations"});
  EXPECT_EQ(annotations["prometheus.io/scrape"].as<std::string>(""), "true");
  EXPECT_EQ(annotations["prometheus.io/port"].as<std::string>(""), std::to_string(HttpPort()));
  EXPECT_EQ(annotations["prometheus.io/path"].as<std::string>(""), "/metrics");
}

TEST_P(KustomizeTest, EveryContainerHasRequestsAndLimits) {
  for (const ContainerRef& container : ContainersOf(pod_)) {
    SCOPED_TRACE("container " + container.name());
    const YAML::Node& resources = container.node["resources"];
    for (const char* kind : {"requests", "limits"}) {
      for (const char* resource : {"cpu", "memory"}) {
        EXPECT_TRUE(At(resources, {kind, resource}).IsDefined()) << kind << "." << resource;
      }
    }
  }
  // NeuronCores (or whole devices) from the Neuron device plugin; for an extended resource the
  // request must equal the limit.
  const YAML::Node& resources = daemon()["resources"];
  int neuron_resources = 0;
  for (const char* resource : {"aws.amazon.com/neuroncore", "aws.amazon.com/neuron"}) {
    if (!At(resources, {"limits", resource}).IsDefined()) continue;
    ++neuron_resources;
    EXPECT_GE(At(resources, {"limits", resource}).as<int>(0), 1);
    EXPECT_EQ(At(resources, {"requests", resource}).as<std::string>(""),
              At(resources, {"limits", resource}).as<std::string>(""));
  }
  EXPECT_EQ(neuron_resources, 1) << "the daemon requests no Neuron resource";
}

TEST_P(KustomizeTest, EveryContainerIsLockedDown) {
  const YAML::Node& pod_security = pod()["securityContext"];
  for (const ContainerRef& container : ContainersOf(pod_)) {
    SCOPED_TRACE("container " + container.name());
    const YAML::Node& security = container.node["securityContext"];
    const YAML::Node& non_root = security["runAsNonRoot"].IsDefined()
                                     ? security["runAsNonRoot"]
                                     : pod_security["runAsNonRoot"];
    EXPECT_TRUE(non_root.as<bool>(false)) << "runAsNonRoot";
    const YAML::Node& user =
        security["runAsUser"].IsDefined() ? security["runAsUser"] : pod_security["runAsUser"];
    EXPECT_NE(user.as<int>(0), 0) << "runAsUser";
    EXPECT_TRUE(security["readOnlyRootFilesystem"].as<bool>(false));
    EXPECT_FALSE(security["allowPrivilegeEscalation"].as<bool>(true));
    EXPECT_FALSE(security["privileged"].as<bool>(false));
    const std::vector<std::string> dropped = StringList(At(security, {"capabilities", "drop"}));
    EXPECT_NE(std::find(dropped.begin(), dropped.end(), "ALL"), dropped.end()) << "drop ALL";
    EXPECT_FALSE(At(security, {"capabilities", "add"}).IsDefined());
  }
  EXPECT_EQ(At(pod_security, {"seccompProfile", "type"}).as<std::string>(""), "RuntimeDefault");
  EXPECT_FALSE(pod()["hostNetwork"].as<bool>(false));
  EXPECT_FALSE(pod()["automountServiceAccountToken"].as<bool>(true));
}

TEST_P(KustomizeTest, ShutdownLeavesTheDrainItsTime) {
  absl::StatusOr<absl::Duration> drain = ParseFlagDuration(Flag("drain_timeout"));
  ASSERT_TRUE(drain.ok()) << drain.status();
  const YAML::Node& grace_node = pod()["terminationGracePeriodSeconds"];
  const absl::Duration grace = absl::Seconds(grace_node.as<int>(30));  // Kubernetes' default: 30
  EXPECT_GT(grace, *drain) << "terminationGracePeriodSeconds must exceed --drain-timeout";
  // Every preStop is a plain sleep, and they all run before the daemon's drain ends: the
  // daemon's own preStop delays its SIGTERM, and a native sidecar gets SIGTERM only after the
  // application's containers (and their preStop hooks) are done. Their sum plus the drain must
  // fit in the grace period, or the kubelet SIGKILLs a draining daemon.
  absl::Duration pre_stop = absl::ZeroDuration();
  for (const ContainerRef& container : ContainersOf(pod_)) {
    absl::StatusOr<int> seconds = PreStopSleepSeconds(container.node);
    ASSERT_TRUE(seconds.ok()) << seconds.status();
    pre_stop += absl::Seconds(*seconds);
  }
  EXPECT_LT(pre_stop + *drain, grace)
      << "preStop sleeps " << pre_stop << " + drain " << *drain << " >= grace " << grace;
  if (IsDaemonSet()) {
    // Without a pause the daemon would refuse requests that proxies still send it.
    absl::StatusOr<int> seconds = PreStopSleepSeconds(daemon_);
    ASSERT_TRUE(seconds.ok());
    EXPECT_GE(*seconds, 1) << "the DaemonSet's daemon has no preStop pause";
  }
}

TEST_P(KustomizeTest, WritablePathsAreVolumes) {
  // With readOnlyRootFilesystem every path the daemon writes must be a writable volume, and
  // every path it reads from outside the image (the repository) must be mounted.
  std::map<std::string, bool> mounts;  // mount path -> writable
  for (const YAML::Node& mount : daemon()["volumeMounts"]) {
    mounts[mount["mountPath"].as<std::string>("")] = !mount["readOnly"].as<bool>(false);
  }
  auto mount_of = [&](const std::string& path) -> std::optional<bool> {
    std::optional<bool> writable;
    size_t longest = 0;
    for (const auto& [mount_path, rw] : mounts) {
      if ((path == mount_path || absl::StartsWith(path, mount_path + "/")) &&
          mount_path.size() >= longest) {
        longest = mount_path.size();
        writable = rw;
      }
    }
    return writable;
  };
  const std::string state_dir = Flag("state_dir");
  ASSERT_FALSE(state_dir.empty());
  EXPECT_EQ(mount_of(state_dir), std::optional<bool>(true)) << "--state-dir=" << state_dir;
  EXPECT_EQ(mount_of("/tmp"), std::optional<bool>(true)) << "/tmp";
  EXPECT_TRUE(mount_of(Flag("model_repository")).has_value());
  // The admin socket and its lock file are made at start, beside each other.
  const std::string admin_listen = Flag("admin_listen");
  if (absl::StartsWith(admin_listen, "unix:")) {
    EXPECT_EQ(mount_of(admin_listen.substr(5)), std::optional<bool>(true)) << admin_listen;
  }
  const std::string audit_log = Flag("audit_log");
  if (!audit_log.empty() && audit_log != "-") {
    EXPECT_EQ(mount_of(audit_log), std::optional<bool>(true)) << "--audit-log";
  }
  const std::string access_log = Flag("access_log");
  if (!access_log.empty() && access_log != "-") {
    EXPECT_EQ(mount_of(access_log), std::optional<bool>(true)) << "--access-log";
  }
}

// Nothing of the host is mounted (Pod Security `baseline` and `restricted` forbid hostPath;
// deploy.PodSecurityRestricted checks the rest): the runtime library is the image's, where the
// Dockerfile's `neuron` target installs it, and the NEFFs come from a claim, read-only.
TEST_P(KustomizeTest, TheRuntimeLibraryIsTheImagesAndNoHostPathIsMounted) {
  const std::string library = Flag("nrt_library");
  EXPECT_EQ(library, kImageNeuronRuntime);
  EXPECT_TRUE(VolumeHolding(library).empty()) << library << " is on a volume";
  for (const YAML::Node& volume : pod()["volumes"]) {
    EXPECT_FALSE(volume["hostPath"].IsDefined()) << volume["name"].as<std::string>("");
  }
  const std::string neffs = VolumeHolding(Flag("model_repository") + "/.neffs/x");
  ASSERT_FALSE(neffs.empty()) << "no NEFF volume";
  const YAML::Node claim = Volume(neffs)["persistentVolumeClaim"];
  ASSERT_TRUE(claim.IsDefined()) << neffs << " is not a PersistentVolumeClaim";
  EXPECT_TRUE(claim["readOnly"].as<bool>(false));
  EXPECT_FALSE(claim["claimName"].as<std::string>("").empty());
  for (const ContainerRef& container : ContainersOf(pod_)) {
    EXPECT_EQ(container.node["image"].as<std::string>(""), kNeuronImage) << container.name();
  }
}

TEST_P(KustomizeTest, TheInitContainerAssemblesTheRepositoryTheDaemonLoads) {
  std::optional<ContainerRef> init = ContainerNamed(pod_, "model-repository");
  ASSERT_TRUE(init.has_value());
  EXPECT_TRUE(init->init && !init->sidecar);
  EXPECT_EQ(StringList(init->node["command"]),
            std::vector<std::string>{"/usr/local/bin/assemble-model-repository"});
  const std::vector<std::string> args = StringList(init->node["args"]);
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[1], Flag("model_repository"));
  EXPECT_EQ(Flag("load_models"), "all");
  // Both containers see the same volumes at the same places.
  std::map<std::string, std::string> init_mounts;
  for (const YAML::Node& mount : init->node["volumeMounts"]) {
    init_mounts[mount["mountPath"].as<std::string>("")] = mount["name"].as<std::string>("");
  }
  std::map<std::string, std::string> daemon_mounts;
  for (const YAML::Node& mount : daemon()["volumeMounts"]) {
    daemon_mounts[mount["mountPath"].as<std::string>("")] = mount["name"].as<std::string>("");
  }
  for (const std::string& path : {args[1], args[1] + "/.neffs"}) {
    EXPECT_TRUE(init_mounts.contains(path)) << path;
    EXPECT_EQ(init_mounts[path], daemon_mounts[path]) << path;
  }
  ASSERT_TRUE(init_mounts.contains(args[0])) << "the model configs are not mounted";
  std::string configmap;
  for (const YAML::Node& volume : pod()["volumes"]) {
    if (volume["name"].as<std::string>("") == init_mounts[args[0]]) {
      configmap = At(volume, {"configMap", "name"}).as<std::string>("");
    }
  }
  EXPECT_TRUE(manifest_.Find("ConfigMap", configmap).has_value()) << configmap;
}

TEST_P(KustomizeTest, TheModelConfigsAreTheExampleRepositorys) {
  const YAML::Node configmap = manifest_.OfKind("ConfigMap").front();
  ASSERT_GT(configmap["data"].size(), 0u);
  for (const auto& entry : configmap["data"]) {
    const std::string key = entry.first.as<std::string>();
    SCOPED_TRACE(key);
    ASSERT_TRUE(absl::EndsWith(key, ".pbtxt"));
    v1::ModelConfig config;
    EXPECT_TRUE(
        google::protobuf::TextFormat::ParseFromString(entry.second.as<std::string>(), &config));
    const std::string model = key.substr(0, key.size() - 6);
    absl::StatusOr<std::string> example =
        ReadFile(absl::StrCat(DEPLOY_DIR, "/models/", model, "/config.pbtxt"));
    ASSERT_TRUE(example.ok()) << example.status();
    EXPECT_EQ(entry.second.as<std::string>(), *example)
        << "deploy/kubernetes/base/models/" << key << " differs from deploy/models/" << model;
  }
}

TEST_P(KustomizeTest, AdminCallsHaveTheirOwnWayIn) {
  const std::string admin_listen = Flag("admin_listen");
  if (IsDaemonSet()) {
    // Cluster clients load and unload with an admin token, over mutual TLS (below).
    EXPECT_FALSE(Flag("admin_token_file").empty());
    return;
  }
  // The sidecar: LoadModel and UnloadModel only on a unix socket in a volume that the
  // application's container mounts too, at the address the application is given.
  ASSERT_TRUE(absl::StartsWith(admin_listen, "unix:/")) << "--admin-listen=" << admin_listen;
  const std::string socket = admin_listen.substr(5);
  const std::string volume = VolumeHolding(socket);
  ASSERT_FALSE(volume.empty()) << socket << " is on no volume";
  EXPECT_TRUE(Volume(volume)["emptyDir"].IsDefined()) << volume;
  std::optional<ContainerRef> app = ContainerNamed(pod_, "app");
  ASSERT_TRUE(app.has_value());
  bool app_mounts_it = false;
  for (const YAML::Node& mount : app->node["volumeMounts"]) {
    app_mounts_it |= mount["name"].as<std::string>("") == volume &&
                     mount["mountPath"].as<std::string>("") == DaemonMountOf(volume);
  }
  EXPECT_TRUE(app_mounts_it) << "the application does not see the admin socket's folder";
  absl::StatusOr<std::map<std::string, std::string>> app_env = EnvOf(app->node);
  ASSERT_TRUE(app_env.ok()) << app_env.status();
  EXPECT_EQ((*app_env)["NEURON_SERVE_ADMIN_ADDRESS"], admin_listen);
  // The socket is 0660: the application must run in the daemon's group, which the pod's
  // fsGroup also gives the volume.
  const YAML::Node& pod_security = pod()["securityContext"];
  const int group = pod_security["runAsGroup"].as<int>(-1);
  EXPECT_GT(group, 0);
  EXPECT_EQ(pod_security["fsGroup"].as<int>(-2), group);
  for (const ContainerRef& container : {*app, daemon_ref_}) {
    EXPECT_FALSE(container.node["securityContext"]["runAsGroup"].IsDefined())
        << container.name() << " leaves the pod's group";
  }
}

// Shared memory only where it can work: the sidecar shares a memory-backed /dev/shm with the
// application, both as one user (tritonclient's objects are mode 0600); a DaemonSet's clients
// are in other pods, which would need the host's IPC namespace, so it stays off there.
TEST_P(KustomizeTest, SharedMemoryOnlyInTheSidecarOverAPrivateMemoryBackedDevShm) {
  const std::string allowed = Flag("allow_client_shared_memory");
  if (IsDaemonSet()) {
    EXPECT_EQ(allowed, "false");
    EXPECT_FALSE(pod()["hostIPC"].as<bool>(false));
    return;
  }
  EXPECT_EQ(allowed, "true");
  EXPECT_FALSE(pod()["hostIPC"].as<bool>(false));
  const std::string volume = VolumeHolding("/dev/shm/x");
  ASSERT_FALSE(volume.empty()) << "the daemon has no /dev/shm volume";
  EXPECT_EQ(Volume(volume)["emptyDir"]["medium"].as<std::string>(""), "Memory");
  EXPECT_TRUE(Volume(volume)["emptyDir"]["sizeLimit"].IsDefined());
  std::optional<ContainerRef> app = ContainerNamed(pod_, "app");
  ASSERT_TRUE(app.has_value());
  bool app_mounts_it = false;
  for (const YAML::Node& mount : app->node["volumeMounts"]) {
    app_mounts_it |= mount["name"].as<std::string>("") == volume &&
                     mount["mountPath"].as<std::string>("") == "/dev/shm";
  }
  EXPECT_TRUE(app_mounts_it) << "the application does not share the daemon's /dev/shm";
  // One user for both: the pod's, neither container overriding it.
  EXPECT_GT(pod()["securityContext"]["runAsUser"].as<int>(-1), 0);
  for (const ContainerRef& container : {*app, daemon_ref_}) {
    EXPECT_FALSE(container.node["securityContext"]["runAsUser"].IsDefined())
        << container.name() << " runs as another user";
  }
}

TEST_P(KustomizeTest, TheClusterWideApiNeedsMutualTlsAndTokensFromSecrets) {
  if (!IsDaemonSet()) GTEST_SKIP() << "the sidecar's API is on loopback";
  // Every credential is a file of a mounted Secret, group-readable only (fsGroup), so that a
  // rotated Secret reaches the daemon without a restart.
  for (const char* flag :
       {"tls_cert", "tls_key", "tls_client_ca", "infer_token_file", "admin_token_file"}) {
    SCOPED_TRACE(flag);
    const std::string path = Flag(flag);
    ASSERT_FALSE(path.empty());
    const std::string volume = VolumeHolding(path);
    ASSERT_FALSE(volume.empty()) << path << " is on no volume";
    const YAML::Node secret = Volume(volume)["secret"];
    ASSERT_TRUE(secret.IsDefined()) << volume << " is not a Secret";
    EXPECT_EQ(secret["defaultMode"].as<int>(0644), 0440) << volume;
    bool read_only = false;
    for (const YAML::Node& mount : daemon()["volumeMounts"]) {
      if (mount["name"].as<std::string>("") == volume) read_only = mount["readOnly"].as<bool>(false);
    }
    EXPECT_TRUE(read_only) << volume;
  }
  EXPECT_EQ(Volume(VolumeHolding(Flag("tls_cert")))["secret"]["secretName"].as<std::string>(""),
            "neuron-serve-tls");
  EXPECT_EQ(Flag("audit_log"), "-");
}

TEST(CertManagerOverlayTest, IssuesTheSecretTheDaemonSetMountsForEveryServiceName) {
  absl::StatusOr<Manifest> manifest = Manifest::Render("daemonset-cert-manager");
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  std::optional<YAML::Node> certificate = manifest->Find("Certificate", "neuron-serve-tls");
  ASSERT_TRUE(certificate.has_value());
  const YAML::Node& spec = (*certificate)["spec"];
  EXPECT_EQ(spec["secretName"].as<std::string>(""), "neuron-serve-tls");
  std::set<std::string> usages;
  for (const std::string& usage : StringList(spec["usages"])) usages.insert(usage);
  EXPECT_TRUE(usages.contains("server auth"));
  std::set<std::string> names;
  for (const std::string& name : StringList(spec["dnsNames"])) names.insert(name);
  // Each Service, by the name a client in another namespace uses.
  for (const YAML::Node& service : manifest->OfKind("Service")) {
    const std::string name = At(service, {"metadata", "name"}).as<std::string>("");
    const std::string ns = At(service, {"metadata", "namespace"}).as<std::string>("");
    ASSERT_FALSE(ns.empty()) << name;
    EXPECT_TRUE(names.contains(absl::StrCat(name, ".", ns, ".svc.cluster.local"))) << name;
  }
  // The issuer chain is in the overlay: the server certificate's CA issuer signs with the CA
  // certificate's Secret, which a self-signed issuer makes.
  const std::string issuer = At(spec, {"issuerRef", "name"}).as<std::string>("");
  std::optional<YAML::Node> ca_issuer = manifest->Find("Issuer", issuer);
  ASSERT_TRUE(ca_issuer.has_value()) << issuer;
  const std::string ca_secret = At(*ca_issuer, {"spec", "ca", "secretName"}).as<std::string>("");
  bool ca_certificate_found = false;
  for (const YAML::Node& other : manifest->OfKind("Certificate")) {
    if (At(other, {"spec", "secretName"}).as<std::string>("") != ca_secret) continue;
    ca_certificate_found = true;
    EXPECT_TRUE(At(other, {"spec", "isCA"}).as<bool>(false));
    const std::string root = At(other, {"spec", "issuerRef", "name"}).as<std::string>("");
    std::optional<YAML::Node> root_issuer = manifest->Find("Issuer", root);
    ASSERT_TRUE(root_issuer.has_value()) << root;
    EXPECT_TRUE(At(*root_issuer, {"spec", "selfSigned"}).IsDefined());
  }
  EXPECT_TRUE(ca_certificate_found) << "no Certificate makes the CA Secret " << ca_secret;
}

INSTANTIATE_TEST_SUITE_P(Overlays, KustomizeTest,
                         ::testing::Values("sidecar", "daemonset", "daemonset-cert-manager"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;  // test names take no dashes
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// The Deployment needs no placement rules of its own: its NeuronCore request keeps it on Neuron
// nodes. A DaemonSet would put a pod on every node without them.
TEST(DaemonSetPlacementTest, RunsOnNeuronNodesOnly) {
  absl::StatusOr<Manifest> manifest = Manifest::Render("daemonset");
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  absl::StatusOr<YAML::Node> found = manifest->Workload();
  ASSERT_TRUE(found.ok()) << found.status();
  const YAML::Node& workload = *found;
  const YAML::Node pod = PodSpecOf(workload);
  const bool has_selector =
      At(pod, {"nodeSelector"}).IsDefined() ||
      At(pod, {"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"})
          .IsDefined();
  EXPECT_TRUE(has_selector) << "a DaemonSet without a node selector lands on every node";
  bool tolerates_neuron_taint = false;
  for (const YAML::Node& toleration : At(pod, {"tolerations"})) {
    tolerates_neuron_taint |= toleration["key"].as<std::string>("") == "aws.amazon.com/neuron";
  }
  EXPECT_TRUE(tolerates_neuron_taint);
  EXPECT_EQ(At(workload, {"spec", "updateStrategy", "type"}).as<std::string>(""), "RollingUpdate");
}

}  // namespace
}  // namespace neuronserve::testing
