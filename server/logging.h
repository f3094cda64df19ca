// The daemon's log setup: spdlog to stderr, one line per lifecycle event.
#ifndef NEURON_SERVE_SERVER_LOGGING_H_
#define NEURON_SERVE_SERVER_LOGGING_H_

#include <string>

#include "absl/status/status.h"

namespace neuronserve {

// INVALID_ARGUMENT for a level spdlog does not know.
absl::Status ConfigureLogging(const std::string& level);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_LOGGING_H_
