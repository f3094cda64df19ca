#include "core/serving/request_outcome.h"

#include <atomic>

namespace neuronserve {

void RecordRequestOutcome(LoadedModel* model, const ModelRequestMetrics* metrics,
                          absl::StatusCode code) {
  if (model != nullptr) {
    std::atomic<uint64_t>& count =
        code == absl::StatusCode::kOk ? model->requests_succeeded_ : model->requests_failed_;
    count.fetch_add(1, std::memory_order_relaxed);
  }
  if (metrics != nullptr) metrics->CountRequest(code);
}

}  // namespace neuronserve
