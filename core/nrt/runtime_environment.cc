#include "core/nrt/runtime_environment.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace neuronserve {
namespace {

bool OlderThan(const RuntimeVersion& version, uint64_t major, uint64_t minor) {
  return version.major < major || (version.major == major && version.minor < minor);
}

}  // namespace

absl::Status CheckAsyncExecSetting(const RuntimeVersion& version,
                                   const std::optional<std::string>& value) {
  if (!value.has_value() || value->empty()) return absl::OkStatus();
  if (!OlderThan(version, 2, 34)) return absl::OkStatus();  // removed in 2.34: ignored
  return absl::FailedPreconditionError(absl::StrCat(
      kAsyncExecVariable, " is set ('", *value, "'): Neuron runtime ", version.ToString(),
      " (older than 2.34) then runs nrt_execute asynchronously and reports execution errors only "
      "through nrt_register_async_exec_callback, which neuron-serve does not use; unset ",
      kAsyncExecVariable, " to start"));
}

absl::Status CheckRuntimeEnvironment(const RuntimeVersion& version) {
  const char* async = std::getenv(kAsyncExecVariable);
  return CheckAsyncExecSetting(version, async == nullptr ? std::nullopt
                                                         : std::optional<std::string>(async));
}

}  // namespace neuronserve
