// Sim-only exports of libnrtsim.so, for tests: counters that prove leak-freedom, parallelism and
// serialization without timing. The daemon never uses them (the real libnrt has no such
// symbols); resolve them with dlsym.
#ifndef NEURON_SERVE_SIM_NRTSIM_STATS_H_
#define NEURON_SERVE_SIM_NRTSIM_STATS_H_

#include <stddef.h>
#include <stdint.h>

#include "base/nrt_abi.h"

extern "C" {

// Process-wide counters (they survive nrt_close / nrt_init). Fields are only ever appended, so
// a caller built against an older header passes its smaller sizeof.
typedef struct nrtsim_stats {
  uint64_t init_count;         // successful nrt_init calls
  uint64_t close_count;        // nrt_close calls that closed an open runtime
  uint64_t live_models;        // loaded and not yet unloaded
  uint64_t live_tensors;       // allocated and not yet freed (every placement)
  uint64_t live_tensor_sets;   // allocated and not yet destroyed
  uint64_t device_bytes_used;  // simulated HBM in use on all cores: DEVICE tensors + constants
  uint64_t executions;         // nrt_execute calls that ran the model on the device
  // The most nrt_execute calls that were inside the device section (cores held) at once, across
  // all cores, since the library was loaded or nrtsim_reset_peak.
  uint64_t peak_concurrent_executions;
  // Calls failed by an injected fault (a model file's rule in nrt_execute, or a rule of
  // NRTSIM_FAULTS / NRTSIM_FAULTS_FILE in any call it can fail), and model-file latency faults.
  uint64_t faults_injected;
} nrtsim_stats_t;

// What one core of the open session did since nrt_init, in the simulator's own (nominal) times,
// so a test can compute device utilization without timing anything. Fields only appended.
typedef struct nrtsim_core_busy {
  uint64_t executions;    // nrt_execute calls that held this core (one per core of a model)
  uint64_t execution_ns;  // their latency_us, summed
  // nrt_tensor_read and nrt_tensor_write calls on this core's DEVICE tensors, and their bytes.
  uint64_t copies;
  uint64_t copy_bytes;
  // The copy engine's busy time: bytes / NRTSIM_DMA_BYTES_PER_SECOND per copy (0 when unset).
  uint64_t copy_ns;
  // Copies that began while the core was executing (copies overlap executions).
  uint64_t copies_during_execution;
} nrtsim_core_busy_t;

// Copies min(size, sizeof(nrtsim_stats_t)) bytes of a snapshot. NRT_INVALID for a null stats.
NRT_STATUS nrtsim_get_stats(nrtsim_stats_t *stats, size_t size);

// Restarts peak_concurrent_executions from the number of executions inside the device now.
void nrtsim_reset_peak(void);

// Copies min(size, sizeof(nrtsim_core_busy_t)) bytes of visible core `vnc`'s counters. The
// runtime's status without an open session (NRT_UNINITIALIZED, NRT_CLOSED); NRT_INVALID for a
// null `busy` or a core that is not visible.
NRT_STATUS nrtsim_get_core_busy(int32_t vnc, nrtsim_core_busy_t *busy, size_t size);

}  // extern "C"

#endif  // NEURON_SERVE_SIM_NRTSIM_STATS_H_
