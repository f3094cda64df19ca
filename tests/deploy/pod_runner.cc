#include "tests/deploy/pod_runner.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "google/protobuf/text_format.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "neuronserve/v1/model_config.pb.h"
#include "tests/support/health_check.h"
#include "tests/support/build_paths.h"

namespace neuronserve::testing {
namespace {

namespace fs = std::filesystem;

constexpr char kImageDaemon[] = "/usr/local/bin/neuron-serve";
constexpr char kImageAssembler[] = "/usr/local/bin/assemble-model-repository";
const std::string kExampleNeff = std::string(DEPLOY_DIR) + "/models/mlp/model.neff";
constexpr char kUnixScheme[] = "unix:";

// The flags whose HOST:PORT becomes a free loopback port, and the log line that says where it
// went.
struct ListenFlag {
  const char* flag;
  const char* log_pattern;
};
constexpr ListenFlag kListenFlags[] = {
    {"listen", "listening on ([0-9.]+:[0-9]+)"},
    {"http_listen", "HTTP endpoint on ([0-9.]+:[0-9]+)"},
    {"health_listen", "health listener on ([0-9.]+:[0-9]+)"},
};

// A Secret volume as the kubelet writes it (its "atomic writer"): the keys' files in a
// timestamped folder, a "..data" symlink to that folder, and one symlink per key through
// "..data", so that an update swaps one symlink and readers never see half of it.
absl::Status WriteSecretVolume(const std::string& dir,
                               const std::map<std::string, std::string>& keys) {
  const std::string version = "..2026_12_04_00_00_00.000000001";
  for (const auto& [key, contents] : keys) {
    if (absl::Status s = WriteFile(absl::StrCat(dir, "/", version, "/", key), contents); !s.ok()) {
      return s;
    }
  }
  std::error_code error;
  fs::create_directory_symlink(version, dir + "/..data", error);
  for (const auto& [key, contents] : keys) {
    if (!error) fs::create_symlink("..data/" + key, absl::StrCat(dir, "/", key), error);
  }
  if (error) return absl::InternalError(absl::StrCat("cannot lay out the Secret in ", dir));
  return absl::OkStatus();
}

bool UnderPath(const std::string& path, const std::string& prefix) {
  return path == prefix || absl::StartsWith(path, absl::StrCat(prefix, "/"));
}

// What the pod's volumes look like on this machine.
class PodFilesystem {
 public:
  PodFilesystem(std::string root, std::vector<std::string> mount_paths)
      : root_(std::move(root)), mount_paths_(std::move(mount_paths)) {}

  // <root>/P for a path P under one of the mounts; the path itself otherwise. A gRPC unix
  // address "unix:P" maps to "unix:<root>/P" the same way.
  std::string Map(const std::string& path) const {
    if (absl::StartsWith(path, kUnixScheme)) {
      const std::string mapped = Map(path.substr(sizeof(kUnixScheme) - 1));
      return absl::StrCat(kUnixScheme, mapped);
    }
    for (const std::string& mount : mount_paths_) {
      if (UnderPath(path, mount)) return root_ + path;
    }
    return path;
  }
  bool Mapped(const std::string& path) const { return Map(path) != path; }

  // An argument or variable value: "--flag=PATH" or "PATH" with PATH under a mount is mapped.
  std::string MapValue(const std::string& value) const {
    const size_t equals = value.find('=');
    if (absl::StartsWith(value, "-") && equals != std::string::npos) {
      return value.substr(0, equals + 1) + Map(value.substr(equals + 1));
    }
    return Map(value);
  }

 private:
  std::string root_;
  std::vector<std::string> mount_paths_;
};

absl::Status RunInitContainer(const ContainerRef& container, const PodFilesystem& files,
                              RunningPod& pod) {
  const YAML::Node& c = container.node;
  std::vector<std::string> argv = StringList(c["command"]);
  if (argv.empty() || argv[0] != kImageAssembler) {
    return absl::UnimplementedError(absl::StrCat("init container ", container.name(), ": only ",
                                                 kImageAssembler, " can be run here"));
  }
  argv[0] = std::string(DEPLOY_DIR) + "/assemble-model-repository.sh";
  for (const std::string& arg : StringList(c["args"])) argv.push_back(files.MapValue(arg));
  absl::StatusOr<std::map<std::string, std::string>> env = EnvOf(c);
  if (!env.ok()) return env.status();
  ChildSpec spec;
  spec.argv = argv;
  spec.unset_prefixes = {""};  // nothing of the test's environment
  spec.env = ImageEnvironment();
  for (const auto& [name, value] : *env) spec.env[name] = files.MapValue(value);
  ChildProcess process(spec);
  const int exit_code = process.WaitForExit(absl::Seconds(20));
  pod.init_log += process.Stderr();
  if (exit_code != 0) {
    return absl::InternalError(absl::StrCat("init container ", container.name(), " exited with ",
                                            exit_code, ":\n", process.Stderr()));
  }
  return absl::OkStatus();
}

}  // namespace

std::map<std::string, std::string> ImageEnvironment() {
  std::map<std::string, std::string> env = {{"PATH", kImagePath}};
  // Besides the sanitizers' options, the test's private lock directory of the simulator
  // (tests/sim_lock_dir): the daemon's cores must not collide with another test's or a
  // developer's daemon on this machine (in a real pod the runtime's devices are the pod's own).
  for (const char* name :
       {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "NRTSIM_LOCK_DIR"}) {
    if (const char* value = std::getenv(name); value != nullptr) env[name] = value;
  }
  return env;
}

absl::StatusOr<RunningPod> StartPod(const Manifest& manifest, const std::string& root,
                                    const SecretData& secrets) {
  absl::StatusOr<YAML::Node> workload = manifest.Workload();
  if (!workload.ok()) return workload.status();
  return StartPodSpec(manifest, PodSpecOf(*workload), PodOptions(), root, secrets);
}

absl::StatusOr<RunningPod> StartPodSpec(const Manifest& manifest, const YAML::Node& pod_spec,
                                        const PodOptions& options, const std::string& root,
                                        const SecretData& secrets) {
  std::optional<ContainerRef> daemon = ContainerNamed(pod_spec, options.container);
  if (!daemon.has_value()) {
    return absl::NotFoundError(absl::StrCat("no container named ", options.container));
  }
  std::vector<ContainerRef> to_run;  // the run-to-completion init containers, then the daemon
  for (const ContainerRef& container : ContainersOf(pod_spec)) {
    if (container.init && !container.sidecar) to_run.push_back(container);
  }
  to_run.push_back(*daemon);

  RunningPod pod;
  pod.root = root;
  // Volumes: every mount of the containers that run, by mount path, longest (innermost) first.
  std::map<std::string, YAML::Node> volumes;
  for (const YAML::Node& volume : pod_spec["volumes"]) {
    volumes[volume["name"].as<std::string>("")] = volume;
  }
  std::map<std::string, std::string> volume_at;  // mount path -> volume name
  for (const ContainerRef& container : to_run) {
    for (const YAML::Node& mount : container.node["volumeMounts"]) {
      if (mount["subPath"].IsDefined()) return absl::UnimplementedError("subPath mounts");
      volume_at[mount["mountPath"].as<std::string>("")] = mount["name"].as<std::string>("");
    }
  }
  std::vector<std::string> mount_paths;
  for (const auto& [path, name] : volume_at) mount_paths.push_back(path);
  for (const std::string& path : options.provided_mounts) {
    mount_paths.push_back(path);
    pod.substitutions.push_back(
        absl::StrCat("mount ", path, " (added by the controller) -> ", root, path));
  }
  // The runtime library the daemon opens: on a volume, or a file of the image (the Dockerfile's
  // `neuron` target installs it); then its folder maps like a mount's, to hold the simulator.
  const std::optional<std::string> library = EffectiveFlag(daemon->node, "nrt_library");
  if (!library.has_value() || !absl::StartsWith(*library, "/")) {
    return absl::FailedPreconditionError(absl::StrCat("the runtime library '", library.value_or(""),
                                                      "' is not an absolute path in the pod"));
  }
  const bool library_on_volume =
      std::any_of(mount_paths.begin(), mount_paths.end(),
                  [&](const std::string& mount) { return UnderPath(*library, mount); });
  if (!library_on_volume) {
    const std::string folder = fs::path(*library).parent_path().string();
    mount_paths.push_back(folder);
    pod.substitutions.push_back(
        absl::StrCat("image folder ", folder, " (the runtime library's) -> ", root, folder));
  }
  std::sort(mount_paths.begin(), mount_paths.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  const PodFilesystem files(root, mount_paths);

  std::map<std::string, std::string> configmap_at;  // mount path -> ConfigMap data, per key
  for (const auto& [path, name] : volume_at) {
    std::error_code error;
    fs::create_directories(files.Map(path), error);
    if (error) return absl::InternalError(absl::StrCat("cannot create ", files.Map(path)));
    const auto volume = volumes.find(name);
    if (volume == volumes.end()) {
      return absl::NotFoundError(absl::StrCat("mount of an undeclared volume ", name));
    }
    const YAML::Node& v = volume->second;
    if (v["configMap"].IsDefined()) {
      if (At(v, {"configMap", "items"}).IsDefined())
        return absl::UnimplementedError("configMap items");
      const std::string configmap = At(v, {"configMap", "name"}).as<std::string>("");
      std::optional<YAML::Node> object = manifest.Find("ConfigMap", configmap);
      if (!object.has_value()) {
        return absl::NotFoundError(absl::StrCat("the pod mounts ConfigMap ", configmap,
                                                ", which the overlay does not render"));
      }
      for (const auto& entry : (*object)["data"]) {
        const std::string key = entry.first.as<std::string>();
        if (absl::Status s = WriteFile(files.Map(path) + "/" + key, entry.second.as<std::string>());
            !s.ok()) {
          return s;
        }
        if (absl::EndsWith(key, ".pbtxt")) {
          pod.models.push_back(std::string(absl::StripSuffix(key, ".pbtxt")));
          configmap_at[path + "/" + key] = entry.second.as<std::string>();
        }
      }
      pod.substitutions.push_back(
          absl::StrCat("ConfigMap ", configmap, " at ", path, " -> ", files.Map(path)));
    } else if (v["secret"].IsDefined()) {
      if (At(v, {"secret", "items"}).IsDefined()) return absl::UnimplementedError("secret items");
      const std::string secret = At(v, {"secret", "secretName"}).as<std::string>("");
      const auto data = secrets.find(secret);
      if (data == secrets.end()) {
        return absl::NotFoundError(
            absl::StrCat("the pod mounts Secret ", secret, ", which the test does not provide"));
      }
      if (absl::Status s = WriteSecretVolume(files.Map(path), data->second); !s.ok()) return s;
      pod.substitutions.push_back(absl::StrCat("Secret ", secret, " at ", path, " -> ",
                                               files.Map(path), " (the test's, kubelet layout)"));
    } else if (v["emptyDir"].IsDefined() || v["hostPath"].IsDefined() ||
               v["persistentVolumeClaim"].IsDefined()) {
      pod.substitutions.push_back(
          absl::StrCat("volume ", name, " at ", path, " -> ", files.Map(path), " (empty)"));
    } else {
      return absl::UnimplementedError(absl::StrCat("volume ", name, " of an unsupported type"));
    }
  }

  // The NEFF volume, as assemble-model-repository expects it: <repository>/.neffs/<model>/.
  for (const ContainerRef& container : to_run) {
    if (!container.init || container.sidecar) continue;
    const std::vector<std::string> args = StringList(container.node["args"]);
    if (args.size() != 2) return absl::InvalidArgumentError("assemble-model-repository args");
    const std::string neffs = args[1] + "/.neffs";
    if (!volume_at.contains(neffs)) {
      return absl::NotFoundError(absl::StrCat("no volume is mounted at ", neffs));
    }
    for (const std::string& model : pod.models) {
      v1::ModelConfig config;
      const std::string& text = configmap_at[args[0] + "/" + model + ".pbtxt"];
      if (!google::protobuf::TextFormat::ParseFromString(text, &config)) {
        return absl::InvalidArgumentError(absl::StrCat("the config of ", model, " does not parse"));
      }
      const std::string file = config.file().empty() ? "model.neff" : config.file();
      const std::string target = files.Map(absl::StrCat(neffs, "/", model, "/", file));
      std::error_code error;
      fs::create_directories(fs::path(target).parent_path(), error);
      fs::copy_file(kExampleNeff, target, fs::copy_options::overwrite_existing, error);
      if (error) return absl::InternalError(absl::StrCat("cannot copy the NEFF to ", target));
      pod.substitutions.push_back(
          absl::StrCat("NEFF ", neffs, "/", model, "/", file, " -> ", "a copy of ", kExampleNeff));
    }
  }

  for (const ContainerRef& container : to_run) {
    if (!container.init || container.sidecar) continue;
    if (absl::Status status = RunInitContainer(container, files, pod); !status.ok()) {
      return status;
    }
  }

  // The daemon.
  const YAML::Node& d = daemon->node;
  if (d["command"].IsDefined()) {
    return absl::UnimplementedError("the daemon container overrides the image's ENTRYPOINT");
  }
  pod.substitutions.push_back(absl::StrCat("ENTRYPOINT ", kImageDaemon, " -> ", NEURON_SERVE_PATH));
  absl::StatusOr<std::map<std::string, std::string>> env = EnvOf(d);
  if (!env.ok()) return env.status();

  {
    std::error_code error;
    fs::create_directories(fs::path(files.Map(*library)).parent_path(), error);
    fs::create_symlink(NRTSIM_LIBRARY_PATH, files.Map(*library), error);
    if (error) return absl::InternalError("cannot link the simulated runtime");
    pod.substitutions.push_back(absl::StrCat("runtime ", *library, " -> ", NRTSIM_LIBRARY_PATH));
  }

  // --listen, --http-listen and --health-listen, from args or env: a free loopback port each.
  auto map_address = [&](const std::string& flag, const std::string& value) -> std::string {
    const bool is_listen_flag =
        std::any_of(std::begin(kListenFlags), std::end(kListenFlags),
                    [&](const ListenFlag& listen) { return CanonicalFlagName(flag) == listen.flag; });
    if (!is_listen_flag) return value;
    if (value.empty()) return value;
    if (std::optional<int> port = PortOf(value); port.has_value()) {
      pod.address_for_port[*port] = CanonicalFlagName(flag);  // resolved after the start
    }
    pod.substitutions.push_back(absl::StrCat(flag, " ", value, " -> 127.0.0.1:0"));
    return "127.0.0.1:0";
  };
  pod.daemon_argv = {NEURON_SERVE_PATH};
  for (std::string arg : StringList(d["args"])) {
    for (const auto& [placeholder, value] : options.placeholders) {
      if (absl::StrContains(arg, placeholder)) {
        pod.substitutions.push_back(absl::StrCat(placeholder, " in ", arg, " -> ", value));
        arg = absl::StrReplaceAll(arg, {{placeholder, value}});
      }
    }
    std::string mapped = files.MapValue(arg);
    const size_t equals = arg.find('=');
    if (absl::StartsWith(arg, "--") && equals != std::string::npos) {
      const std::string flag = arg.substr(2, equals - 2);
      const std::string value = map_address(flag, arg.substr(equals + 1));
      if (value != arg.substr(equals + 1)) mapped = absl::StrCat("--", flag, "=", value);
    }
    pod.daemon_argv.push_back(mapped);
  }
  pod.daemon_env = ImageEnvironment();
  for (const auto& [name, value] : *env) {
    const std::string flag = FlagForEnvironmentVariable(name);
    std::string mapped = files.MapValue(value);
    if (!flag.empty()) {
      const std::string address = map_address(flag, value);
      if (address != value) mapped = address;
    }
    pod.daemon_env[name] = mapped;
  }

  ChildSpec spec;
  spec.argv = pod.daemon_argv;
  spec.unset_prefixes = {""};
  spec.env = pod.daemon_env;
  pod.daemon = std::make_unique<ChildProcess>(spec);
  if (!options.wait_until_listening) return pod;
  if (!pod.daemon->WaitUntilListening(absl::Seconds(30)).has_value()) {
    return absl::DeadlineExceededError(
        absl::StrCat("the daemon did not start listening:\n", pod.daemon->Stderr()));
  }
  // Where it really listens: from its log lines, in text or JSON format alike.
  const std::string log = pod.daemon->Stderr();
  for (auto& [port, flag] : pod.address_for_port) {
    // Compared by name, not captured: clang 14 cannot capture a structured binding.
    const std::string& name = flag;
    const ListenFlag* listen = std::find_if(std::begin(kListenFlags), std::end(kListenFlags),
                                            [&](const ListenFlag& f) { return name == f.flag; });
    const std::regex line(listen->log_pattern);
    std::smatch match;
    if (!std::regex_search(log, match, line)) {
      return absl::NotFoundError(absl::StrCat("no log line says where ", flag, " went:\n", log));
    }
    flag = match[1];
  }
  return pod;
}

int HealthStatus(const std::string& address, const std::string& service) {
  return HealthCheck(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()), service,
                     absl::Seconds(5));
}

bool WaitForServing(const std::string& address, const std::string& service,
                    absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    if (HealthStatus(address, service) == grpc::health::v1::HealthCheckResponse::SERVING) {
      return true;
    }
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(100));
  }
}

}  // namespace neuronserve::testing
