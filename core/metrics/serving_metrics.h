// ServingMetrics: every metric neuron-serve exports (names prefixed neuronserve_), registered
// once at startup, and the per-model and per-core handles the hot paths increment without a
// lookup.
//
// A model version's series live while the version is loaded, and one scrape longer: once the
// last holder of its handles lets go (the version was unloaded or replaced, or its load
// failed), the version is retired, one more scrape renders its final values, and the scrape
// after it removes them (see ForModel). Retired versions wait at most `retired_series_grace`
// (no scrape comes) and at most `max_retired_versions` of them wait (the oldest go first), so
// /metrics and memory are bounded by what is loaded plus that many, whatever the churn rate and
// the scrape interval. Gauges that describe current state (queue depth, memory, models by
// state, ...) are refreshed by the daemon's scrape hook.
#ifndef NEURON_SERVE_CORE_METRICS_SERVING_METRICS_H_
#define NEURON_SERVE_CORE_METRICS_SERVING_METRICS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "core/metrics/metrics_registry.h"

namespace neuronserve {

class ServingMetrics;

// One model version's request metrics, labelled {model, version}. Valid while a handle of the
// version is held (ServingMetrics::ForModel).
struct ModelRequestMetrics {
  std::string model;
  std::string version;

  metrics::Histogram* queue_seconds = nullptr;
  metrics::Histogram* device_seconds = nullptr;
  metrics::Histogram* total_seconds = nullptr;
  metrics::Counter* tensor_bytes_in = nullptr;
  metrics::Counter* tensor_bytes_out = nullptr;
  // Called only by RecordRequestOutcome (core/serving/model/request_outcome.h), which counts the
  // model version's succeeded/failed with it: call that, not this. Lock-free once the code's
  // series exists (it is made at the version's first answer with that code).
  void CountRequest(absl::StatusCode code) const;
  // neuronserve_requests_total of this version and code: 0 before its first such answer.
  double requests_with_code(absl::StatusCode code) const;

 private:
  friend class ServingMetrics;
  ServingMetrics* owner_ = nullptr;
  // neuronserve_requests_total by gRPC code (absl codes are gRPC's, 0..16). Only OK's series is
  // made with the version; the others on first use (ServingMetrics::CodeCounter), since most
  // versions never answer most codes and each series costs a label set and a map node.
  mutable std::array<std::atomic<metrics::Counter*>, 17> by_code_{};
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
  // How long a retired version's series stay when no scrape comes to remove them.
  static constexpr absl::Duration kRetiredSeriesGrace = absl::Minutes(5);
  // How many retired versions' series may wait for a scrape (--max-retired-metric-versions).
  // A retired version with one variant holds about 1 kB of series.
  static constexpr size_t kMaxRetiredVersions = 128;

  // Registers the families and a scrape hook on `registry`, which must outlive this object.
  explicit ServingMetrics(metrics::MetricsRegistry& registry,
                          absl::Duration retired_series_grace = kRetiredSeriesGrace,
                          size_t max_retired_versions = kMaxRetiredVersions);
  ServingMetrics(const ServingMetrics&) = delete;
  ServingMetrics& operator=(const ServingMetrics&) = delete;

  metrics::MetricsRegistry& registry() { return registry_; }

  // Handles for a model version: the same object for the same labels while any handle of them
  // is held, so two loads of one version count together. When the last one is released the
  // version is retired: the next scrape renders its series (and its variants') with their
  // final values, and the scrape after that removes them; when no scrape comes they are
  // removed by the first ForModel after `retired_series_grace`, and when more than
  // `max_retired_versions` are retired the oldest are removed at once (those a scrape already
  // rendered come first in that order, being older; one removed unrendered is counted in
  // neuronserve_retired_versions_unscraped_total). Asking for a retired version before its
  // series are removed takes them back: its counters go on. Model "" (version "")
  // counts requests answered before a served model was found (unknown names, refusals while
  // draining), so clients cannot grow the label set without bound; it is never retired. The
  // handle must be released before this object is destroyed.
  std::shared_ptr<const ModelRequestMetrics> ForModel(const std::string& model,
                                                      const std::string& version);
  const ModelRequestMetrics& unknown_model() const { return *unknown_model_; }
  // A batched model version's handles for its variant of `batch_size`, valid while a handle of
  // the version (`version`, from ForModel) is held.
  const VariantMetrics* ForVariant(const ModelRequestMetrics& version, uint32_t batch_size);
  // Model versions that have series now, held or retired.
  size_t versions_with_series() const;
  // Retired model versions whose series are still held (at most max_retired_versions).
  size_t retired_versions() const;
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
  metrics::Family<metrics::Gauge>& queued_request_bytes;  // {} held against --max-queued-bytes
  // {} the allocator's bytes in use (mallinfo2), where the daemon can tell (not under a sanitizer)
  metrics::Family<metrics::Gauge>& heap_in_use;

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
  metrics::Family<metrics::Gauge>& retired_versions_;
  // neuronserve_retired_versions_unscraped_total{reason="limit"|"grace"}: retired versions
  // removed before any scrape rendered them. Set once by the constructor.
  metrics::Counter* unscraped_by_limit_ = nullptr;
  metrics::Counter* unscraped_by_grace_ = nullptr;
  using VersionKey = std::pair<std::string, std::string>;  // {model, version}
  // One model version's series and who holds them.
  struct VersionSeries {
    std::unique_ptr<ModelRequestMetrics> requests;
    std::map<uint32_t, std::unique_ptr<VariantMetrics>> variants;  // by batch size
    int holders = 0;
    absl::Time retired_at;  // when `holders` fell to 0
    bool rendered_since_retired = false;
    // This version's place in retired_order_, while it is retired (holders == 0).
    std::list<VersionKey>::iterator retired_position;
  };

  // Takes a hold on the version's series, making them if needed.
  ModelRequestMetrics* Hold(const std::string& model, const std::string& version)
      ABSL_LOCKS_EXCLUDED(handles_mutex_);
  // Lets go of a hold taken by Hold; the last one retires the version.
  void Release(const VersionKey& key) ABSL_LOCKS_EXCLUDED(handles_mutex_);
  // Removes the series of retired versions that a scrape has rendered since they were retired
  // (when `scraping`) or that were retired `retired_series_grace_` before `now`.
  void RemoveRetired(absl::Time now, bool scraping) ABSL_EXCLUSIVE_LOCKS_REQUIRED(handles_mutex_);
  // Removes the oldest retired versions while more than max_retired_versions_ are retired.
  void EnforceRetiredLimit() ABSL_EXCLUSIVE_LOCKS_REQUIRED(handles_mutex_);
  // Removes a retired version's series and forgets it; returns the next entry of versions_.
  std::map<VersionKey, VersionSeries>::iterator Forget(
      std::map<VersionKey, VersionSeries>::iterator it)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(handles_mutex_);
  void RemoveSeries(const VersionKey& key, const VersionSeries& series)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(handles_mutex_);
  friend struct ModelRequestMetrics;  // calls CodeCounter
  // The slow path of ModelRequestMetrics::CountRequest: the version's series of `code`.
  metrics::Counter* CodeCounter(const ModelRequestMetrics& version, int code)
      ABSL_LOCKS_EXCLUDED(handles_mutex_);

  const absl::Duration retired_series_grace_;
  const size_t max_retired_versions_;
  mutable Mutex handles_mutex_;
  std::map<VersionKey, VersionSeries> versions_ ABSL_GUARDED_BY(handles_mutex_);
  // Retired versions, oldest first. A scrape renders every version retired before it, so the
  // versions a scrape has rendered come before those it has not.
  std::list<VersionKey> retired_order_ ABSL_GUARDED_BY(handles_mutex_);
  const ModelRequestMetrics* unknown_model_;
  std::array<metrics::Counter*, 3> by_protocol_{};
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_METRICS_SERVING_METRICS_H_
