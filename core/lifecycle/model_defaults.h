// The defaults of what a model's configuration may leave unset, in one place: the registry and
// the version loader (their options' default values), the daemon's DaemonOptions and the flags
// that set them (server/daemon/flags.cc, defaults and help) all take them from here, so that a
// default cannot differ between the library, the daemon and its --help.
//
// Thread safety: constants.
#ifndef NEURON_SERVE_CORE_LIFECYCLE_MODEL_DEFAULTS_H_
#define NEURON_SERVE_CORE_LIFECYCLE_MODEL_DEFAULTS_H_

#include <cstdint>

#include "absl/time/time.h"

namespace neuronserve {

// How long an unload (or the retirement of a replaced version) waits for the requests in flight
// before the ones still queued are answered UNAVAILABLE (--unload-timeout).
inline constexpr absl::Duration kDefaultUnloadTimeout = absl::Seconds(30);
// A model's request queue bound when its configuration sets none (--max-queue).
inline constexpr uint32_t kDefaultMaxQueue = 1024;
// Tensor sets per replica and variant when a model's configuration sets no pipeline_depth
// (--pipeline-depth): 2 lets a core execute one unit while the copies of the next and the last
// run beside it; 1 turns pipelining off.
inline constexpr uint32_t kDefaultPipelineDepth = 2;

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_LIFECYCLE_MODEL_DEFAULTS_H_
