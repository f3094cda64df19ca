#include "core/serving/execution/fair_share.h"

namespace neuronserve {

void FairShare::Add(ServedModel* model, ModelReplica* replica) {
  // A newcomer is owed nothing for the time before it came (and would otherwise have the core
  // to itself until it caught up).
  absl::Duration least = absl::ZeroDuration();
  for (size_t i = 0; i < bindings_.size(); ++i) {
    least = i == 0 ? bindings_[i].used : std::min(least, bindings_[i].used);
  }
  bindings_.push_back(Binding{model, replica, least});
}

void FairShare::Charge(const ModelReplica* replica, uint64_t generation, absl::Duration ran) {
  if (generation != generation_) return;
  for (Binding& bound : bindings_) {
    if (bound.replica == replica) bound.used += ran;
  }
}

}  // namespace neuronserve
