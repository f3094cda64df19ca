// The Kubernetes manifests of deploy/kubernetes as the cluster would receive them: an overlay
// rendered by `kubectl kustomize` and parsed with yaml-cpp, and the questions the tests ask of
// it (the workload, its pod, the neuron-serve container, its flags, ports, probes and volumes).
#ifndef NEURON_SERVE_TESTS_DEPLOY_MANIFEST_H_
#define NEURON_SERVE_TESTS_DEPLOY_MANIFEST_H_

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "yaml-cpp/yaml.h"

namespace neuronserve::testing {

// The name of the daemon's container in every workload of deploy/kubernetes.
inline constexpr char kDaemonContainer[] = "neuron-serve";

struct ContainerRef {
  YAML::Node node;
  bool init = false;     // listed under initContainers
  bool sidecar = false;  // an init container with restartPolicy: Always (runs beside the app)
  std::string name() const { return node["name"].as<std::string>(""); }
};

class Manifest {
 public:
  // Runs `kubectl kustomize deploy/kubernetes/overlays/<overlay>`; an error names what failed
  // (kubectl missing, the render failing with its output, YAML that does not parse).
  static absl::StatusOr<Manifest> Render(const std::string& overlay);
  // Runs `kubectl kustomize DIR` for a kustomization elsewhere than the overlays (deploy/kserve).
  static absl::StatusOr<Manifest> RenderDir(const std::string& dir);

  const std::vector<YAML::Node>& objects() const { return objects_; }
  std::vector<YAML::Node> OfKind(const std::string& kind) const;
  std::optional<YAML::Node> Find(const std::string& kind, const std::string& name) const;

  // The one Deployment or DaemonSet of the overlay (NOT_FOUND / FAILED_PRECONDITION otherwise).
  absl::StatusOr<YAML::Node> Workload() const;

 private:
  std::vector<YAML::Node> objects_;
};

// node[keys[0]][keys[1]]...: an undefined node when a key along the way is missing. (yaml-cpp's
// const operator[] throws on a missing key's child, and the non-const one inserts keys.)
YAML::Node At(const YAML::Node& node, std::initializer_list<std::string> keys);

// spec.template.spec of a workload.
YAML::Node PodSpecOf(const YAML::Node& workload);
// Every container of a pod: init containers first, in order, then the regular ones.
std::vector<ContainerRef> ContainersOf(const YAML::Node& pod_spec);
std::optional<ContainerRef> ContainerNamed(const YAML::Node& pod_spec, const std::string& name);

std::vector<std::string> StringList(const YAML::Node& node);
// A container's env as name -> value; an entry with valueFrom is an error (the tests cannot
// reproduce what the cluster would put there).
absl::StatusOr<std::map<std::string, std::string>> EnvOf(const YAML::Node& container);

// The value the daemon in `container` gets for flag `name` (either spelling): from its args
// ("--name=value"; the command line wins), else from NEURON_SERVE_<NAME> in its env, else the
// binary's default (DaemonFlagDefaults). nullopt for a flag the binary does not have.
std::optional<std::string> EffectiveFlag(const YAML::Node& container, const std::string& name);

// "0.0.0.0:8001" -> 8001, "[::]:8001" -> 8001; nullopt when there is no numeric port.
std::optional<int> PortOf(const std::string& host_port);
std::string HostOf(const std::string& host_port);

// The containerPort behind a port reference (a number, or a port name looked up in every
// container of the pod), and the container that declares it.
struct ResolvedPort {
  int port = 0;
  std::string container;
  bool by_name = false;
};
std::optional<ResolvedPort> ResolvePort(const YAML::Node& pod_spec, const YAML::Node& reference);

// How long a container's preStop hook waits: 0 without one, the seconds of an exec
// ["sleep"|"/bin/sleep", N] or of a sleep action; an error for any other hook (a hook that
// does something else may cut the drain short, and the tests cannot tell how long it takes).
absl::StatusOr<int> PreStopSleepSeconds(const YAML::Node& container);

// Whether every key/value of `selector` is among `labels`.
bool SelectorMatches(const YAML::Node& selector, const YAML::Node& labels);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_DEPLOY_MANIFEST_H_
