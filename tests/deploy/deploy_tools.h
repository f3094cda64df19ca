// What the deploy tests share besides YAML: finding the tools they drive (kubectl,
// systemd-analyze, apt-cache, dpkg, ldd) on PATH, the daemon's own list of flags and their
// defaults (from `neuron-serve --helpfull`), and files.
#ifndef NEURON_SERVE_TESTS_DEPLOY_DEPLOY_TOOLS_H_
#define NEURON_SERVE_TESTS_DEPLOY_DEPLOY_TOOLS_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing {

// The image the Kubernetes and KServe manifests run, as deploy/Dockerfile's `neuron` target
// builds it (its header comment gives the command), and the Neuron runtime library that target
// installs; deploy.DockerfileTest checks both against the Dockerfile.
inline constexpr char kNeuronImage[] = "neuron-serve:0.1.0-neuron";
inline constexpr char kImageNeuronRuntime[] = "/opt/aws/neuron/lib/libnrt.so.1";

// The absolute path of `program` on PATH, or "" when it is not there.
std::string FindProgram(const std::string& program);

// Every flag of the built daemon (names with underscores, as absl spells them) and its
// default, as `neuron-serve --helpfull` prints it ("" for an empty string).
const std::map<std::string, std::string>& DaemonFlagDefaults();

// The flag's name as absl spells it: dashes become underscores ("drain-timeout" ->
// "drain_timeout"), as the daemon accepts either.
std::string CanonicalFlagName(const std::string& name);

// "NEURON_SERVE_DRAIN_TIMEOUT" -> "drain_timeout"; "" if `variable` lacks the prefix.
std::string FlagForEnvironmentVariable(const std::string& variable);

absl::StatusOr<std::string> ReadFile(const std::string& path);
absl::Status WriteFile(const std::string& path, const std::string& contents);

// A duration in the daemon's flag syntax (absl::ParseDuration: "30s", "1m30s").
absl::StatusOr<absl::Duration> ParseFlagDuration(const std::string& text);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_DEPLOY_DEPLOY_TOOLS_H_
