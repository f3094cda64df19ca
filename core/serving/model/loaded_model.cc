#include "core/serving/model/loaded_model.h"

#include <algorithm>

#include "core/serving/model/version_number.h"

namespace neuronserve {

absl::string_view ModelSourceName(ModelSource source) {
  switch (source) {
    case ModelSource::kUpload:
      return "upload";
    case ModelSource::kRepository:
      return "repository";
    case ModelSource::kState:
      return "state";
  }
  return "unknown";
}

struct LoadedModel::LeaseCount {
  Mutex mutex;
  int leases ABSL_GUARDED_BY(mutex) = 0;
  CondVar idle;  // signalled when leases drops to 0
};

LoadedModel::Lease::Lease(std::shared_ptr<LoadedModel> model) : model_(std::move(model)) {
  if (model_ == nullptr) return;
  count_ = model_->lease_count_;
  MutexLock lock(&count_->mutex);
  ++count_->leases;
}

LoadedModel::Lease& LoadedModel::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    Release();
    model_ = std::move(other.model_);
    count_ = std::move(other.count_);
  }
  return *this;
}

LoadedModel::Lease::~Lease() { Release(); }

void LoadedModel::Lease::Release() {
  if (model_ == nullptr) return;
  std::shared_ptr<LeaseCount> count = std::move(count_);
  // First the reference (if it is the last one, the model goes now, with nobody waiting), then
  // the count: once it reaches 0 this thread no longer holds the model.
  model_.reset();
  MutexLock lock(&count->mutex);
  if (--count->leases == 0) count->idle.NotifyAll();
}

LoadedModel::LoadedModel(ModelIdentity identity,
                         std::vector<std::unique_ptr<ModelReplica>> replicas, ModelTensors tensors,
                         uint64_t placement_id, absl::Time ready_at, absl::Duration load_duration,
                         std::unique_ptr<Scheduler> scheduler)
    : identity_(std::move(identity)),
      version_number_(VersionNumber(identity_.version)),
      replicas_(std::move(replicas)),
      tensors_(std::move(tensors)),
      scheduler_(std::move(scheduler)),
      placement_id_(placement_id),
      ready_at_(ready_at),
      load_duration_(load_duration),
      lease_count_(std::make_shared<LeaseCount>()) {
  uint32_t largest = 1;
  for (const auto& replica : replicas_) {
    for (const ReplicaVariant& variant : replica->variants) {
      largest = std::max(largest, variant.batch_size);
    }
  }
  batch_counts_ = std::vector<std::atomic<uint64_t>>(largest);
  batch_ns_ = std::vector<std::atomic<uint64_t>>(largest);
  batch_input_ns_ = std::vector<std::atomic<uint64_t>>(largest);
  batch_output_ns_ = std::vector<std::atomic<uint64_t>>(largest);
}

void LoadedModel::RecordExecution(uint32_t rows, absl::Duration device, absl::Duration input,
                                  absl::Duration output) {
  if (rows == 0 || rows > batch_counts_.size()) return;
  const auto ns = [](absl::Duration d) {
    const int64_t n = absl::ToInt64Nanoseconds(d);
    return n > 0 ? static_cast<uint64_t>(n) : uint64_t{0};
  };
  batch_ns_[rows - 1].fetch_add(ns(device), std::memory_order_relaxed);
  batch_input_ns_[rows - 1].fetch_add(ns(input), std::memory_order_relaxed);
  batch_output_ns_[rows - 1].fetch_add(ns(output), std::memory_order_relaxed);
  // The count last: a reader that sees it sees most of its sums too.
  batch_counts_[rows - 1].fetch_add(1, std::memory_order_relaxed);
}

std::vector<BatchStatistics> LoadedModel::batch_statistics() const {
  std::vector<BatchStatistics> executed;
  for (size_t i = 0; i < batch_counts_.size(); ++i) {
    const uint64_t count = batch_counts_[i].load(std::memory_order_relaxed);
    if (count == 0) continue;
    executed.push_back(BatchStatistics{static_cast<uint32_t>(i + 1), count,
                                       batch_ns_[i].load(std::memory_order_relaxed),
                                       batch_input_ns_[i].load(std::memory_order_relaxed),
                                       batch_output_ns_[i].load(std::memory_order_relaxed)});
  }
  return executed;
}

ModelTensors ModelTensors::Split(std::vector<TensorSpec> tensors) {
  ModelTensors split;
  for (const TensorSpec& tensor : tensors) {
    (tensor.usage == TensorUsage::kInput ? split.inputs : split.outputs).push_back(tensor);
  }
  split.all = std::move(tensors);
  return split;
}

ModelTensors ModelTensors::Rows(const ModelTensors& variant, uint32_t batch_size,
                                uint32_t max_batch_size) {
  auto row = [batch_size](std::vector<TensorSpec> specs) {
    for (TensorSpec& spec : specs) {
      // batch_variants.h checked that each leading dimension is the batch size.
      if (!spec.shape.empty()) spec.shape[0] = 1;
      spec.byte_size /= batch_size;
    }
    return specs;
  };
  ModelTensors rows;
  rows.all = row(variant.all);
  rows.inputs = row(variant.inputs);
  rows.outputs = row(variant.outputs);
  rows.max_batch_size = max_batch_size;
  return rows;
}

bool LoadedModel::WaitUntilIdle(absl::Duration timeout) {
  LeaseCount& count = *lease_count_;
  MutexLock lock(&count.mutex);
  return count.idle.WaitWithTimeout(&count.mutex, timeout, [&count]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(count.mutex) {
    return count.leases == 0;
  });
}

int LoadedModel::leases() const {
  MutexLock lock(&lease_count_->mutex);
  return lease_count_->leases;
}

RequestStatistics LoadedModel::statistics() const {
  RequestStatistics statistics;
  statistics.success_count = requests_succeeded_.load(std::memory_order_relaxed);
  statistics.success_ns = success_ns_.load(std::memory_order_relaxed);
  statistics.fail_count = requests_failed_.load(std::memory_order_relaxed);
  statistics.fail_ns = fail_ns_.load(std::memory_order_relaxed);
  statistics.queue_count = queue_count_.load(std::memory_order_relaxed);
  statistics.queue_ns = queue_ns_.load(std::memory_order_relaxed);
  statistics.compute_count = compute_count_.load(std::memory_order_relaxed);
  statistics.compute_ns = compute_ns_.load(std::memory_order_relaxed);
  statistics.compute_input_ns = compute_input_ns_.load(std::memory_order_relaxed);
  statistics.compute_output_ns = compute_output_ns_.load(std::memory_order_relaxed);
  statistics.executions = executions_.load(std::memory_order_relaxed);
  const int64_t last = last_request_unix_ns_.load(std::memory_order_relaxed);
  if (last != INT64_MIN) statistics.last_request = absl::FromUnixNanos(last);
  return statistics;
}

}  // namespace neuronserve
