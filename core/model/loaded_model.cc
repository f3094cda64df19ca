#include "core/model/loaded_model.h"

namespace neuronserve {

LoadedModel::Lease::Lease(std::shared_ptr<LoadedModel> model) : model_(std::move(model)) {
  if (model_ == nullptr) return;
  MutexLock lock(&model_->mutex_);
  ++model_->leases_;
}

LoadedModel::Lease& LoadedModel::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    Release();
    model_ = std::move(other.model_);
  }
  return *this;
}

LoadedModel::Lease::~Lease() { Release(); }

void LoadedModel::Lease::Release() {
  if (model_ == nullptr) return;
  {
    MutexLock lock(&model_->mutex_);
    if (--model_->leases_ == 0) model_->idle_.NotifyAll();
  }
  model_.reset();
}

LoadedModel::LoadedModel(ModelIdentity identity,
                         std::vector<std::unique_ptr<ModelReplica>> replicas,
                         std::vector<TensorSpec> tensors, uint64_t placement_id,
                         absl::Time ready_at, absl::Duration load_duration,
                         std::unique_ptr<RequestQueue> queue)
    : identity_(std::move(identity)),
      replicas_(std::move(replicas)),
      tensors_(std::move(tensors)),
      queue_(std::move(queue)),
      placement_id_(placement_id),
      ready_at_(ready_at),
      load_duration_(load_duration) {
  for (const TensorSpec& tensor : tensors_) {
    (tensor.usage == TensorUsage::kInput ? inputs_ : outputs_).push_back(tensor);
  }
}

bool LoadedModel::WaitUntilIdle(absl::Duration timeout) {
  MutexLock lock(&mutex_);
  return idle_.WaitWithTimeout(&mutex_, timeout,
                               [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return leases_ == 0; });
}

int LoadedModel::leases() const {
  MutexLock lock(&mutex_);
  return leases_;
}

}  // namespace neuronserve
