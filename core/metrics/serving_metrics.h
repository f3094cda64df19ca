// ServingMetrics: every metric neuron-serve exports (names prefixed neuronserve_), registered
// once at startup, and the per-model and per-core handles the hot paths increment without a
// lookup.
//
// Counters count from process start and never reset: a model's counters outlive its unload,
// so a scrape after an unload still adds up. Gauges that describe current state (queue depth,
// memory, models by state, ...) are refreshed by the daemon's scrape hook.
#ifndef NEURON_SERVE_CORE_METRICS_SERVING_METRICS_H_
#define NEURON_SERVE_CORE_METRICS_SERVING_METRICS_H_

#include <array>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "base/mutex.h"
#include "core/metrics/metrics_registry.h"

namespace neuronserve {

// One model version's request metrics, labelled {model, version}.
struct ModelRequestMetrics {
  metrics::Histogram* queue_seconds = nullptr;
  metrics::Histogram* device_seconds = nullptr;
  metrics::Histogram* total_seconds = nullptr;
  metrics::Counter* tensor_bytes_in = nullptr;
  metrics::Counter* tensor_bytes_out = nullptr;
  // neuronserve_requests_total by gRPC code (absl codes are gRPC's, 0..16).
  std::array<metrics::Counter*, 17> by_code{};

  // Called only by RecordRequestOutcome (core/serving/request_outcome.h), which counts the
  // model version's succeeded/failed with it: call that, not this.
  void CountRequest(absl::StatusCode code) const;
};

// One compiled variant's batching metrics, labelled {model, version, variant} (variant: its
// batch size): what the dynamic batcher made of the requests.
struct VariantMetrics {
  metrics::Counter* executions = nullptr;
  metrics::Histogram* rows = nullptr;           // useful rows per execution (the batch formed)
  metrics::Counter* padded_rows = nullptr;      // zero rows the execution carried
  metrics::Histogram* queue_seconds = nullptr;  // per request (or range), enqueue to execution
};

// One core's execution metrics, labelled {core}.
struct CoreExecutionMetrics {
  metrics::Counter* executions = nullptr;
  metrics::Counter* busy_seconds = nullptr;
};

// The front end that carried an inference request (neuronserve_requests_by_protocol_total).
// kV2Http: the Open Inference Protocol's REST form (label "v2_http").
enum class RequestProtocol { kNative, kV2, kV2Http };

class ServingMetrics {
 public:
  explicit ServingMetrics(metrics::MetricsRegistry& registry);

  metrics::MetricsRegistry& registry() { return registry_; }

  // Handles for a model version, valid as long as this object (the same pointer for the same
  // labels: a reloaded version counts on). Model "" (version "") counts requests answered
  // before a served model was found (unknown names, refusals while draining), so clients
  // cannot grow the label set without bound.
  const ModelRequestMetrics* ForModel(const std::string& model, const std::string& version);
  const ModelRequestMetrics& unknown_model() const { return *unknown_model_; }
  // A batched model version's handles for its variant of `batch_size`, valid as long as this
  // object (the same pointer for the same labels).
  const VariantMetrics* ForVariant(const std::string& model, const std::string& version,
                                   uint32_t batch_size);
  CoreExecutionMetrics ForCore(uint32_t core);
  // neuronserve_nrt_errors_total{core, status}: an execution that failed with this status.
  void CountNrtError(uint32_t core, const std::string& status_name);
  // neuronserve_requests_by_protocol_total{protocol="native"|"v2"|"v2_http"}: one answered request.
  // Lock-free.
  void CountProtocol(RequestProtocol protocol) const {
    by_protocol_[static_cast<int>(protocol)]->Increment();
  }

  // Refreshed by the scrape hook.
  metrics::Family<metrics::Gauge>& queue_depth;          // {model, version}
  metrics::Family<metrics::Gauge>& executions_in_flight;  // {core}
  metrics::Family<metrics::Gauge>& core_busy_ratio;      // {core}
  metrics::Family<metrics::Gauge>& core_healthy;         // {core}
  metrics::Family<metrics::Gauge>& device_memory_used;   // {core}
  metrics::Family<metrics::Gauge>& device_memory_total;  // {core}
  metrics::Family<metrics::Gauge>& models;               // {state}
  metrics::Family<metrics::Gauge>& model_load_seconds;   // {model, version}
  metrics::Family<metrics::Gauge>& ready;                // {} 1 while "" is SERVING
  metrics::Family<metrics::Gauge>& live;                 // {} 1 while the watchdog is content

 private:
  metrics::MetricsRegistry& registry_;
  metrics::Family<metrics::Counter>& requests_;
  metrics::Family<metrics::Histogram>& queue_seconds_;
  metrics::Family<metrics::Histogram>& device_seconds_;
  metrics::Family<metrics::Histogram>& total_seconds_;
  metrics::Family<metrics::Counter>& tensor_bytes_in_;
  metrics::Family<metrics::Counter>& tensor_bytes_out_;
  metrics::Family<metrics::Counter>& core_executions_;
  metrics::Family<metrics::Counter>& core_busy_seconds_;
  metrics::Family<metrics::Counter>& nrt_errors_;
  metrics::Family<metrics::Counter>& batch_executions_;
  metrics::Family<metrics::Histogram>& batch_rows_;
  metrics::Family<metrics::Counter>& batch_padded_rows_;
  metrics::Family<metrics::Histogram>& batch_queue_seconds_;
  Mutex handles_mutex_;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<ModelRequestMetrics>> handles_
      ABSL_GUARDED_BY(handles_mutex_);
  std::map<std::tuple<std::string, std::string, uint32_t>, std::unique_ptr<VariantMetrics>>
      variant_handles_ ABSL_GUARDED_BY(handles_mutex_);
  const ModelRequestMetrics* unknown_model_;
  std::array<metrics::Counter*, 3> by_protocol_{};
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_METRICS_SERVING_METRICS_H_
