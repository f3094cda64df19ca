// The daemon's log setup: spdlog to stderr, one line per lifecycle event (start, model loading,
// ready, failed, unloaded, core unhealthy, drain), none per request at the default level
// (requests go to the access log, when there is one).
#ifndef NEURON_SERVE_SERVER_LOGGING_H_
#define NEURON_SERVE_SERVER_LOGGING_H_

#include <string>

#include "absl/status/status.h"

namespace neuronserve {

enum class LogFormat { kText, kJson };

// INVALID_ARGUMENT naming the flag for a level spdlog does not know or a format other than
// "text" and "json".
absl::Status ParseLogFormat(const std::string& text, LogFormat* format);
absl::Status ConfigureLogging(const std::string& level, LogFormat format = LogFormat::kText);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_LOGGING_H_
