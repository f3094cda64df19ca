#include "tests/deploy/manifest.h"

#include <exception>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tests/deploy/deploy_tools.h"
#include "tests/support/subprocess.h"
#include "tests/support/build_paths.h"

namespace neuronserve::testing {

absl::StatusOr<Manifest> Manifest::Render(const std::string& overlay) {
  return RenderDir(absl::StrCat(DEPLOY_DIR, "/kubernetes/overlays/", overlay));
}

absl::StatusOr<Manifest> Manifest::RenderDir(const std::string& dir) {
  const std::string kubectl = FindProgram("kubectl");
  if (kubectl.empty()) {
    return absl::FailedPreconditionError(
        "kubectl is not on PATH: the deploy tests render the manifests with `kubectl kustomize` "
        "(kubectl 1.21 or later; .ci/install-deps says where to get it)");
  }
  const ProcessResult render = RunProcess({kubectl, "kustomize", dir});
  if (render.exit_code != 0) {
    return absl::InternalError(absl::StrCat("kubectl kustomize ", dir, " exited with ",
                                            render.exit_code, ":\n", render.err, render.out));
  }
  Manifest manifest;
  try {
    for (const YAML::Node& object : YAML::LoadAll(render.out)) {
      if (object.IsMap()) manifest.objects_.push_back(object);
    }
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("the rendered ", dir, " is not YAML: ", e.what()));
  }
  if (manifest.objects_.empty()) {
    return absl::InternalError(absl::StrCat("kubectl kustomize ", dir, " rendered nothing"));
  }
  return manifest;
}

std::vector<YAML::Node> Manifest::OfKind(const std::string& kind) const {
  std::vector<YAML::Node> found;
  for (const YAML::Node& object : objects_) {
    if (object["kind"].as<std::string>("") == kind) found.push_back(object);
  }
  return found;
}

std::optional<YAML::Node> Manifest::Find(const std::string& kind, const std::string& name) const {
  for (const YAML::Node& object : OfKind(kind)) {
    if (At(object, {"metadata", "name"}).as<std::string>("") == name) return object;
  }
  return std::nullopt;
}

absl::StatusOr<YAML::Node> Manifest::Workload() const {
  std::vector<YAML::Node> workloads = OfKind("Deployment");
  for (const YAML::Node& daemonset : OfKind("DaemonSet")) workloads.push_back(daemonset);
  if (workloads.empty()) return absl::NotFoundError("no Deployment or DaemonSet rendered");
  if (workloads.size() > 1) {
    return absl::FailedPreconditionError("more than one Deployment or DaemonSet rendered");
  }
  return workloads.front();
}

YAML::Node At(const YAML::Node& node, std::initializer_list<std::string> keys) {
  YAML::Node current;
  current.reset(node);  // rebinds; operator= would write into the tree
  for (const std::string& key : keys) {
    const YAML::Node& parent = current;
    if (!parent.IsDefined() || !parent.IsMap() || !parent[key].IsDefined()) {
      return YAML::Node(YAML::NodeType::Undefined);
    }
    YAML::Node child;
    child.reset(parent[key]);
    current.reset(child);
  }
  return current;
}

YAML::Node PodSpecOf(const YAML::Node& workload) {
  return At(workload, {"spec", "template", "spec"});
}

std::vector<ContainerRef> ContainersOf(const YAML::Node& pod_spec) {
  const YAML::Node& pod = pod_spec;
  std::vector<ContainerRef> containers;
  for (const YAML::Node& container : pod["initContainers"]) {
    containers.push_back(
        {container, true, container["restartPolicy"].as<std::string>("") == "Always"});
  }
  for (const YAML::Node& container : pod["containers"]) {
    containers.push_back({container, false, false});
  }
  return containers;
}

std::optional<ContainerRef> ContainerNamed(const YAML::Node& pod_spec, const std::string& name) {
  for (const ContainerRef& container : ContainersOf(pod_spec)) {
    if (container.name() == name) return container;
  }
  return std::nullopt;
}

std::vector<std::string> StringList(const YAML::Node& node) {
  std::vector<std::string> values;
  const YAML::Node& list = node;
  if (!list.IsSequence()) return values;
  for (const YAML::Node& item : list) values.push_back(item.as<std::string>(""));
  return values;
}

absl::StatusOr<std::map<std::string, std::string>> EnvOf(const YAML::Node& container) {
  const YAML::Node& c = container;
  std::map<std::string, std::string> env;
  for (const YAML::Node& entry : c["env"]) {
    const std::string name = entry["name"].as<std::string>("");
    if (entry["valueFrom"].IsDefined()) {
      return absl::UnimplementedError(absl::StrCat("env ", name, " uses valueFrom"));
    }
    env[name] = entry["value"].as<std::string>("");
  }
  if (c["envFrom"].IsDefined()) {
    return absl::UnimplementedError("envFrom: the variables come from outside the manifest");
  }
  return env;
}

std::optional<std::string> EffectiveFlag(const YAML::Node& container, const std::string& name) {
  const std::string flag = CanonicalFlagName(name);
  const auto& defaults = DaemonFlagDefaults();
  const auto default_value = defaults.find(flag);
  if (default_value == defaults.end()) return std::nullopt;
  std::optional<std::string> from_args;
  for (const std::string& arg : StringList(container["args"])) {
    if (!absl::StartsWith(arg, "-")) continue;
    const std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
    const size_t equals = body.find('=');
    if (CanonicalFlagName(body.substr(0, equals)) != flag) continue;
    from_args = equals == std::string::npos ? "true" : body.substr(equals + 1);  // the last wins
  }
  if (from_args.has_value()) return from_args;
  absl::StatusOr<std::map<std::string, std::string>> env = EnvOf(container);
  if (env.ok()) {
    for (const auto& [variable, value] : *env) {
      if (FlagForEnvironmentVariable(variable) == flag) return value;
    }
  }
  return default_value->second;
}

std::optional<int> PortOf(const std::string& host_port) {
  const size_t colon = host_port.rfind(':');
  int port = 0;
  if (colon == std::string::npos || !absl::SimpleAtoi(host_port.substr(colon + 1), &port)) {
    return std::nullopt;
  }
  return port;
}

std::string HostOf(const std::string& host_port) {
  const size_t colon = host_port.rfind(':');
  return colon == std::string::npos ? host_port : host_port.substr(0, colon);
}

std::optional<ResolvedPort> ResolvePort(const YAML::Node& pod_spec, const YAML::Node& reference) {
  const YAML::Node& ref = reference;
  int number = 0;
  const std::string text = ref.as<std::string>("");
  const bool numeric = absl::SimpleAtoi(text, &number);
  for (const ContainerRef& container : ContainersOf(pod_spec)) {
    if (container.init && !container.sidecar) continue;  // gone before the pod serves
    const YAML::Node& c = container.node;
    for (const YAML::Node& port : c["ports"]) {
      const int container_port = port["containerPort"].as<int>(0);
      if ((numeric && container_port == number) ||
          (!numeric && port["name"].as<std::string>("") == text)) {
        return ResolvedPort{container_port, container.name(), !numeric};
      }
    }
  }
  return std::nullopt;
}

absl::StatusOr<int> PreStopSleepSeconds(const YAML::Node& container) {
  const YAML::Node& c = container;
  const YAML::Node& pre_stop = At(c, {"lifecycle", "preStop"});
  if (!pre_stop.IsDefined()) return 0;
  if (pre_stop["sleep"].IsDefined()) return At(pre_stop, {"sleep", "seconds"}).as<int>(0);
  const std::vector<std::string> command = StringList(At(pre_stop, {"exec", "command"}));
  int seconds = 0;
  if (command.size() == 2 &&
      (command[0] == "sleep" || command[0] == "/bin/sleep" || command[0] == "/usr/bin/sleep") &&
      absl::SimpleAtoi(command[1], &seconds)) {
    return seconds;
  }
  return absl::InvalidArgumentError(absl::StrCat("container ", c["name"].as<std::string>(""),
                                                 ": a preStop hook other than a plain sleep"));
}

bool SelectorMatches(const YAML::Node& selector, const YAML::Node& labels) {
  const YAML::Node& wanted = selector;
  const YAML::Node& have = labels;
  if (!wanted.IsMap() || wanted.size() == 0) return false;
  for (const auto& entry : wanted) {
    const std::string key = entry.first.as<std::string>();
    if (!have[key].IsDefined() || have[key].as<std::string>("") != entry.second.as<std::string>()) {
      return false;
    }
  }
  return true;
}

}  // namespace neuronserve::testing
