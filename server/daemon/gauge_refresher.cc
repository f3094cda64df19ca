#include "server/daemon/gauge_refresher.h"

#include <algorithm>
#include <map>
#include <string>

#include "core/device/device_inventory.h"
#include "core/health/health_monitor.h"
#include "core/lifecycle/model_registry.h"
#include "core/metrics/serving_metrics.h"
#include "core/nrt/nrt_runtime.h"
#include "core/serving/execution/worker_pool.h"
#include "core/serving/scheduling/queued_bytes_budget.h"
#include "util/malloc_tuning.h"

namespace neuronserve {

GaugeInputs GatherGaugeInputs(const ModelRegistry& registry, const WorkerPool& workers,
                              const NrtRuntime& runtime, const DeviceInventory& inventory,
                              const HealthMonitor* health, const QueuedBytesBudget* queued_bytes) {
  GaugeInputs inputs;
  inputs.models = registry.List();
  const std::vector<bool> executing = workers.ExecutingByCore();
  for (uint32_t core = 0; core < inventory.visible_cores; ++core) {
    GaugeInputs::Core& entry = inputs.cores.emplace_back();
    entry.executing = core < executing.size() && executing[core];
    entry.healthy = workers.CoreHealthy(core);
    absl::StatusOr<CoreMemoryStats> memory = runtime.MemoryStats(core);
    if (memory.ok()) entry.memory_used = memory->bytes_used;
    if (core < inventory.cores.size()) entry.memory_total = inventory.cores[core].memory_bytes;
  }
  if (health != nullptr) inputs.health = health->Latest();
  if (queued_bytes != nullptr) inputs.queued_request_bytes = queued_bytes->held();
  inputs.heap_in_use = HeapInUseBytes();
  return inputs;
}

void GaugeRefresher::Refresh(const GaugeInputs& inputs, absl::Time now) {
  ServingMetrics& m = metrics_;
  m.queue_depth.Clear();
  m.model_load_seconds.Clear();
  std::map<std::string, int> by_state = {
      {"LOADING", 0}, {"READY", 0}, {"UNLOADING", 0}, {"FAILED", 0}};
  for (const ModelInfo& model : inputs.models) {
    ++by_state[std::string(ModelStateName(model.state))];
    if (model.state != ModelState::kReady && model.state != ModelState::kUnloading) continue;
    const metrics::Labels labels = {model.identity.name, model.identity.version};
    m.queue_depth.WithLabels(labels).Set(static_cast<double>(model.queue_depth));
    m.model_load_seconds.WithLabels(labels).Set(absl::ToDoubleSeconds(model.load_duration));
  }
  for (const auto& [state, count] : by_state) m.models.WithLabels({state}).Set(count);

  MutexLock lock(&mutex_);
  const uint32_t cores = static_cast<uint32_t>(inputs.cores.size());
  if (busy_at_last_scrape_.size() != cores) {
    busy_at_last_scrape_.assign(cores, 0.0);
    last_busy_ratio_.assign(cores, 0.0);
    last_scrape_ = started_;
  }
  const double elapsed = absl::ToDoubleSeconds(now - last_scrape_);
  for (uint32_t core = 0; core < cores; ++core) {
    const GaugeInputs::Core& state = inputs.cores[core];
    const metrics::Labels labels = {std::to_string(core)};
    const double busy = m.ForCore(core).busy_seconds->value();
    // Over the time since the previous scrape; scrapes closer than 100 ms apart keep the ratio
    // of the previous interval rather than divide by almost nothing.
    if (elapsed >= 0.1) {
      last_busy_ratio_[core] = std::clamp((busy - busy_at_last_scrape_[core]) / elapsed, 0.0, 1.0);
      busy_at_last_scrape_[core] = busy;
    }
    m.core_busy_ratio.WithLabels(labels).Set(last_busy_ratio_[core]);
    m.executions_in_flight.WithLabels(labels).Set(state.executing ? 1 : 0);
    m.core_healthy.WithLabels(labels).Set(state.healthy ? 1 : 0);
    if (state.memory_used.has_value()) {
      m.device_memory_used.WithLabels(labels).Set(static_cast<double>(*state.memory_used));
    }
    if (state.memory_total.has_value()) {
      m.device_memory_total.WithLabels(labels).Set(static_cast<double>(*state.memory_total));
    }
  }
  if (elapsed >= 0.1) last_scrape_ = now;
  m.ready.WithLabels({}).Set(inputs.health.serving ? 1 : 0);
  m.live.WithLabels({}).Set(inputs.health.live ? 1 : 0);
  m.queued_request_bytes.WithLabels({}).Set(static_cast<double>(inputs.queued_request_bytes));
  if (inputs.heap_in_use.has_value()) {
    m.heap_in_use.WithLabels({}).Set(static_cast<double>(*inputs.heap_in_use));
  }
}

}  // namespace neuronserve
