#include "sim/sim_counters.h"

namespace neuronserve::nrtsim {

SimCounters& Counters() {
  static SimCounters counters;
  return counters;
}

nrtsim_stats_t SnapshotCounters() {
  SimCounters& c = Counters();
  nrtsim_stats_t stats{};
  stats.init_count = c.init_count.load();
  stats.close_count = c.close_count.load();
  stats.live_models = c.live_models.load();
  stats.live_tensors = c.live_tensors.load();
  stats.live_tensor_sets = c.live_tensor_sets.load();
  stats.device_bytes_used = c.device_bytes_used.load();
  stats.executions = c.executions.load();
  stats.peak_concurrent_executions = c.peak_concurrent_executions.load();
  stats.faults_injected = c.faults_injected.load();
  return stats;
}

DeviceSectionScope::DeviceSectionScope() {
  SimCounters& c = Counters();
  uint64_t now = c.in_device_section.fetch_add(1) + 1;
  uint64_t peak = c.peak_concurrent_executions.load();
  while (now > peak && !c.peak_concurrent_executions.compare_exchange_weak(peak, now)) {
  }
}

DeviceSectionScope::~DeviceSectionScope() { Counters().in_device_section.fetch_sub(1); }

}  // namespace neuronserve::nrtsim
