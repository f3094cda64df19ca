#include "core/serving/execution/core_worker.h"

#include <algorithm>
#include <utility>

#include "absl/numeric/bits.h"
#include "absl/strings/str_cat.h"
#include "base/thread_name.h"

namespace neuronserve {

CoreWorker::CoreWorker(uint32_t core, WorkerHost* host)
    : core_(core),
      host_(host),
      metrics_(host->metrics() != nullptr ? host->metrics()->ForCore(core)
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

void CoreWorker::Attach(ServedModel* model, ModelReplica* replica) {
  {
    MutexLock lock(&bindings_mutex_);
    fair_share_.Add(model, replica);
    free_tensor_sets_.fetch_add(
        absl::popcount(replica->free_tensor_sets.load(std::memory_order_acquire)),
        std::memory_order_relaxed);
  }
  Ring();  // jobs may be waiting already
}

void CoreWorker::Detach(const ServedModel* model) {
  MutexLock lock(&bindings_mutex_);
  fair_share_.Remove(model, [this](const Binding& binding) {
    // No unit of the model is in flight (the caller holds no lease), so all its sets are free.
    free_tensor_sets_.fetch_sub(
        absl::popcount(binding.replica->free_tensor_sets.load(std::memory_order_acquire)),
        std::memory_order_relaxed);
  });
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
  const absl::Time now = absl::Now();
  const Binding* chosen = fair_share_.Choose([&](const Binding& candidate) {
    ModelReplica& replica = *candidate.replica;
    if (!replica.healthy.load(std::memory_order_acquire)) return false;
    // Every set in flight: the replica is busy, not idle.
    const uint32_t free_sets = replica.free_tensor_sets.load(std::memory_order_acquire);
    if (free_sets == 0) return false;
    if (!candidate.model->scheduler()->Next(replica, now, flight.unit, look_again_at)) {
      return false;
    }
    // Sets are claimed only here, under bindings_mutex_: the lowest free one is still free.
    const uint32_t set = static_cast<uint32_t>(absl::countr_zero(free_sets));
    replica.free_tensor_sets.fetch_and(~(uint32_t{1} << set), std::memory_order_acq_rel);
    free_tensor_sets_.fetch_sub(1, std::memory_order_relaxed);
    flight.unit.tensor_set = set;
    return true;
  });
  if (chosen == nullptr) return false;
  flight.binding = *chosen;
  flight.generation = fair_share_.generation();
  // Read again: a job submitted after `now` was read may be in the unit, and its time in the
  // queue must not come out negative.
  flight.taken = absl::Now();
  flight.device = absl::ZeroDuration();
  flight.wrote = absl::ZeroDuration();
  flight.read = absl::ZeroDuration();
  flight.executed = absl::OkStatus();
  return true;
}

void CoreWorker::Charge(const Flight& flight, absl::Duration ran) {
  MutexLock lock(&bindings_mutex_);
  fair_share_.Charge(flight.binding.replica, flight.generation, ran);
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
  return writes_.AllAtLeast(host_->hand_off_threshold_ns());
}

bool CoreWorker::ReadsWorthOverlapping() const {
  return reads_.AllAtLeast(host_->hand_off_threshold_ns());
}

bool CoreWorker::WorkWaiting(bool takeable) {
  // The schedulers hold every job not yet taken (a job submitted since this worker looked is
  // one of them), so their depths alone tell whether work waits.
  MutexLock lock(&bindings_mutex_);
  for (const Binding& binding : fair_share_.bindings()) {
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
  if (absl::ToInt64Nanoseconds(device) >= host_->hand_off_threshold_ns() &&
      WorkWaiting(/*takeable=*/false)) {
    host_->responder().Post(scratch.completions);
    return;
  }
  for (Completion& completion : scratch.completions) completion.Run();
  scratch.completions.clear();
}

}  // namespace neuronserve
