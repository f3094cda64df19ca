#include "core/metrics/serving_metrics.h"

#include "absl/status/status.h"
#include "absl/time/clock.h"

namespace neuronserve {
namespace {

// The index in ModelRequestMetrics::by_code_ of `code` (unknown codes count as UNKNOWN).
int CodeIndex(absl::StatusCode code) {
  const int index = static_cast<int>(code);
  return index >= 0 && index < 17 ? index : static_cast<int>(absl::StatusCode::kUnknown);
}

metrics::Labels CodeLabels(const std::string& model, const std::string& version, int code) {
  // absl's code names are gRPC's ("OK", "NOT_FOUND", ...), as the access log writes them.
  return {model, version, absl::StatusCodeToString(static_cast<absl::StatusCode>(code))};
}

}  // namespace

void ModelRequestMetrics::CountRequest(absl::StatusCode code) const {
  const int index = CodeIndex(code);
  metrics::Counter* counter = by_code_[index].load(std::memory_order_acquire);
  if (counter == nullptr) counter = owner_->CodeCounter(*this, index);
  counter->Increment();
}

double ModelRequestMetrics::requests_with_code(absl::StatusCode code) const {
  const metrics::Counter* counter = by_code_[CodeIndex(code)].load(std::memory_order_acquire);
  return counter == nullptr ? 0.0 : counter->value();
}

ServingMetrics::ServingMetrics(metrics::MetricsRegistry& registry,
                               absl::Duration retired_series_grace, size_t max_retired_versions)
    : queue_depth(registry.AddGauge("neuronserve_queue_depth",
                                    "Requests waiting in the model's queue for a core.",
                                    {"model", "version"})),
      executions_in_flight(registry.AddGauge("neuronserve_executions_in_flight",
                                             "Executions running on the core now (0 or 1).",
                                             {"core"})),
      core_busy_ratio(registry.AddGauge(
          "neuronserve_core_busy_ratio",
          "Fraction of the time since the previous scrape that the core spent executing.",
          {"core"})),
      core_healthy(registry.AddGauge(
          "neuronserve_core_healthy",
          "1 while the core is in rotation, 0 after a hardware error took it out.", {"core"})),
      device_memory_used(registry.AddGauge("neuronserve_device_memory_used_bytes",
                                           "Device memory in use on the core.", {"core"})),
      device_memory_total(registry.AddGauge("neuronserve_device_memory_bytes",
                                            "Device memory of the core.", {"core"})),
      models(
          registry.AddGauge("neuronserve_models", "Models the daemon knows, by state.", {"state"})),
      model_load_seconds(registry.AddGauge(
          "neuronserve_model_load_duration_seconds",
          "How long loading the serving version took (every replica, until READY).",
          {"model", "version"})),
      ready(registry.AddGauge("neuronserve_ready",
                              "1 while the daemon reports SERVING (gRPC health \"\", /readyz).",
                              {})),
      live(registry.AddGauge(
          "neuronserve_live",
          "1 unless a core worker is stuck in one execution past --execution-timeout.", {})),
      queued_request_bytes(registry.AddGauge(
          "neuronserve_queued_request_bytes",
          "Input bytes of the requests waiting in every model's queue (bounded by "
          "--max-queued-bytes).",
          {})),
      heap_in_use(registry.AddGauge(
          "neuronserve_heap_in_use_bytes",
          "Bytes the daemon's allocator has handed out and not had back (glibc's mallinfo2: "
          "arenas and mapped chunks); absent under a sanitizer, whose allocator it cannot read.",
          {})),
      registry_(registry),
      requests_(registry.AddCounter("neuronserve_requests_total",
                                    "Inference requests answered, by model and gRPC code.",
                                    {"model", "version", "code"})),
      queue_seconds_(
          registry.AddHistogram("neuronserve_request_queue_duration_seconds",
                                "Time a request waited in the model's queue before a core took it.",
                                {"model", "version"}, metrics::LatencyBucketsSeconds())),
      device_seconds_(registry.AddHistogram(
          "neuronserve_request_device_duration_seconds",
          "Time on the core: writing the inputs, executing, reading the outputs.",
          {"model", "version"}, metrics::LatencyBucketsSeconds())),
      total_seconds_(registry.AddHistogram(
          "neuronserve_request_duration_seconds",
          "Time from the request's arrival (parsed) to its answer being handed to gRPC.",
          {"model", "version"}, metrics::LatencyBucketsSeconds())),
      tensor_bytes_in_(registry.AddCounter("neuronserve_request_tensor_bytes_total",
                                           "Input tensor bytes of requests that reached a core.",
                                           {"model", "version"})),
      tensor_bytes_out_(registry.AddCounter("neuronserve_response_tensor_bytes_total",
                                            "Output tensor bytes returned to clients.",
                                            {"model", "version"})),
      core_executions_(registry.AddCounter("neuronserve_core_executions_total",
                                           "nrt_execute calls on the core, failed ones included.",
                                           {"core"})),
      core_busy_seconds_(registry.AddCounter(
          "neuronserve_core_busy_seconds_total",
          "Time the core spent executing (rate() of it is the busy fraction).", {"core"})),
      nrt_errors_(registry.AddCounter("neuronserve_nrt_errors_total",
                                      "Executions the runtime failed, by core and NRT status.",
                                      {"core", "status"})),
      batch_executions_(registry.AddCounter(
          "neuronserve_batch_executions_total",
          "Executions of a batched model's compiled variant (its batch size: variant).",
          {"model", "version", "variant"})),
      batch_rows_(registry.AddHistogram(
          "neuronserve_batch_rows",
          "Requests' rows one execution of the variant carried (the batch the batcher formed).",
          {"model", "version", "variant"}, {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024})),
      batch_padded_rows_(registry.AddCounter(
          "neuronserve_batch_padded_rows_total",
          "Zero rows executions of the variant carried beyond the requests' rows.",
          {"model", "version", "variant"})),
      batch_queue_seconds_(registry.AddHistogram(
          "neuronserve_batch_queue_duration_seconds",
          "Time a request (or a range of its rows) waited before the variant's execution began.",
          {"model", "version", "variant"}, metrics::LatencyBucketsSeconds())),
      retired_versions_(registry.AddGauge(
          "neuronserve_retired_metric_versions",
          "Unloaded or replaced model versions whose series are still held, so that a scrape "
          "sees their final values (as this scrape began; at most --max-retired-metric-versions).",
          {})),
      retired_series_grace_(retired_series_grace),
      max_retired_versions_(max_retired_versions),
      unknown_model_(Hold("", "")) {
  metrics::Family<metrics::Counter>& unscraped = registry.AddCounter(
      "neuronserve_retired_versions_unscraped_total",
      "Retired model versions whose series were removed before a scrape rendered their final "
      "values: more than --max-retired-metric-versions waited (limit; the oldest went first) or "
      "no scrape came for 5 minutes (grace).",
      {"reason"});
  unscraped_by_limit_ = &unscraped.WithLabels({"limit"});
  unscraped_by_grace_ = &unscraped.WithLabels({"grace"});
  metrics::Family<metrics::Counter>& by_protocol = registry.AddCounter(
      "neuronserve_requests_by_protocol_total",
      "Inference requests answered, by the front end that carried them: native "
      "(neuronserve.v1), v2 (the Open Inference Protocol over gRPC) or v2_http (its REST form).",
      {"protocol"});
  by_protocol_[static_cast<int>(RequestProtocol::kNative)] = &by_protocol.WithLabels({"native"});
  by_protocol_[static_cast<int>(RequestProtocol::kV2)] = &by_protocol.WithLabels({"v2"});
  by_protocol_[static_cast<int>(RequestProtocol::kV2Http)] = &by_protocol.WithLabels({"v2_http"});
  registry.AddScrapeHook([this] {
    MutexLock lock(&handles_mutex_);
    retired_versions_.WithLabels({}).Set(static_cast<double>(retired_order_.size()));
    RemoveRetired(absl::Now(), /*scraping=*/true);
  });
}

std::shared_ptr<const ModelRequestMetrics> ServingMetrics::ForModel(const std::string& model,
                                                                    const std::string& version) {
  ModelRequestMetrics* handles = Hold(model, version);
  // The deleter lets go of the hold; the series themselves belong to versions_.
  return std::shared_ptr<const ModelRequestMetrics>(
      handles,
      [this, key = VersionKey(model, version)](const ModelRequestMetrics*) { Release(key); });
}

ModelRequestMetrics* ServingMetrics::Hold(const std::string& model, const std::string& version) {
  MutexLock lock(&handles_mutex_);
  RemoveRetired(absl::Now(), /*scraping=*/false);
  VersionSeries& series = versions_[{model, version}];
  if (series.holders++ == 0 && series.requests != nullptr) {
    retired_order_.erase(series.retired_position);  // taken back before its removal
  }
  if (series.requests != nullptr) return series.requests.get();
  series.requests = std::make_unique<ModelRequestMetrics>();
  ModelRequestMetrics* handles = series.requests.get();
  handles->model = model;
  handles->version = version;
  handles->owner_ = this;
  const metrics::Labels labels = {model, version};
  handles->queue_seconds = &queue_seconds_.WithLabels(labels);
  handles->device_seconds = &device_seconds_.WithLabels(labels);
  handles->total_seconds = &total_seconds_.WithLabels(labels);
  handles->tensor_bytes_in = &tensor_bytes_in_.WithLabels(labels);
  handles->tensor_bytes_out = &tensor_bytes_out_.WithLabels(labels);
  // OK at once, so that a dashboard's rate of successes starts at 0 when the version loads.
  const int ok = static_cast<int>(absl::StatusCode::kOk);
  handles->by_code_[ok].store(&requests_.WithLabels(CodeLabels(model, version, ok)),
                              std::memory_order_release);
  return handles;
}

metrics::Counter* ServingMetrics::CodeCounter(const ModelRequestMetrics& version, int code) {
  MutexLock lock(&handles_mutex_);
  metrics::Counter* counter = version.by_code_[code].load(std::memory_order_acquire);
  if (counter != nullptr) return counter;  // another thread made it meanwhile
  counter = &requests_.WithLabels(CodeLabels(version.model, version.version, code));
  version.by_code_[code].store(counter, std::memory_order_release);
  return counter;
}

void ServingMetrics::Release(const VersionKey& key) {
  MutexLock lock(&handles_mutex_);
  auto it = versions_.find(key);
  if (it == versions_.end() || --it->second.holders > 0) return;
  it->second.retired_at = absl::Now();
  it->second.rendered_since_retired = false;
  it->second.retired_position = retired_order_.insert(retired_order_.end(), key);
  EnforceRetiredLimit();
}

void ServingMetrics::RemoveRetired(absl::Time now, bool scraping) {
  for (auto it = versions_.begin(); it != versions_.end();) {
    VersionSeries& series = it->second;
    if (series.holders > 0) {
      ++it;
      continue;
    }
    if (scraping && series.rendered_since_retired) {
      it = Forget(it);
    } else if (now - series.retired_at >= retired_series_grace_) {
      if (!series.rendered_since_retired) unscraped_by_grace_->Increment();
      it = Forget(it);
    } else {
      // This scrape renders the final values of the versions retired before it began.
      if (scraping) series.rendered_since_retired = true;
      ++it;
    }
  }
}

void ServingMetrics::EnforceRetiredLimit() {
  while (retired_order_.size() > max_retired_versions_) {
    auto oldest = versions_.find(retired_order_.front());
    if (!oldest->second.rendered_since_retired) unscraped_by_limit_->Increment();
    Forget(oldest);
  }
}

std::map<ServingMetrics::VersionKey, ServingMetrics::VersionSeries>::iterator
ServingMetrics::Forget(std::map<VersionKey, VersionSeries>::iterator it) {
  retired_order_.erase(it->second.retired_position);
  RemoveSeries(it->first, it->second);
  return versions_.erase(it);
}

void ServingMetrics::RemoveSeries(const VersionKey& key, const VersionSeries& series) {
  const auto& [model, version] = key;
  const metrics::Labels labels = {model, version};
  queue_seconds_.Remove(labels);
  device_seconds_.Remove(labels);
  total_seconds_.Remove(labels);
  tensor_bytes_in_.Remove(labels);
  tensor_bytes_out_.Remove(labels);
  for (int code = 0; code < 17; ++code) {
    if (series.requests->by_code_[code].load(std::memory_order_relaxed) != nullptr) {
      requests_.Remove(CodeLabels(model, version, code));
    }
  }
  for (const auto& [batch_size, variant] : series.variants) {
    const metrics::Labels variant_labels = {model, version, std::to_string(batch_size)};
    batch_executions_.Remove(variant_labels);
    batch_rows_.Remove(variant_labels);
    batch_padded_rows_.Remove(variant_labels);
    batch_queue_seconds_.Remove(variant_labels);
  }
}

size_t ServingMetrics::versions_with_series() const {
  MutexLock lock(&handles_mutex_);
  return versions_.size();
}

size_t ServingMetrics::retired_versions() const {
  MutexLock lock(&handles_mutex_);
  return retired_order_.size();
}

const VariantMetrics* ServingMetrics::ForVariant(const ModelRequestMetrics& version,
                                                 uint32_t batch_size) {
  MutexLock lock(&handles_mutex_);
  VersionSeries& series = versions_.at({version.model, version.version});
  std::unique_ptr<VariantMetrics>& cached = series.variants[batch_size];
  if (cached != nullptr) return cached.get();
  cached = std::make_unique<VariantMetrics>();
  const metrics::Labels labels = {version.model, version.version, std::to_string(batch_size)};
  cached->executions = &batch_executions_.WithLabels(labels);
  cached->rows = &batch_rows_.WithLabels(labels);
  cached->padded_rows = &batch_padded_rows_.WithLabels(labels);
  cached->queue_seconds = &batch_queue_seconds_.WithLabels(labels);
  return cached.get();
}

CoreExecutionMetrics ServingMetrics::ForCore(uint32_t core) {
  const metrics::Labels labels = {std::to_string(core)};
  return CoreExecutionMetrics{&core_executions_.WithLabels(labels),
                              &core_busy_seconds_.WithLabels(labels)};
}

void ServingMetrics::CountNrtError(uint32_t core, const std::string& status_name) {
  nrt_errors_.WithLabels({std::to_string(core), status_name}).Increment();
}

}  // namespace neuronserve
