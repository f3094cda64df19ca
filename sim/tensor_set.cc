#include "sim/tensor_set.h"

#include "sim/sim_counters.h"

namespace neuronserve::nrtsim {

TensorSet::TensorSet() { Counters().live_tensor_sets.fetch_add(1); }

TensorSet::~TensorSet() { Counters().live_tensor_sets.fetch_sub(1); }

void TensorSet::Bind(const std::string& name, nrt_tensor* tensor) {
  MutexLock lock(&mutex_);
  tensors_[name] = tensor;
}

nrt_tensor* TensorSet::Find(const std::string& name) const {
  MutexLock lock(&mutex_);
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : it->second;
}

}  // namespace neuronserve::nrtsim
