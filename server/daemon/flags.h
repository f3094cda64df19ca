// The daemon's command-line flags (Abseil flags), and how they are read.
//
// Every flag can also be set by an environment variable NEURON_SERVE_<FLAG> (upper case,
// underscores): containers and systemd units configure by environment. The command line wins
// over the environment. Flags may be spelled with dashes (--nrt-library) or underscores.
#ifndef NEURON_SERVE_SERVER_DAEMON_FLAGS_H_
#define NEURON_SERVE_SERVER_DAEMON_FLAGS_H_

#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "absl/time/time.h"

ABSL_DECLARE_FLAG(std::string, listen);
ABSL_DECLARE_FLAG(std::string, nrt_library);
ABSL_DECLARE_FLAG(std::string, log_level);
ABSL_DECLARE_FLAG(std::string, log_format);
ABSL_DECLARE_FLAG(std::string, access_log);
ABSL_DECLARE_FLAG(std::string, malloc);
ABSL_DECLARE_FLAG(std::string, http_listen);
ABSL_DECLARE_FLAG(std::string, http_tls_cert);
ABSL_DECLARE_FLAG(std::string, http_tls_key);
ABSL_DECLARE_FLAG(absl::Duration, drain_timeout);
ABSL_DECLARE_FLAG(absl::Duration, execution_timeout);
ABSL_DECLARE_FLAG(std::string, model_repository);
ABSL_DECLARE_FLAG(std::string, load_models);
ABSL_DECLARE_FLAG(std::string, model_dir);
ABSL_DECLARE_FLAG(std::string, model_name);
ABSL_DECLARE_FLAG(std::string, state_dir);
ABSL_DECLARE_FLAG(uint64_t, max_model_bytes);
ABSL_DECLARE_FLAG(absl::Duration, unload_timeout);
ABSL_DECLARE_FLAG(uint32_t, max_queue);
ABSL_DECLARE_FLAG(uint64_t, max_queued_bytes);
ABSL_DECLARE_FLAG(absl::Duration, malloc_trim_interval);
ABSL_DECLARE_FLAG(uint32_t, max_retired_metric_versions);
ABSL_DECLARE_FLAG(uint32_t, pipeline_depth);
ABSL_DECLARE_FLAG(uint64_t, max_message_bytes);
ABSL_DECLARE_FLAG(std::string, tls_cert);
ABSL_DECLARE_FLAG(std::string, tls_key);
ABSL_DECLARE_FLAG(std::string, tls_client_ca);
ABSL_DECLARE_FLAG(std::string, infer_token_file);
ABSL_DECLARE_FLAG(std::string, admin_token_file);
ABSL_DECLARE_FLAG(std::string, admin_listen);
ABSL_DECLARE_FLAG(std::string, health_listen);
ABSL_DECLARE_FLAG(uint32_t, max_models);
ABSL_DECLARE_FLAG(uint32_t, max_concurrent_uploads);
ABSL_DECLARE_FLAG(uint32_t, max_metadata_bytes);
ABSL_DECLARE_FLAG(std::string, audit_log);
ABSL_DECLARE_FLAG(bool, allow_client_shared_memory);
ABSL_DECLARE_FLAG(std::string, shared_memory_key_prefix);
ABSL_DECLARE_FLAG(uint32_t, shared_memory_max_regions);
ABSL_DECLARE_FLAG(uint64_t, shared_memory_max_bytes);
ABSL_DECLARE_FLAG(absl::Duration, credential_poll_interval);

namespace neuronserve {

// The environment variable that sets `flag_name`: "nrt_library" -> "NEURON_SERVE_NRT_LIBRARY".
std::string EnvironmentVariableForFlag(const std::string& flag_name);

// Sets every registered flag that has a NEURON_SERVE_<FLAG> variable in the environment.
// INVALID_ARGUMENT naming the variable when its value does not parse.
absl::Status ApplyFlagsFromEnvironment();

// Rewrites "--nrt-library=x" to "--nrt_library=x" (dashes in the name only, never in the value),
// because Abseil flag names are identifiers. Arguments after a bare "--" are left alone.
std::vector<std::string> NormalizeFlagSpelling(int argc, char** argv);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_DAEMON_FLAGS_H_
