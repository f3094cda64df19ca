// FairShare: which of the replicas bound to one core is asked for the next execution, so that
// models sharing a core share its device time whatever their execution lengths (one of 4 ms
// batches cannot starve one of 1 ms requests, as a turn per execution would let it).
//
// Each binding counts the device time the core spent on it (`used`); the least served is asked
// first, ties in turn from the one after the last served. A binding asked before the one that
// ran, that had a free tensor set but nothing to run, is lifted to the served one's time: an
// idle model banks no credit for time it did not ask for (a fair-share scheduler's virtual
// time). A newcomer starts level with the least served.
//
// Thread safety: none of its own; the owning CoreWorker guards it with its bindings lock.
// Ownership: the bound models and replicas belong to their model, attached until Remove.
#ifndef NEURON_SERVE_CORE_SERVING_EXECUTION_FAIR_SHARE_H_
#define NEURON_SERVE_CORE_SERVING_EXECUTION_FAIR_SHARE_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/time/time.h"
#include "core/serving/execution/model_replica.h"
#include "core/serving/execution/served_model.h"

namespace neuronserve {

class FairShare {
 public:
  struct Binding {
    ServedModel* model = nullptr;
    ModelReplica* replica = nullptr;
    // Device time this core spent on the replica's executions, the measure of fairness.
    absl::Duration used = absl::ZeroDuration();
  };

  // Binds `replica` of `model`, level with the least served binding.
  void Add(ServedModel* model, ModelReplica* replica);
  // Unbinds every replica of `model`, calling `removed(binding)` for each first. Starts a new
  // generation: a charge taken before it is dropped, as its replica may be gone.
  template <typename Removed>
  void Remove(const ServedModel* model, Removed removed);

  // Offers the bindings to `try_take(binding)` in fair order until one returns true, then
  // lifts the idle bindings asked before it and passes the turn on. Returns the binding that
  // took, or null when none did. A core serves a handful of models: the order is an insertion
  // sort, stable and with no allocation below 8 (std::stable_sort asks the heap for a buffer on
  // every call, twice per unit on the hot path).
  template <typename TryTake>
  const Binding* Choose(TryTake try_take);

  // Adds `ran` to the binding of `replica`, unless the bindings changed since `generation`.
  void Charge(const ModelReplica* replica, uint64_t generation, absl::Duration ran);

  uint64_t generation() const { return generation_; }
  const std::vector<Binding>& bindings() const { return bindings_; }

 private:
  std::vector<Binding> bindings_;
  size_t next_ = 0;          // where the turn starts among equals
  uint64_t generation_ = 0;  // counts Remove calls
};

template <typename Removed>
void FairShare::Remove(const ServedModel* model, Removed removed) {
  for (const Binding& binding : bindings_) {
    if (binding.model == model) removed(binding);
  }
  bindings_.erase(std::remove_if(bindings_.begin(), bindings_.end(),
                                 [model](const Binding& b) { return b.model == model; }),
                  bindings_.end());
  next_ = 0;
  ++generation_;
}

template <typename TryTake>
const FairShare::Binding* FairShare::Choose(TryTake try_take) {
  const size_t count = bindings_.size();
  // In turn from next_, then by the device time they had: equals keep the turn.
  absl::InlinedVector<size_t, 8> order;
  for (size_t step = 0; step < count; ++step) {
    const size_t index = (next_ + step) % count;
    size_t at = order.size();
    order.push_back(index);
    while (at > 0 && bindings_[index].used < bindings_[order[at - 1]].used) {
      order[at] = order[at - 1];
      --at;
    }
    order[at] = index;
  }
  for (size_t asked = 0; asked < order.size(); ++asked) {
    Binding& candidate = bindings_[order[asked]];
    if (!try_take(candidate)) continue;
    // Those asked before had nothing: they bank no credit for the time they were idle. One
    // with every set in flight was busy, not idle, and is not lifted.
    for (size_t idle = 0; idle < asked; ++idle) {
      Binding& passed = bindings_[order[idle]];
      if (passed.replica->free_tensor_sets.load(std::memory_order_relaxed) == 0) continue;
      passed.used = std::max(passed.used, candidate.used);
    }
    next_ = order[asked] + 1;  // among equals, the turn passes on
    return &candidate;
  }
  return nullptr;
}

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_EXECUTION_FAIR_SHARE_H_
