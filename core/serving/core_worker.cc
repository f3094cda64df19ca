#include "core/serving/core_worker.h"

#include <algorithm>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/numeric/bits.h"
#include "absl/strings/str_cat.h"
#include "base/thread_name.h"
#include "core/nrt/nrt_status.h"
#include "core/serving/execution_failure.h"
#include "core/serving/job_withdrawal.h"
#include "core/serving/loaded_model.h"
#include "core/serving/worker_pool.h"
#include "spdlog/spdlog.h"

namespace neuronserve {
namespace {

// True when `job` no longer wants its answer at `now`: its caller cancelled, or its deadline
// passed. It is then answered without running, with GaveUpStatus.
bool GaveUp(const InferenceJob& job, absl::Time now) {
  return job.Cancelled() || now >= job.deadline;
}

// The answer of a job that GaveUp at `now`.
absl::Status GaveUpStatus(const InferenceJob& job, absl::Time now, const std::string& model) {
  if (job.Cancelled()) return CancelledWhileQueuedError(model);
  return absl::DeadlineExceededError(
      absl::StrCat("model '", model, "': the deadline passed after ",
                   absl::FormatDuration(absl::Trunc(now - job.enqueued_at, absl::Microseconds(1))),
                   " in the queue; the request did not run"));
}

}  // namespace

CoreWorker::CoreWorker(uint32_t core, WorkerPool* pool)
    : core_(core),
      pool_(pool),
      metrics_(pool->metrics() != nullptr ? pool->metrics()->ForCore(core)
                                          : CoreExecutionMetrics{}),
      execution_thread_([this] { RunExecution(); }),
      copy_thread_([this] { RunCopies(); }) {}

CoreWorker::~CoreWorker() {
  {
    MutexLock lock(&stages_mutex_);
    stopping_ = true;
  }
  execution_bell_.NotifyAll();
  copy_bell_.NotifyAll();
  execution_thread_.join();
  copy_thread_.join();
}

std::optional<absl::Time> CoreWorker::executing_since() const {
  const int64_t executing = executing_since_ns_.load(std::memory_order_acquire);
  const int64_t copying = copying_since_ns_.load(std::memory_order_acquire);
  if (executing == 0 && copying == 0) return std::nullopt;
  if (executing == 0) return absl::FromUnixNanos(copying);
  if (copying == 0) return absl::FromUnixNanos(executing);
  return absl::FromUnixNanos(std::min(executing, copying));
}

bool CoreWorker::Idle() {
  MutexLock lock(&stages_mutex_);
  return execution_idle_ && copy_idle_ && !taking_ && written_.empty() && executed_.empty() &&
         spare_.size() == flights_.size();
}

void CoreWorker::Ring() {
  bool wake_execution = false;
  bool wake_copy = false;
  {
    MutexLock lock(&stages_mutex_);
    ++rings_;
    // The idle core takes the work itself; a busy one has its copy thread write it meanwhile,
    // when a tensor set is free for it (else the copy thread could take nothing).
    // While either thread takes, the ring waits for the take to end: each looks at rings_ then.
    wake_execution = execution_idle_;
    wake_copy = executing_ && !taking_ && copy_idle_ &&
                free_tensor_sets_.load(std::memory_order_relaxed) > 0 && WritesWorthOverlapping();
  }
  if (wake_execution) execution_bell_.NotifyOne();
  if (wake_copy) copy_bell_.NotifyOne();
}

void CoreWorker::Attach(LoadedModel* model, ModelReplica* replica) {
  {
    MutexLock lock(&bindings_mutex_);
    // A newcomer starts level with the least served binding: it is owed nothing for the time
    // before it came (and would otherwise have the core to itself until it caught up).
    absl::Duration least = absl::ZeroDuration();
    for (size_t i = 0; i < bindings_.size(); ++i) {
      least = i == 0 ? bindings_[i].used : std::min(least, bindings_[i].used);
    }
    bindings_.push_back(Binding{model, replica, least});
    free_tensor_sets_.fetch_add(
        absl::popcount(replica->free_tensor_sets.load(std::memory_order_acquire)),
        std::memory_order_relaxed);
  }
  Ring();  // jobs may be waiting already
}

void CoreWorker::Detach(const LoadedModel* model) {
  MutexLock lock(&bindings_mutex_);
  for (const Binding& binding : bindings_) {
    // No unit of the model is in flight (the caller holds no lease), so all its sets are free.
    if (binding.model == model) {
      free_tensor_sets_.fetch_sub(
          absl::popcount(binding.replica->free_tensor_sets.load(std::memory_order_acquire)),
          std::memory_order_relaxed);
    }
  }
  bindings_.erase(std::remove_if(bindings_.begin(), bindings_.end(),
                                 [model](const Binding& b) { return b.model == model; }),
                  bindings_.end());
  next_binding_ = 0;
  ++bindings_generation_;
}

CoreWorker::Flight* CoreWorker::Take(absl::Time* look_again_at) {
  Flight* flight;
  {
    MutexLock lock(&stages_mutex_);
    if (spare_.empty()) {
      flights_.push_back(std::make_unique<Flight>());
      spare_.push_back(flights_.back().get());
    }
    flight = spare_.back();
    spare_.pop_back();
  }
  if (TakeNext(*flight, look_again_at)) return flight;
  MutexLock lock(&stages_mutex_);
  spare_.push_back(flight);
  return nullptr;
}

bool CoreWorker::TakeNext(Flight& flight, absl::Time* look_again_at) {
  MutexLock lock(&bindings_mutex_);
  const size_t count = bindings_.size();
  const absl::Time now = absl::Now();
  // The bindings in turn from next_binding_, then by the device time they had, equals keeping
  // the turn. A core serves a handful of models: an insertion sort, stable and with no
  // allocation below 8 (std::stable_sort asks the heap for a buffer on every call, twice per
  // unit on the hot path).
  absl::InlinedVector<size_t, 8> order;
  for (size_t step = 0; step < count; ++step) {
    const size_t index = (next_binding_ + step) % count;
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
    ModelReplica& replica = *candidate.replica;
    if (!replica.healthy.load(std::memory_order_acquire)) continue;
    // Every set in flight: the replica is busy, not idle, so it is neither asked nor lifted.
    const uint32_t free_sets = replica.free_tensor_sets.load(std::memory_order_acquire);
    if (free_sets == 0) continue;
    if (!candidate.model->scheduler()->Next(replica, now, flight.unit, look_again_at)) continue;
    // Those asked before had nothing: they bank no credit for the time they were idle.
    for (size_t idle = 0; idle < asked; ++idle) {
      Binding& passed = bindings_[order[idle]];
      if (passed.replica->free_tensor_sets.load(std::memory_order_relaxed) == 0) continue;
      passed.used = std::max(passed.used, candidate.used);
    }
    next_binding_ = order[asked] + 1;  // among equals, the turn passes on
    // Sets are claimed only here, under bindings_mutex_: the lowest free one is still free.
    const uint32_t set = static_cast<uint32_t>(absl::countr_zero(free_sets));
    replica.free_tensor_sets.fetch_and(~(uint32_t{1} << set), std::memory_order_acq_rel);
    free_tensor_sets_.fetch_sub(1, std::memory_order_relaxed);
    flight.unit.tensor_set = set;
    flight.binding = candidate;
    flight.generation = bindings_generation_;
    // Read again: a job submitted after `now` was read may be in the unit, and its time in the
    // queue must not come out negative.
    flight.taken = absl::Now();
    flight.device = absl::ZeroDuration();
    flight.wrote = absl::ZeroDuration();
    flight.read = absl::ZeroDuration();
    flight.executed = absl::OkStatus();
    return true;
  }
  return false;
}

void CoreWorker::Charge(const Flight& flight, absl::Duration ran) {
  MutexLock lock(&bindings_mutex_);
  if (flight.generation != bindings_generation_) return;
  for (Binding& bound : bindings_) {
    if (bound.replica == flight.binding.replica) bound.used += ran;
  }
}

void CoreWorker::RunExecution() {
  NameThisThread(absl::StrCat("core-", core_));
  for (;;) {
    Flight* flight = nullptr;
    uint64_t seen;
    bool wake_copy = false;
    {
      MutexLock lock(&stages_mutex_);
      // A unit the copy thread is taking or writing comes next: wait for it rather than take
      // another (which would run before it).
      execution_bell_.Wait(&stages_mutex_, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(stages_mutex_) {
        return stopping_ || !written_.empty() || !taking_;
      });
      if (stopping_) return;
      if (!written_.empty()) {
        flight = written_.front();
        written_.erase(written_.begin());
        executing_ = true;
        // The copy thread may write the next one now.
        wake_copy = copy_idle_ && WritesWorthOverlapping();
      } else {
        taking_ = true;  // this thread's turn to take
      }
      seen = rings_;
    }
    if (wake_copy) copy_bell_.NotifyOne();
    if (flight != nullptr) {
      ExecuteAndHandOn(flight, /*waited=*/true);
      continue;
    }
    // The core is idle: this thread takes the next unit and writes it itself (a hand-off to the
    // copy thread would only add a wake-up).
    absl::Time look_again_at = absl::InfiniteFuture();
    flight = Take(&look_again_at);
    const bool runs = flight != nullptr && Write(*flight, execution_scratch_, executing_since_ns_);
    {
      MutexLock lock(&stages_mutex_);
      taking_ = false;
      if (flight == nullptr) {
        // Nothing to take: sleep until something rings after the snapshot above (a ring
        // during the scan leaves rings_ != seen, so it is never lost), a unit is written, or a
        // scheduler said it will have something.
        auto woken = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(stages_mutex_) {
          return stopping_ || rings_ != seen || !written_.empty();
        };
        execution_idle_ = true;
        if (look_again_at == absl::InfiniteFuture()) {
          execution_bell_.Wait(&stages_mutex_, woken);
        } else {
          execution_bell_.WaitWithTimeout(&stages_mutex_, look_again_at - absl::Now(), woken);
        }
        execution_idle_ = false;
        continue;
      }
      // Work that rang while this thread took is the copy thread's to take, now that the core
      // is about to execute.
      executing_ = runs;
      wake_copy = runs && copy_idle_ && rings_ != seen && WritesWorthOverlapping();
    }
    if (wake_copy) copy_bell_.NotifyOne();
    if (runs) ExecuteAndHandOn(flight, /*waited=*/false);
  }
}

void CoreWorker::ExecuteAndHandOn(Flight* flight, bool waited) {
  if (Execute(*flight, waited)) {
    AfterExecution(flight);
    return;
  }
  MutexLock lock(&stages_mutex_);
  executing_ = false;
}

void CoreWorker::RunCopies() {
  NameThisThread(absl::StrCat("copy-", core_));
  uint64_t seen = 0;        // rings_ when this thread last began to take
  bool take_again = false;  // the last take found a unit: there may be more
  absl::Time look_again_at = absl::InfiniteFuture();
  for (;;) {
    Flight* executed = nullptr;
    {
      MutexLock lock(&stages_mutex_);
      // Reads come first (they answer requests and free sets). A new unit is taken only while
      // the core executes (else the core's thread takes its own) and none is written yet: one
      // ahead keeps the core fed, and choosing the next unit as late as that lets the fair share
      // between the bound models see every execution charged but the running one.
      auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(stages_mutex_) {
        return stopping_ || !executed_.empty() ||
               (executing_ && !taking_ && written_.empty() && (take_again || rings_ != seen) &&
                WritesWorthOverlapping());
      };
      copy_idle_ = true;
      while (!ready()) {
        if (look_again_at == absl::InfiniteFuture()) {
          copy_bell_.Wait(&stages_mutex_, ready);
        } else if (!copy_bell_.WaitWithTimeout(&stages_mutex_, look_again_at - absl::Now(),
                                               ready)) {
          // A scheduler's promised unit is due: take it if the core is still busy.
          look_again_at = absl::InfiniteFuture();
          take_again = true;
        }
      }
      copy_idle_ = false;
      if (stopping_) return;
      if (!executed_.empty()) {
        executed = executed_.front();
        executed_.erase(executed_.begin());
      } else {
        taking_ = true;
        seen = rings_;
      }
    }
    if (executed != nullptr) {
      Read(*executed, copy_scratch_, copying_since_ns_);
      continue;
    }
    look_again_at = absl::InfiniteFuture();
    Flight* flight = Take(&look_again_at);
    take_again = flight != nullptr;
    const bool written = flight != nullptr && Write(*flight, copy_scratch_, copying_since_ns_);
    {
      MutexLock lock(&stages_mutex_);
      taking_ = false;
      if (written) written_.push_back(flight);
    }
    execution_bell_.NotifyOne();  // it may wait for this unit, or for taking_ to end
  }
}

void CoreWorker::Answer(const Flight& flight, const JobRows& part, absl::Status status,
                        absl::Duration device, Scratch& scratch) {
  // A part that reached the device reports the batch it ran in (the unit by then holds only
  // those parts).
  ExecutionTiming timing{flight.taken - part.job->enqueued_at, device};
  if (device > absl::ZeroDuration()) {
    timing.input = flight.wrote;
    timing.output = flight.read;
    timing.batch_rows = flight.unit.rows();
    timing.batch_size = flight.binding.replica->variants[flight.unit.variant].batch_size;
  }
  absl::Status outcome;
  if (EndRows(part, std::move(status), &outcome)) {
    scratch.completions.push_back(Completion{part.job, std::move(outcome), timing});
  }
}

bool CoreWorker::Write(Flight& flight, Scratch& scratch, std::atomic<int64_t>& since_ns) {
  LoadedModel& model = *flight.binding.model;
  ModelReplica& replica = *flight.binding.replica;
  ExecutionUnit& unit = flight.unit;
  const std::string& name = model.identity().name;

  // Everything a job needs from the model is done before its answer: after it the job's owner
  // may release the last lease, and the model may be unloaded. So answers are gathered in
  // `scratch` and given once the flight is released (FlushCompletions). The owner counts the
  // outcome (RecordRequestOutcome, core/serving/request_outcome.h), not the worker.
  //
  // Jobs whose caller gave up, or whose deadline passed, while queued never reach the device,
  // nor do the remaining rows of a split job one of whose ranges failed; the others keep their
  // order (their rows are packed in it).
  size_t kept = 0;
  for (const JobRows& part : unit.parts) {
    InferenceJob* job = part.job;
    if (GaveUp(*job, flight.taken)) {
      Answer(flight, part, GaveUpStatus(*job, flight.taken, name), absl::ZeroDuration(), scratch);
    } else if (job->row_ranges != nullptr && job->row_ranges->failed()) {
      Answer(flight, part, job->row_ranges->first_error(), absl::ZeroDuration(), scratch);
    } else {
      unit.parts[kept++] = part;
    }
  }
  unit.parts.resize(kept);
  if (unit.parts.empty()) {
    Release(flight);
    FlushCompletions(scratch, absl::ZeroDuration());
    return false;
  }

  ReplicaVariant& variant = replica.variants[unit.variant];
  // Counted for whole jobs only: the ranges of a split job may run on two cores at once, and are
  // never retried (RetryWanted).
  for (const JobRows& part : unit.parts) {
    if (part.job->row_ranges == nullptr) ++part.job->attempts;
  }
  if (variant.metrics != nullptr) {
    // What the batcher formed: counted whether or not the execution then succeeds.
    const uint32_t rows = unit.rows();
    variant.metrics->executions->Increment();
    variant.metrics->rows->Observe(rows);
    if (variant.batch_size > rows)
      variant.metrics->padded_rows->Increment(variant.batch_size - rows);
    for (const JobRows& part : unit.parts) {
      variant.metrics->queue_seconds->Observe(
          absl::ToDoubleSeconds(flight.taken - part.job->enqueued_at));
    }
  }
  const absl::Time started = absl::Now();
  since_ns.store(absl::ToUnixNanos(started), std::memory_order_release);
  absl::Status written = WriteInputs(flight, scratch);
  since_ns.store(0, std::memory_order_release);
  const absl::Duration wrote = absl::Now() - started;
  flight.device += wrote;
  flight.wrote = wrote;
  writes_.Observe(wrote);
  if (!written.ok()) {
    // A copy engine's hardware fault (a DMA abort, an HBM error, a hang) takes the core out of
    // rotation as an execution's does; the request gets the error, not a retry: its inputs
    // may be what the engine choked on.
    NoteDeviceFailure(*flight.binding.replica, written, std::string(written.message()));
    // No execution ran, so no device time is reported. The last answer takes the status itself:
    // no copy of it outlives the hand-off of the answers (see Release).
    for (size_t i = 0; i < unit.parts.size(); ++i) {
      Answer(flight, unit.parts[i], i + 1 < unit.parts.size() ? written : std::move(written),
             absl::ZeroDuration(), scratch);
    }
    Release(flight);  // the flight may be reused from here on
    FlushCompletions(scratch, wrote);
    return false;
  }
  // The answers of the jobs left behind need not wait for the others'.
  if (!scratch.completions.empty()) FlushCompletions(scratch, wrote);
  return true;
}

bool CoreWorker::Execute(Flight& flight, bool waited) {
  LoadedModel& model = *flight.binding.model;
  ModelReplica& replica = *flight.binding.replica;
  ReplicaVariant& variant = replica.variants[flight.unit.variant];
  const std::string& name = model.identity().name;
  if (waited) {
    // Written ahead, it waited for the core: when every job in it gave up meanwhile, it does not
    // run (a job that gave up in a unit that runs for others is answered as it would be anyway).
    const absl::Time now = absl::Now();
    const std::vector<JobRows>& parts = flight.unit.parts;
    if (std::all_of(parts.begin(), parts.end(),
                    [now](const JobRows& part) { return GaveUp(*part.job, now); })) {
      for (const JobRows& part : parts) {
        Answer(flight, part, GaveUpStatus(*part.job, now, name), absl::ZeroDuration(),
               execution_scratch_);
      }
      Release(flight);
      FlushCompletions(execution_scratch_, absl::ZeroDuration());
      return false;
    }
  }
  // Only for errors: a successful execution builds no text.
  auto where = [&] { return absl::StrCat("model '", name, "' on ", NameCoreRange(replica.cores)); };
  if (!replica.healthy.load(std::memory_order_acquire)) {
    // Its inputs were written before a hardware error took the replica out: it does not run
    // there, and fails (or is retried elsewhere) as a unit that met the error would.
    flight.executed = absl::UnavailableError(
        absl::StrCat(where(),
                     ": the replica was taken out of rotation after a hardware error before this "
                     "request ran"));
    flight.failure = ExecutionFailure::kHardware;
    return true;
  }
  ReplicaTensors& tensors = variant.tensor_sets[flight.unit.tensor_set];
  const absl::Time started = absl::Now();
  executing_since_ns_.store(absl::ToUnixNanos(started), std::memory_order_release);
  absl::Status executed = variant.model.Execute(tensors.input_set, tensors.output_set);
  const absl::Duration ran = absl::Now() - started;
  executing_since_ns_.store(0, std::memory_order_release);
  flight.device += ran;
  // The scheduler's cost feedback and the fairness charge count the write too, as the core's
  // cost of the unit; the busy time is the execution alone.
  model.scheduler()->Executed(flight.unit.variant, flight.unit.rows(), flight.device);
  Charge(flight, flight.device);
  replica.executions.fetch_add(1, std::memory_order_relaxed);
  if (metrics_.executions != nullptr) {
    metrics_.executions->Increment();
    metrics_.busy_seconds->Increment(absl::ToDoubleSeconds(ran));
  }
  if (executed.ok()) {
    flight.executed = absl::OkStatus();
    return true;
  }
  const std::string context = where();
  flight.failure =
      NoteDeviceFailure(replica, executed, absl::StrCat(context, ": ", executed.message()));
  flight.executed = WithContext(executed, context);
  return true;
}

ExecutionFailure CoreWorker::NoteDeviceFailure(const ModelReplica& replica,
                                               const absl::Status& status,
                                               const std::string& what) {
  if (ServingMetrics* metrics = pool_->metrics(); metrics != nullptr) {
    const std::optional<NRT_STATUS> nrt = NrtStatusOf(status);
    metrics->CountNrtError(
        core_, nrt.has_value() ? std::string(NrtStatusName(*nrt)) : std::string("UNKNOWN"));
  }
  const ExecutionFailure failure = ClassifyExecutionFailure(status);
  if (failure == ExecutionFailure::kHardware) {
    // At once, not when the unit is read: no further unit is taken for the replica.
    spdlog::error("{}; taking {} out of rotation", what, NameCoreRange(replica.cores));
    pool_->MarkCoresUnhealthy(replica.cores, what);
  }
  return failure;
}

void CoreWorker::AfterExecution(Flight* flight) {
  // Decided before the stages lock is taken (bindings and scheduler locks come first).
  const bool takeable = WorkWaiting(/*takeable=*/true);
  bool hand_off;
  bool wake_copy = false;
  {
    MutexLock lock(&stages_mutex_);
    executing_ = false;
    // The core has something to do next (a written unit, one being written, or work a free set
    // can take): the copy thread reads this one meanwhile, when reading is worth the hand-off.
    hand_off = (takeable || !written_.empty() || taking_) && ReadsWorthOverlapping();
    if (hand_off) {
      executed_.push_back(flight);
      wake_copy = copy_idle_;
    }
  }
  if (wake_copy) copy_bell_.NotifyOne();
  if (!hand_off) Read(*flight, execution_scratch_, executing_since_ns_);
}

void CoreWorker::Read(Flight& flight, Scratch& scratch, std::atomic<int64_t>& since_ns) {
  const ExecutionUnit& unit = flight.unit;
  if (!flight.executed.ok()) {
    const bool batched = unit.parts.size() > 1;
    for (const JobRows& part : unit.parts) {
      if (RetryWanted(flight.binding, part, flight.failure, batched)) {
        scratch.retries.push_back(part.job);
      } else {
        Answer(flight, part, flight.executed, flight.device, scratch);
      }
    }
    if (!scratch.retries.empty()) {
      // Given back only after the flight is released: a job given back may run on another
      // replica and complete at once, and when it held the model's last lease the model, its
      // scheduler and this replica go with it. Until each Requeue returns, the job given back
      // holds a lease, so the calls below still find them.
      Scheduler* scheduler = flight.binding.model->scheduler();
      const ModelReplica* failed_on = flight.binding.replica;
      absl::Status failed = flight.executed;
      const absl::Time taken = flight.taken;
      const absl::Duration device = flight.device;
      Release(flight);
      for (InferenceJob* job : scratch.retries) {
        if (scheduler->Requeue(job, *failed_on)) continue;
        // The scheduler closed meanwhile: answered as if not retried.
        scratch.completions.push_back(
            Completion{job, failed, ExecutionTiming{taken - job->enqueued_at, device}});
      }
      scratch.retries.clear();
      failed = absl::OkStatus();  // before the answers are handed on (see Release)
      FlushCompletions(scratch, device);
      return;
    }
  } else {
    const absl::Time started = absl::Now();
    since_ns.store(absl::ToUnixNanos(started), std::memory_order_release);
    absl::Status read = ReadOutputs(flight);
    since_ns.store(0, std::memory_order_release);
    const absl::Duration took = absl::Now() - started;
    flight.device += took;
    flight.read = took;
    reads_.Observe(took);
    if (!read.ok()) {
      NoteDeviceFailure(*flight.binding.replica, read, std::string(read.message()));
      for (const JobRows& part : unit.parts) {
        Answer(flight, part, read, absl::ZeroDuration(), scratch);
      }
    } else {
      flight.binding.model->RecordExecution(unit.rows(), flight.device, flight.wrote, flight.read);
      for (const JobRows& part : unit.parts) {
        Answer(flight, part, absl::OkStatus(), flight.device, scratch);
      }
    }
  }
  const absl::Duration device = flight.device;
  Release(flight);  // the flight may be reused from here on
  FlushCompletions(scratch, device);
}

void CoreWorker::Release(Flight& flight) {
  // Dropped before the answers are handed on: the jobs' copies of an error share its
  // representation, whose count Debian's uninstrumented Abseil changes out of ThreadSanitizer's
  // sight, so the flight's reference must go before (not after) the post that orders them.
  flight.executed = absl::OkStatus();
  flight.binding.replica->free_tensor_sets.fetch_or(uint32_t{1} << flight.unit.tensor_set,
                                                    std::memory_order_acq_rel);
  free_tensor_sets_.fetch_add(1, std::memory_order_relaxed);
  flight.unit.Clear();
  bool wake_execution;
  {
    MutexLock lock(&stages_mutex_);
    spare_.push_back(&flight);
    // A set came free: the copy thread (the caller, or the one the core hands to) and a busy
    // execution thread look again by themselves; only an idle core needs waking.
    ++rings_;
    wake_execution = execution_idle_;
  }
  if (wake_execution) execution_bell_.NotifyOne();
}

bool CoreWorker::WritesWorthOverlapping() const {
  return writes_.AllAtLeast(pool_->hand_off_threshold_ns());
}

bool CoreWorker::ReadsWorthOverlapping() const {
  return reads_.AllAtLeast(pool_->hand_off_threshold_ns());
}

void CoreWorker::CopySamples::Observe(absl::Duration took) {
  const size_t slot = next.fetch_add(1, std::memory_order_relaxed) % kCopySamples;
  ns[slot].store(absl::ToInt64Nanoseconds(took), std::memory_order_relaxed);
}

bool CoreWorker::CopySamples::AllAtLeast(int64_t threshold_ns) const {
  for (const std::atomic<int64_t>& sample : ns) {
    if (sample.load(std::memory_order_relaxed) < threshold_ns) return false;
  }
  return true;
}

bool CoreWorker::WorkWaiting(bool takeable) {
  // The schedulers hold every job not yet taken (a job submitted since this worker looked is
  // one of them), so their depths alone tell whether work waits.
  MutexLock lock(&bindings_mutex_);
  for (const Binding& binding : bindings_) {
    if (!binding.replica->healthy.load(std::memory_order_acquire)) continue;
    if (takeable && binding.replica->free_tensor_sets.load(std::memory_order_acquire) == 0) {
      continue;
    }
    if (binding.model->scheduler()->depth() > 0) return true;
  }
  return false;
}

void CoreWorker::FlushCompletions(Scratch& scratch, absl::Duration device) {
  if (scratch.completions.empty()) return;
  // Decided before any job completes: completing may release the last lease on a model. A unit
  // this short is answered here whatever waits (see the header).
  if (absl::ToInt64Nanoseconds(device) >= pool_->hand_off_threshold_ns() &&
      WorkWaiting(/*takeable=*/false)) {
    pool_->responder().Post(scratch.completions);
    return;
  }
  for (Completion& completion : scratch.completions) completion.Run();
  scratch.completions.clear();
}

absl::Status CoreWorker::WriteInputs(const Flight& flight, Scratch& scratch) {
  const LoadedModel& model = *flight.binding.model;
  const ModelReplica& replica = *flight.binding.replica;
  ReplicaVariant& variant = flight.binding.replica->variants[flight.unit.variant];
  ReplicaTensors& tensors = variant.tensor_sets[flight.unit.tensor_set];
  std::vector<uint8_t>& zeros = scratch.zeros;
  // A variant without a batch dimension takes one request's whole tensors: one row.
  const size_t batch = variant.batch_size == 0 ? 1 : variant.batch_size;
  const std::vector<TensorSpec>& inputs = model.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    NrtTensor& tensor = tensors.inputs[i];
    const size_t tensor_bytes = tensors.input_bytes[i];
    const size_t row_bytes = tensor_bytes / batch;
    size_t offset = 0;
    absl::Status written;
    for (const JobRows& part : flight.unit.parts) {
      const absl::Span<const uint8_t> rows =
          part.job->Input(i).subspan(part.first_row * row_bytes, part.rows * row_bytes);
      written = tensor.Write(rows, offset);
      if (!written.ok()) break;
      offset += rows.size();
    }
    if (written.ok() && offset < tensor_bytes) {
      // Padding: the rows no job fills hold zeros, never an earlier request's data.
      if (zeros.size() < tensor_bytes - offset) zeros.resize(tensor_bytes - offset);
      written = tensor.Write(absl::MakeConstSpan(zeros.data(), tensor_bytes - offset), offset);
    }
    if (!written.ok()) {
      return WithContext(written,
                         absl::StrCat("model '", model.identity().name, "' input '", inputs[i].name,
                                      "' on ", NameCoreRange(replica.cores)));
    }
  }
  return absl::OkStatus();
}

absl::Status CoreWorker::ReadOutputs(const Flight& flight) {
  const LoadedModel& model = *flight.binding.model;
  const ModelReplica& replica = *flight.binding.replica;
  const ReplicaVariant& variant = replica.variants[flight.unit.variant];
  const ReplicaTensors& tensors = variant.tensor_sets[flight.unit.tensor_set];
  const size_t batch = variant.batch_size == 0 ? 1 : variant.batch_size;
  const std::vector<TensorSpec>& outputs = model.outputs();
  for (size_t j = 0; j < outputs.size(); ++j) {
    const size_t row_bytes = tensors.output_bytes[j] / batch;
    size_t offset = 0;
    for (const JobRows& part : flight.unit.parts) {
      const size_t bytes = part.rows * row_bytes;
      const absl::Span<uint8_t> destination = OutputOf(part, j);
      if (!destination.empty()) {
        absl::Status read =
            tensors.outputs[j].Read(destination.subspan(part.first_row * row_bytes, bytes), offset);
        if (!read.ok()) {
          return WithContext(
              read, absl::StrCat("model '", model.identity().name, "' output '", outputs[j].name,
                                 "' on ", NameCoreRange(replica.cores)));
        }
      }
      offset += bytes;
    }
  }
  return absl::OkStatus();
}

bool CoreWorker::RetryWanted(const Binding& binding, const JobRows& part, ExecutionFailure kind,
                             bool batched) {
  const InferenceJob* job = part.job;
  // Once only; and a range of a split job is not retried: its request fails with the first
  // error any of its ranges met.
  if (job->row_ranges != nullptr || job->attempts > 1) return false;
  // One bad request must not fail the others it ran with: each runs once more, alone.
  if (batched && kind != ExecutionFailure::kHardware) return true;
  if (kind == ExecutionFailure::kFinal) return false;
  // Another healthy replica must exist: this one may have just left rotation.
  const size_t healthy = binding.model->scheduler()->healthy_replicas();
  const size_t self = binding.replica->healthy.load(std::memory_order_acquire) ? 1 : 0;
  return healthy > self;
}

}  // namespace neuronserve
