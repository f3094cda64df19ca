#include "core/serving/scheduling/dynamic_batcher.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "util/crash_point.h"

namespace neuronserve {
namespace {

// Weight of the newest execution in a variant's moving average: recent enough to follow a
// change (a core shared with another model), smooth enough to ignore one slow execution.
constexpr double kNewestWeight = 0.2;

uint32_t ReadyRows(const BatchingPolicy& policy) {
  const uint32_t largest = policy.largest_batch_size();
  if (policy.preferred_batch_sizes.empty()) return largest;
  uint32_t smallest = largest;
  for (uint32_t size : policy.preferred_batch_sizes) {
    if (size >= 1) smallest = std::min(smallest, size);
  }
  return smallest;
}

}  // namespace

uint32_t BatchingPolicy::largest_batch_size() const {
  uint32_t largest = 1;
  for (uint32_t size : variant_batch_sizes) largest = std::max(largest, size);
  return largest;
}

DynamicBatcher::DynamicBatcher(std::string model_name, BatchingPolicy policy, size_t capacity,
                               size_t healthy_replicas, std::vector<Doorbell*> doorbells,
                               QueuedBytesBudget* budget)
    : SchedulerBase(std::move(model_name), capacity, healthy_replicas, std::move(doorbells),
                    budget),
      policy_(std::move(policy)),
      largest_batch_(policy_.largest_batch_size()),
      ready_rows_(ReadyRows(policy_)),
      seconds_per_execution_(policy_.variant_batch_sizes.size(), -1.0) {}

absl::Status DynamicBatcher::Submit(InferenceJob* job) {
  if (job->rows == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", model_name(), "': the request has no rows"));
  }
  MutexLock lock(&mutex_);
  if (absl::Status admitted = AdmitLocked(*job); !admitted.ok()) return admitted;
  const absl::Time now = absl::Now();
  job->enqueued_at = now;
  if (policy_.default_timeout != absl::InfiniteDuration()) {
    const absl::Time policy_deadline = now + policy_.default_timeout;
    const bool own = policy_.allow_timeout_override && job->deadline != absl::InfiniteFuture();
    if (!own) job->deadline = std::min(job->deadline, policy_deadline);
  }
  if (job->rows > largest_batch_) job->row_ranges = std::make_unique<RowRanges>(job->rows);
  const bool urgent = policy_.max_queue_delay > absl::ZeroDuration() &&
                      job->deadline < now + policy_.max_queue_delay;
  main_.push_back(Waiting{job, 0, urgent, false});
  main_rows_ += job->rows;
  if (urgent) ++urgent_;
  RingAllLocked();
  return absl::OkStatus();
}

bool DynamicBatcher::Next(const ModelReplica& replica, absl::Time now, ExecutionUnit& unit,
                          absl::Time* look_again_at) {
  unit.Clear();
  MutexLock lock(&mutex_);
  if (InferenceJob* retry = TakeRetryLocked(replica); retry != nullptr) {
    unit.variant = SmallestVariantFor(retry->rows);
    unit.parts.push_back(WholeJob(retry));
    return true;
  }
  if (main_.empty()) return false;
  absl::Time until;
  if (ShouldHold(now, &until)) {
    if (!main_.front().held) {
      main_.front().held = true;
      CrashPoint(kCrashBatcherHolding);
    }
    *look_again_at = std::min(*look_again_at, until);
    return false;
  }
  const Waiting& oldest = main_.front();
  const uint32_t waiting_rows =
      static_cast<uint32_t>(std::min<uint64_t>(main_rows_, uint64_t{UINT32_MAX}));
  Fill(ChooseVariantLocked(waiting_rows, oldest.job->rows - oldest.next_row), unit);
  return true;
}

bool DynamicBatcher::ShouldHold(absl::Time now, absl::Time* until) const {
  if (policy_.max_queue_delay <= absl::ZeroDuration()) return false;
  if (main_rows_ >= ready_rows_ || urgent_ > 0) return false;
  *until = main_.front().job->enqueued_at + policy_.max_queue_delay;
  return now < *until;
}

size_t DynamicBatcher::ChooseVariant(uint32_t waiting_rows, uint32_t oldest_rows) const {
  MutexLock lock(&mutex_);
  return ChooseVariantLocked(waiting_rows, oldest_rows);
}

size_t DynamicBatcher::ChooseVariantLocked(uint32_t waiting_rows, uint32_t oldest_rows) const {
  const std::vector<uint32_t>& sizes = policy_.variant_batch_sizes;
  double fastest = -1.0;
  for (double seconds : seconds_per_execution_) {
    if (seconds >= 0 && (fastest < 0 || seconds < fastest)) fastest = seconds;
  }
  const uint32_t must_hold = std::min(oldest_rows, largest_batch_);
  size_t best = sizes.size();
  double best_cost = 0;
  for (size_t v = 0; v < sizes.size(); ++v) {
    if (sizes[v] < must_hold) continue;
    const double seconds = seconds_per_execution_[v] >= 0 ? seconds_per_execution_[v]
                                                          : (fastest >= 0 ? fastest : 1.0);
    const uint32_t useful = std::max<uint32_t>(1, std::min(waiting_rows, sizes[v]));
    const double cost = seconds / useful;
    if (best == sizes.size() || cost < best_cost ||
        (cost == best_cost && sizes[v] < sizes[best])) {
      best = v;
      best_cost = cost;
    }
  }
  return best == sizes.size() ? SmallestVariantFor(largest_batch_) : best;
}

size_t DynamicBatcher::SmallestVariantFor(uint32_t rows) const {
  const std::vector<uint32_t>& sizes = policy_.variant_batch_sizes;
  const uint32_t wanted = std::min(rows, largest_batch_);
  size_t best = sizes.size();
  for (size_t v = 0; v < sizes.size(); ++v) {
    if (sizes[v] >= wanted && (best == sizes.size() || sizes[v] < sizes[best])) best = v;
  }
  return best;
}

void DynamicBatcher::Fill(size_t variant, ExecutionUnit& unit) {
  unit.variant = variant;
  uint32_t room = policy_.variant_batch_sizes[variant];
  while (room > 0 && !main_.empty()) {
    Waiting& next = main_.front();
    const uint32_t remaining = next.job->rows - next.next_row;
    if (remaining <= room) {
      unit.parts.push_back(JobRows{next.job, next.next_row, remaining});
      room -= remaining;
      main_rows_ -= remaining;
      if (next.urgent) --urgent_;
      LeftMainLocked(*next.job);
      main_.pop_front();
      continue;
    }
    // A split request gives the rows that fit and stays first; any other that does not fit
    // waits for the next execution (it would otherwise be overtaken).
    if (next.job->row_ranges == nullptr) break;
    unit.parts.push_back(JobRows{next.job, next.next_row, room});
    next.next_row += room;
    main_rows_ -= room;
    room = 0;
  }
}

void DynamicBatcher::Executed(size_t variant, uint32_t /*rows*/, absl::Duration device) {
  MutexLock lock(&mutex_);
  if (variant >= seconds_per_execution_.size()) return;
  double& average = seconds_per_execution_[variant];
  const double seconds = absl::ToDoubleSeconds(device);
  average = average < 0 ? seconds : average + kNewestWeight * (seconds - average);
}

void DynamicBatcher::TakeMainLocked(std::vector<JobRows>* held) {
  for (const Waiting& waiting : main_) {
    LeftMainLocked(*waiting.job);
    held->push_back(JobRows{waiting.job, waiting.next_row, waiting.job->rows - waiting.next_row});
  }
  main_.clear();
  main_rows_ = 0;
  urgent_ = 0;
}

void DynamicBatcher::TakeJobLocked(const InferenceJob* job, std::vector<JobRows>* held) {
  const auto it = std::find_if(main_.begin(), main_.end(),
                               [job](const Waiting& waiting) { return waiting.job == job; });
  if (it == main_.end()) return;
  const uint32_t remaining = it->job->rows - it->next_row;
  held->push_back(JobRows{it->job, it->next_row, remaining});
  main_rows_ -= remaining;
  if (it->urgent) --urgent_;
  LeftMainLocked(*it->job);
  main_.erase(it);
}

}  // namespace neuronserve
