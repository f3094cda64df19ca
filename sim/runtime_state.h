// The process-wide runtime state machine:
//
//   never initialized --nrt_init--> open --nrt_close--> closed --nrt_init--> open ...
//
// Each nrt_init builds a new Session (the configuration and the cores) from the environment and
// locks the session's physical cores against other processes (core_locks.h); nrt_close releases
// them. Handles keep what they need of their session alive, so they stay freeable after
// nrt_close. Every function here is thread-safe.
#ifndef NEURON_SERVE_SIM_RUNTIME_STATE_H_
#define NEURON_SERVE_SIM_RUNTIME_STATE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "base/nrt_abi.h"
#include "sim/core_occupancy.h"
#include "sim/device_core.h"
#include "sim/sim_config.h"

namespace neuronserve::nrtsim {

struct Session {
  uint64_t id = 0;  // distinct for every nrt_init of the process
  SimConfig config;
  std::vector<std::shared_ptr<DeviceCore>> cores;  // indexed by visible core number
  std::shared_ptr<CoreOccupancy> occupancy;        // which cores hold loaded models

  // nullptr if vnc is not a visible core.
  std::shared_ptr<DeviceCore> CoreAt(int64_t vnc) const;
};

// nrt_init: NRT_FAILURE if already open, NRT_INVALID (and a log line) on a bad environment,
// NRT_RESOURCE (and a line naming the cores and the holders' pids) if another live process
// holds one of the cores, NRT_FAILURE (and a line) if the lock directory is unusable.
NRT_STATUS OpenRuntime();

// nrt_close: true if the runtime was open (and is now closed, its cores released).
bool CloseRuntime();

// The open session; NRT_UNINITIALIZED before the first nrt_init, NRT_CLOSED after nrt_close.
NRT_STATUS CurrentSession(std::shared_ptr<const Session>* session);

// For the queries that work without nrt_init (core counts, instance info, version): the open
// session's configuration, or else the environment read now. NRT_INVALID (and a log line naming
// the variable) on a bad environment.
NRT_STATUS ConfigForQuery(const char* caller, SimConfig* config);

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_RUNTIME_STATE_H_
