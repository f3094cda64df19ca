// The process-wide counters behind nrtsim_get_stats, updated lock-free from every thread.
#ifndef NEURON_SERVE_SIM_SIM_COUNTERS_H_
#define NEURON_SERVE_SIM_SIM_COUNTERS_H_

#include <atomic>
#include <cstdint>

#include "sim/nrtsim_stats.h"

namespace neuronserve::nrtsim {

struct SimCounters {
  std::atomic<uint64_t> init_count{0};
  std::atomic<uint64_t> close_count{0};
  std::atomic<uint64_t> live_models{0};
  std::atomic<uint64_t> live_tensors{0};
  std::atomic<uint64_t> live_tensor_sets{0};
  std::atomic<uint64_t> device_bytes_used{0};
  std::atomic<uint64_t> executions{0};
  std::atomic<uint64_t> faults_injected{0};
  std::atomic<uint64_t> in_device_section{0};
  std::atomic<uint64_t> peak_concurrent_executions{0};
};

SimCounters& Counters();

nrtsim_stats_t SnapshotCounters();

// Marks one execution as inside the device section for its lifetime, and keeps the peak.
class DeviceSectionScope {
 public:
  DeviceSectionScope();
  ~DeviceSectionScope();
  DeviceSectionScope(const DeviceSectionScope&) = delete;
  DeviceSectionScope& operator=(const DeviceSectionScope&) = delete;
};

}  // namespace neuronserve::nrtsim

#endif  // NEURON_SERVE_SIM_SIM_COUNTERS_H_
