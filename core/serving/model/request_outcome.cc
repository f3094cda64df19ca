#include "core/serving/model/request_outcome.h"

#include <atomic>
#include <cstdint>

#include "absl/time/clock.h"

namespace neuronserve {
namespace {

// Negative durations (a clock step) count as 0 rather than wrapping the unsigned sum.
uint64_t Nanoseconds(absl::Duration duration) {
  const int64_t ns = absl::ToInt64Nanoseconds(duration);
  return ns > 0 ? static_cast<uint64_t>(ns) : 0;
}

void Add(std::atomic<uint64_t>& sum, uint64_t value) {
  sum.fetch_add(value, std::memory_order_relaxed);
}

}  // namespace

void RecordRequestOutcome(LoadedModel* model, const ModelRequestMetrics* metrics,
                          absl::StatusCode code, const RequestDurations& durations) {
  if (model != nullptr) {
    const bool ok = code == absl::StatusCode::kOk;
    Add(ok ? model->success_ns_ : model->fail_ns_, Nanoseconds(durations.total));
    if (ok) {
      // Triton counts queue and compute for successful requests only: the same here, so that
      // queue.count == compute_infer.count == success.count for a model that never fails.
      Add(model->queue_count_, 1);
      Add(model->queue_ns_, Nanoseconds(durations.queued));
      Add(model->compute_count_, 1);
      Add(model->compute_ns_, Nanoseconds(durations.device));
      Add(model->compute_input_ns_, Nanoseconds(durations.input));
      Add(model->compute_output_ns_, Nanoseconds(durations.output));
    }
    if (durations.device > absl::ZeroDuration()) Add(model->executions_, 1);
    // The latest wins even when two requests end at once (a plain store could go backwards).
    const int64_t now = absl::ToUnixNanos(absl::Now());
    int64_t last = model->last_request_unix_ns_.load(std::memory_order_relaxed);
    while (last < now && !model->last_request_unix_ns_.compare_exchange_weak(
                             last, now, std::memory_order_relaxed)) {
    }
    // The count last: a reader that sees the count sees most of its sums too.
    Add(ok ? model->requests_succeeded_ : model->requests_failed_, 1);
  }
  if (metrics != nullptr) metrics->CountRequest(code);
}

}  // namespace neuronserve
