// GaugeRefresher: sets the metrics gauges that describe current state (models by state, queue
// depths, load times, per-core busy ratio, executions in flight, core health, device memory,
// ready and live, the allocator's bytes in use) before each /metrics scrape; counters count on their own and are not touched.
//
// Gathering (GatherGaugeInputs, which reads the registry, the workers, the runtime and the
// health monitor) is kept apart from setting (Refresh), so what the gauges show for a given
// state can be tested without a runtime.
//
// Thread safety: Refresh may be called from any thread; calls are serialized by a mutex (the
// metrics registry runs scrape hooks one at a time anyway). Ownership: borrows `metrics`, which
// must outlive the refresher.
#ifndef NEURON_SERVE_SERVER_DAEMON_GAUGE_REFRESHER_H_
#define NEURON_SERVE_SERVER_DAEMON_GAUGE_REFRESHER_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/time/time.h"
#include "base/mutex.h"
#include "core/health/health_evaluator.h"
#include "core/serving/model/model_info.h"

namespace neuronserve {

struct DeviceInventory;
class HealthMonitor;
class ModelRegistry;
class NrtRuntime;
class QueuedBytesBudget;
class ServingMetrics;
class WorkerPool;

// The state the gauges show, at one scrape.
struct GaugeInputs {
  struct Core {
    bool executing = false;
    bool healthy = false;
    std::optional<uint64_t> memory_used;   // unset when the runtime cannot tell
    std::optional<uint64_t> memory_total;  // unset for a core the inventory does not describe
  };
  std::vector<ModelInfo> models;  // every model, in any state
  std::vector<Core> cores;        // one per visible core, by index
  HealthReport health;
  uint64_t queued_request_bytes = 0;  // input bytes in the models' queues (QueuedBytesBudget)
  std::optional<uint64_t> heap_in_use;  // HeapInUseBytes(): unset under a sanitizer
};

// `health` may be null (then ready and live read as HealthReport{} says), and `queued_bytes`
// too (then 0).
GaugeInputs GatherGaugeInputs(const ModelRegistry& registry, const WorkerPool& workers,
                              const NrtRuntime& runtime, const DeviceInventory& inventory,
                              const HealthMonitor* health, const QueuedBytesBudget* queued_bytes);

class GaugeRefresher {
 public:
  // `started`: when the runtime started, where the first busy-ratio interval begins.
  GaugeRefresher(ServingMetrics& metrics, absl::Time started)
      : metrics_(metrics), started_(started) {}
  GaugeRefresher(const GaugeRefresher&) = delete;
  GaugeRefresher& operator=(const GaugeRefresher&) = delete;

  // Sets every current-state gauge from `inputs` as of `now`. A core's busy ratio is its share
  // of busy seconds (the core_busy_seconds counter) since the previous refresh.
  void Refresh(const GaugeInputs& inputs, absl::Time now);

 private:
  ServingMetrics& metrics_;
  const absl::Time started_;

  // For the busy ratio: each core's busy seconds at the previous scrape, and when it was.
  Mutex mutex_;
  std::vector<double> busy_at_last_scrape_ ABSL_GUARDED_BY(mutex_);
  absl::Time last_scrape_ ABSL_GUARDED_BY(mutex_);
  std::vector<double> last_busy_ratio_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_DAEMON_GAUGE_REFRESHER_H_
