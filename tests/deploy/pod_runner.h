// Runs a rendered pod's neuron-serve on this machine, as the kubelet would start it, on the
// simulated runtime: the pod's run-to-completion init containers first, then the daemon, each
// with exactly the command, arguments and environment of the manifest, except for the few
// substitutions that only a real node can provide, each listed in `substitutions`:
//
//   - volume mounts: every mountPath P becomes <temporary root>/P (so nested mounts nest the
//     same way), and an argument or variable naming a path under a mount names the mapped one;
//     a configMap volume holds the rendered ConfigMap's keys as files, a secret volume the
//     test's data for that Secret in the kubelet's layout (key -> ..data/key, ..data -> a
//     versioned folder), an emptyDir, hostPath or persistentVolumeClaim starts empty, except for:
//   - the NEFF volume (mounted at <repository>/.neffs, the layout assemble-model-repository
//     expects): <model>/<file of its config.pbtxt> for every model of the ConfigMap, a copy of
//     the example sim NEFF deploy/models/mlp/model.neff;
//   - the runtime library the daemon is told to open (NEURON_SERVE_NRT_LIBRARY or
//     --nrt-library): a symlink to this build's libnrtsim.so, on its volume if it is on one, else
//     in the image (the Dockerfile's `neuron` target installs it), whose folder then maps to
//     <temporary root>/folder like a mount;
//   - the image's executables: /usr/local/bin/neuron-serve (the ENTRYPOINT) is this build's
//     binary and /usr/local/bin/assemble-model-repository is deploy/assemble-model-repository.sh,
//     the files the Dockerfile installs there;
//   - the addresses of --listen, --http-listen and --health-listen become 127.0.0.1:0 (a free
//     port, read back from the log) instead of every interface on a fixed port; a unix socket
//     address under a mount is mapped like a path;
//   - placeholders a controller fills in (KServe's {{.Name}}) and mounts it adds (/mnt/models),
//     when StartPodSpec's options name them;
//   - the environment is the manifest's env plus the image's PATH (Debian's default), and the
//     sanitizer options of this test run if any; nothing of the test's own environment leaks in.
#ifndef NEURON_SERVE_TESTS_DEPLOY_POD_RUNNER_H_
#define NEURON_SERVE_TESTS_DEPLOY_POD_RUNNER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tests/deploy/deploy_tools.h"
#include "tests/deploy/manifest.h"
#include "tests/support/child_process.h"

namespace neuronserve::testing {

// The PATH of the debian:bookworm base image; the Dockerfile sets no other variable.
inline constexpr char kImagePath[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// The contents of the Secrets the pod mounts: Secret name -> key -> contents. (A cluster's
// Secrets are not in the manifests; the test makes its own.)
using SecretData = std::map<std::string, std::map<std::string, std::string>>;

struct RunningPod {
  std::unique_ptr<ChildProcess> daemon;
  std::vector<std::string> daemon_argv;           // as run (after the substitutions)
  std::map<std::string, std::string> daemon_env;  // as run
  std::map<int, std::string> address_for_port;    // manifest port -> where it listens here
  std::vector<std::string> models;                // the ConfigMap's models
  std::string root;  // the pod's paths P are <root>/P here (the mounted ones)
  std::vector<std::string> substitutions;         // what was mapped, for failure messages
  std::string init_log;                           // the init containers' stderr
};

// Runs the init containers and starts the daemon of `manifest`'s workload under `root`, and
// waits for its "listening on" line (the startup models are loaded then).
absl::StatusOr<RunningPod> StartPod(const Manifest& manifest, const std::string& root,
                                    const SecretData& secrets = {});

// What a pod spec that is not a workload's needs besides: a KServe ServingRuntime's spec is a
// pod template that the KServe controller completes.
struct PodOptions {
  // The container that runs the daemon.
  std::string container = kDaemonContainer;
  // Replaced in the daemon's args, as the controller that renders the pod does: KServe's
  // "{{.Name}}" becomes the InferenceService's name.
  std::map<std::string, std::string> placeholders;
  // Mounts the controller adds to the daemon container, not in the spec (KServe's storage
  // initializer's /mnt/models): each path P maps to <root>/P like a volume's, and the test fills
  // that folder itself, or leaves it missing.
  std::vector<std::string> provided_mounts;
  // Wait for "listening on" (false: return once the daemon is started, for a test that expects
  // it to exit).
  bool wait_until_listening = true;
};

// StartPod for `pod_spec` (a pod spec: containers, initContainers, volumes) of `manifest`.
absl::StatusOr<RunningPod> StartPodSpec(const Manifest& manifest, const YAML::Node& pod_spec,
                                        const PodOptions& options, const std::string& root,
                                        const SecretData& secrets = {});

// The environment a container of the image gets besides its manifest env: PATH, this test
// run's sanitizer options (ASAN_OPTIONS and the like), which only make a sanitizer build of the
// daemon behave as the rest of the suite's, and the test's private NRTSIM_LOCK_DIR, which keeps
// the simulator's core reservations apart from other tests' and a developer's daemons.
std::map<std::string, std::string> ImageEnvironment();

// grpc.health.v1 Check of `service` at `address`: the HealthCheckResponse status number
// (1 = SERVING), or -1 when the call failed (NOT_FOUND for an unknown service, say).
int HealthStatus(const std::string& address, const std::string& service);
// Asks again every 100 ms, as a probe with a short period would, until SERVING or `timeout`.
bool WaitForServing(const std::string& address, const std::string& service, absl::Duration timeout);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_DEPLOY_POD_RUNNER_H_
