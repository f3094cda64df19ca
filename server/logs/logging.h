// The daemon's log setup: spdlog to stderr, one line per lifecycle event (start, model loading,
// ready, failed, unloaded, core unhealthy, drain), none per request at the default level
// (requests go to the access log, when there is one).
//
// gRPC's own log lines (gpr_log) go through the same sink as logger "grpc", in the same format.
// With --log-format=json, OutputCapture (output_capture.h) turns what else reaches fds 1 and 2
// into JSON lines too.
#ifndef NEURON_SERVE_SERVER_LOGS_LOGGING_H_
#define NEURON_SERVE_SERVER_LOGS_LOGGING_H_

#include <string>

#include "absl/status/status.h"

namespace neuronserve {

enum class LogFormat { kText, kJson };

// INVALID_ARGUMENT naming the flag for a level spdlog does not know or a format other than
// "text" and "json".
absl::Status ParseLogFormat(const std::string& text, LogFormat* format);

// Makes the default spdlog logger ("neuron-serve") and the "grpc" logger write to a duplicate
// of fd 2 taken now: an OutputCapture started later does not capture the daemon's own lines.
// Installs the gRPC log function and, unless GRPC_VERBOSITY is set in the environment (an
// explicit choice wins), sets gRPC's verbosity from `level` (trace: DEBUG; debug: INFO;
// info and above: ERROR, gRPC's default). Call once, before gRPC starts; not thread-safe.
absl::Status ConfigureLogging(const std::string& level, LogFormat format = LogFormat::kText);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_LOGS_LOGGING_H_
