// CoreAllocator: decides which NeuronCores each replica of a model gets.
//
// Pure bookkeeping: it calls no runtime and knows nothing of gRPC. The model registry asks it
// for a placement before loading a model (one nrt_load per replica, at the range's start core)
// and releases the placement after the last replica has unloaded.
//
// Rules
//  - A replica occupies `cores_per_replica` contiguous cores [start, start + cores_per_replica):
//    a multi-core NEFF is loaded at its start core and the runtime uses the cores that follow.
//  - A placement P (owner o, shared s) may use core c iff every placement Q already on c has
//    Q.owner == o, or both s and Q.shared. Placements of one owner may overlap each other, so
//    that a new version of a model loads beside the old one on the same cores before the old
//    one unloads. Shared placements of different owners may overlap; an exclusive placement
//    overlaps no other owner's placement, shared or not.
//  - The replicas of one request are pairwise disjoint.
//  - Replica-count mode (start_cores empty): first fit. For each replica in turn, the lowest
//    start such that the range lies inside the machine, every core of it is usable, and it is
//    disjoint from this request's earlier replicas. (For ranges of equal length, lowest-start
//    greedy places as many as any arrangement can, so first fit never refuses a request that
//    some other arrangement would have satisfied.)
//  - Explicit mode (start_cores non-empty): one replica per listed start core, in the order
//    listed; `replicas` is ignored.
//  - All-or-nothing: if any replica cannot be placed, nothing is reserved.
//  - Ids are unique and never reused in the life of the process (across allocators too), so a
//    stale id can never release someone else's placement.
//
// Errors (the message names the model and says what to change)
//  - INVALID_ARGUMENT: empty owner; cores_per_replica == 0; cores_per_replica > core_count;
//    replicas == 0 in replica-count mode; an explicit range that leaves the machine (names the
//    start core, the model's cores per replica and the machine's core count); explicit ranges
//    that overlap each other. Retrying the same request will fail again.
//  - RESOURCE_EXHAUSTED: not enough room now. In replica-count mode the message says what was
//    asked ("3 replicas of 2 contiguous cores"), how many fit, the free cores ("free cores:
//    0, 3" or "no free cores"), who holds the others ("cores 1-2 held by 'resnet'") and whether
//    the cause is fragmentation. In explicit mode it names the core and who holds it. May
//    succeed after something is released.
//
// Thread-safe: every method takes one internal mutex.
#ifndef NEURON_SERVE_CORE_LIFECYCLE_CORE_ALLOCATOR_H_
#define NEURON_SERVE_CORE_LIFECYCLE_CORE_ALLOCATOR_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/mutex.h"
#include "core/serving/execution/core_range.h"  // CoreRange, FormatCoreList

namespace neuronserve {

struct PlacementRequest {
  std::string owner;                  // the model name
  uint32_t cores_per_replica = 1;     // the model's nc_count
  uint32_t replicas = 1;              // used when start_cores is empty
  std::vector<uint32_t> start_cores;  // explicit placement: one replica per listed start core
  bool shared = false;                // may use cores held by other owners' shared placements
};

struct Placement {
  uint64_t id = 0;
  std::vector<CoreRange> ranges;  // one per replica, in replica order
};

struct CoreHolder {
  std::string owner;
  uint64_t placement_id = 0;
  bool shared = false;
};

class CoreAllocator {
 public:
  explicit CoreAllocator(uint32_t core_count);

  CoreAllocator(const CoreAllocator&) = delete;
  CoreAllocator& operator=(const CoreAllocator&) = delete;

  // Reserves cores for every replica of `request`, or nothing (see the rules above).
  absl::StatusOr<Placement> Allocate(const PlacementRequest& request) ABSL_LOCKS_EXCLUDED(mu_);

  // Returns the placement's cores. An unknown (or already released) id is a no-op.
  void Release(uint64_t placement_id) ABSL_LOCKS_EXCLUDED(mu_);

  // Per core index, the placements on it, oldest first.
  std::vector<std::vector<CoreHolder>> Holders() const ABSL_LOCKS_EXCLUDED(mu_);

  // Cores no placement holds, ascending.
  std::vector<uint32_t> FreeCores() const ABSL_LOCKS_EXCLUDED(mu_);

  uint32_t core_count() const { return core_count_; }

  // "free cores: 0, 3; cores 1-2 held by 'resnet'", for error messages of callers.
  std::string Occupancy() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // Whether a placement of (owner, shared) may use `core` under the sharing rule.
  bool Usable(uint32_t core, const std::string& owner, bool shared) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The first core of `range` that (owner, shared) may not use, or -1 if all are usable.
  int64_t FirstUnusable(CoreRange range, const std::string& owner, bool shared) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::StatusOr<std::vector<CoreRange>> PlaceByCount(const PlacementRequest& request) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<std::vector<CoreRange>> PlaceExplicitly(const PlacementRequest& request) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // "free cores: 0, 3; cores 1-2 held by 'resnet'; core 4 held by 'bert' (shared)".
  std::string DescribeOccupancy() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const uint32_t core_count_;
  mutable Mutex mu_;
  std::vector<std::vector<CoreHolder>> holders_ ABSL_GUARDED_BY(mu_);  // one entry per core
  std::map<uint64_t, std::vector<CoreRange>> placements_ ABSL_GUARDED_BY(mu_);  // by id
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_LIFECYCLE_CORE_ALLOCATOR_H_
