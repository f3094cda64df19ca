// The copies of one execution unit between its jobs' buffers and the device tensor set it runs
// in (the write and read stages' device work), and the record of how long a stage's copies
// take, by which a core decides whether they are worth handing to its copy thread.
//
// A unit's jobs fill the variant's batch in order, each part's rows after the parts' before it;
// rows no job fills are padding: zeros in (never an earlier request's data), nothing read out.
// A variant without a batch dimension takes one request's whole tensors: one row.
//
// Thread safety: the functions touch only the unit's tensor set, which the calling worker has
// claimed, and its jobs' buffers, which it owns until it answers them. RecentCopyTimes is read
// and written without a lock by a core's two threads (a hint; see below).
#ifndef NEURON_SERVE_CORE_SERVING_EXECUTION_UNIT_COPIES_H_
#define NEURON_SERVE_CORE_SERVING_EXECUTION_UNIT_COPIES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "core/serving/execution/model_replica.h"
#include "core/serving/execution/served_model.h"
#include "core/serving/scheduling/scheduler.h"

namespace neuronserve {

// Writes each part's rows of every input into `tensors` (of `variant`), then zeros in the rows
// no part fills (`zeros`: the caller's reusable buffer, grown as needed). An error names the
// model, the input and the cores.
absl::Status WriteUnitInputs(const ExecutionUnit& unit, const ServedModel& model,
                             const ModelReplica& replica, const ReplicaVariant& variant,
                             ReplicaTensors& tensors, std::vector<uint8_t>& zeros);

// Reads each part's rows of every output its job asked for out of `tensors`. An error names
// the model, the output and the cores.
absl::Status ReadUnitOutputs(const ExecutionUnit& unit, const ServedModel& model,
                             const ModelReplica& replica, const ReplicaVariant& variant,
                             const ReplicaTensors& tensors);

// The last kSamples copy times of one stage on a core. A hint, read and written without a
// lock: a sample lost to a race only delays the decision by a unit.
class RecentCopyTimes {
 public:
  static constexpr size_t kSamples = 4;
  void Observe(absl::Duration took);
  // True when every recent copy took at least `threshold_ns` (so the fastest of them decides,
  // and one copy slowed by preemption does not turn the hand-off on).
  bool AllAtLeast(int64_t threshold_ns) const;

 private:
  std::atomic<int64_t> ns_[kSamples] = {};
  std::atomic<size_t> next_{0};
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_EXECUTION_UNIT_COPIES_H_
