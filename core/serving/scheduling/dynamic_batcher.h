// DynamicBatcher: the Scheduler (scheduler.h) of a model compiled for several batch sizes. It
// gathers queued requests into one execution of the variant that costs the least device time
// per useful row, pads the rest of the batch, and splits a request with more rows than the
// largest variant into row ranges. Configured with Triton's names (BatchingPolicy).
//
// Choosing a variant. Useful rows are min(rows waiting, the variant's batch size); the cost of a
// variant is its measured device time per execution (Executed, a moving average) divided by
// them. So a lone row runs on the smallest variant and a full queue on the largest, whatever
// the compiler made of the sizes in between. A variant not measured yet is assumed as fast as
// the fastest measured one (none measured: all alike), so it is tried when it would be useful;
// ties go to the smaller batch. Only variants that hold the oldest request's rows (or, for a
// request larger than every variant, the largest) are candidates: rows run in arrival order.
//
// Waiting. Work-conserving by default: a free core takes what is queued at once, so batches
// form by themselves under load and a lone request never waits. With max_queue_delay a free
// core may wait, measured from the oldest queued request's arrival, until the rows waiting
// reach a preferred batch size (or the largest variant); it never waits for a request whose
// deadline comes before its own arrival plus the delay (such a request runs at once).
//
// Filling. Requests are taken oldest first while their rows fit; a request that does not fit
// ends the batch (no request overtakes an older one). A request with more rows than the largest
// variant is split: it gets its RowRanges at Submit, and each execution takes the next rows of
// it that fit; it completes when its last range does (job_rows.h).
//
// Retries (Requeue, SchedulerBase's lane) run alone, first, on the smallest variant that holds
// them, and not on the replica they failed on while another is healthy.
//
// Thread safety: as Scheduler; one mutex (SchedulerBase's) guards the queues and the cost
// estimates.
#ifndef NEURON_SERVE_CORE_SERVING_SCHEDULING_DYNAMIC_BATCHER_H_
#define NEURON_SERVE_CORE_SERVING_SCHEDULING_DYNAMIC_BATCHER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "core/serving/scheduling/doorbell.h"
#include "core/serving/scheduling/scheduler_base.h"

namespace neuronserve {

// Triton's dynamic_batching settings that this batcher implements.
struct BatchingPolicy {
  // The batch size of each variant, by its index in the replicas' variants (each >= 1).
  std::vector<uint32_t> variant_batch_sizes;
  // preferred_batch_size: row counts worth forming at once; empty: the largest variant's.
  std::vector<uint32_t> preferred_batch_sizes;
  // max_queue_delay_microseconds: how long a free core may wait for a preferred batch, from the
  // oldest queued request's arrival. Zero: never.
  absl::Duration max_queue_delay = absl::ZeroDuration();
  // default_queue_policy.default_timeout_microseconds: a request still queued this long after
  // its arrival gets DEADLINE_EXCEEDED. Infinite: no limit but the request's own deadline.
  absl::Duration default_timeout = absl::InfiniteDuration();
  // default_queue_policy.allow_timeout_override: a request's own deadline replaces
  // default_timeout; otherwise the earlier of the two applies.
  bool allow_timeout_override = false;

  // The largest of variant_batch_sizes (1 when there are none): the most rows one execution
  // holds, past which a request is split.
  uint32_t largest_batch_size() const;
};

class DynamicBatcher final : public SchedulerBase {
 public:
  // `policy.variant_batch_sizes` must not be empty; `capacity` (max_queue_size, the model's
  // max queue) >= 1 (0 is taken as 1); `doorbells` must outlive the batcher.
  DynamicBatcher(std::string model_name, BatchingPolicy policy, size_t capacity,
                 size_t healthy_replicas, std::vector<Doorbell*> doorbells,
                 QueuedBytesBudget* budget = nullptr);

  absl::Status Submit(InferenceJob* job) override;
  bool Next(const ModelReplica& replica, absl::Time now, ExecutionUnit& unit,
            absl::Time* look_again_at) override;
  void Executed(size_t variant, uint32_t rows, absl::Duration device) override;
  const BatchingPolicy* batching_policy() const override { return &policy_; }

  // The variant Next would choose for `waiting_rows` rows when the oldest request has
  // `oldest_rows`, with the costs measured so far (for tests and the benchmark's report).
  size_t ChooseVariant(uint32_t waiting_rows, uint32_t oldest_rows) const;

 private:
  // A request in the main queue, and the first of its rows not yet handed to a worker.
  struct Waiting {
    InferenceJob* job;
    uint32_t next_row;
    bool urgent;  // its deadline comes before its arrival plus max_queue_delay
    bool held = false;  // a core has held it for company (the test-only crash point counts it)
  };

  size_t ChooseVariantLocked(uint32_t waiting_rows, uint32_t oldest_rows) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The smallest variant whose batch holds `rows` (the largest when none does).
  size_t SmallestVariantFor(uint32_t rows) const;
  // True when a free core should wait (until `*until`) for more rows instead of running now.
  bool ShouldHold(absl::Time now, absl::Time* until) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void Fill(size_t variant, ExecutionUnit& unit) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  size_t MainDepthLocked() const override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return main_.size();
  }
  // The rows of a split request not yet handed to a worker come back as one range.
  void TakeMainLocked(std::vector<JobRows>* held) override ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // A split request keeps the ranges already handed out; the rest come back as one range.
  void TakeJobLocked(const InferenceJob* job, std::vector<JobRows>* held) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const BatchingPolicy policy_;
  const uint32_t largest_batch_;
  // The fewest rows worth running without waiting: the smallest preferred size, else the
  // largest variant's batch.
  const uint32_t ready_rows_;
  std::deque<Waiting> main_ ABSL_GUARDED_BY(mutex_);
  uint64_t main_rows_ ABSL_GUARDED_BY(mutex_) = 0;  // rows of main_ not yet handed out
  size_t urgent_ ABSL_GUARDED_BY(mutex_) = 0;       // entries of main_ marked urgent
  // Per variant: the moving average of its device time per execution, in seconds; < 0 while
  // not measured.
  std::vector<double> seconds_per_execution_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_SCHEDULING_DYNAMIC_BATCHER_H_
