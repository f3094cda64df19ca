// Runtime settings the daemon cannot honour with the runtime version it got. The runtime reads
// its NEURON_RT_* variables itself; these checks run after nrt_init, when the version is known,
// and make the daemon refuse to start rather than serve wrongly.
//
// Thread safety: CheckAsyncExecSetting is a pure function. CheckRuntimeEnvironment reads the
// process environment (getenv), so it must not run while another thread changes it (setenv,
// putenv); the daemon calls it once, from Daemon::Start, and never changes its own environment.
// Nothing here owns or keeps anything.
#ifndef NEURON_SERVE_CORE_NRT_RUNTIME_ENVIRONMENT_H_
#define NEURON_SERVE_CORE_NRT_RUNTIME_ENVIRONMENT_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "core/nrt/nrt_runtime.h"

namespace neuronserve {

inline constexpr char kAsyncExecVariable[] = "NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS";

// NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS (`value`; nullopt or empty: unset) turns on the
// runtime's implicit async mode before 2.34 (deprecated in 2.32, removed in 2.34): nrt_execute
// returns before the execution completes and errors arrive only through
// nrt_register_async_exec_callback, which the daemon does not use. FAILED_PRECONDITION naming the
// variable, its value and the runtime version when it is set and the runtime is older than 2.34;
// OK otherwise.
absl::Status CheckAsyncExecSetting(const RuntimeVersion& version,
                                   const std::optional<std::string>& value);

// Every check above, with the values of this process's environment.
absl::Status CheckRuntimeEnvironment(const RuntimeVersion& version);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_NRT_RUNTIME_ENVIRONMENT_H_
