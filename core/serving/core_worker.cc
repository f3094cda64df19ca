#include "core/serving/core_worker.h"

#include <algorithm>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "base/thread_name.h"
#include "core/nrt/nrt_status.h"
#include "core/serving/execution_failure.h"
#include "core/serving/loaded_model.h"
#include "core/serving/worker_pool.h"
#include "spdlog/spdlog.h"

namespace neuronserve {
namespace {

// `error` with `context` before its message, keeping its payloads (the NRT status among them).
absl::Status WithContext(const absl::Status& error, const std::string& context) {
  absl::Status result(error.code(), absl::StrCat(context, ": ", error.message()));
  error.ForEachPayload([&result](absl::string_view url, const absl::Cord& payload) {
    result.SetPayload(url, payload);
  });
  return result;
}

}  // namespace

CoreWorker::CoreWorker(uint32_t core, WorkerPool* pool)
    : core_(core),
      pool_(pool),
      metrics_(pool->metrics() != nullptr ? pool->metrics()->ForCore(core)
                                          : CoreExecutionMetrics{}),
      thread_([this] { Run(); }) {}

CoreWorker::~CoreWorker() {
  {
    MutexLock lock(&bell_mutex_);
    stopping_ = true;
  }
  bell_.NotifyAll();
  thread_.join();
}

void CoreWorker::Ring() {
  {
    MutexLock lock(&bell_mutex_);
    ++rings_;
  }
  bell_.NotifyAll();
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
  }
  Ring();  // jobs may be waiting already
}

void CoreWorker::Detach(const LoadedModel* model) {
  MutexLock lock(&bindings_mutex_);
  bindings_.erase(std::remove_if(bindings_.begin(), bindings_.end(),
                                 [model](const Binding& b) { return b.model == model; }),
                  bindings_.end());
  next_binding_ = 0;
  ++bindings_generation_;
}

bool CoreWorker::TakeNext(Binding* binding, absl::Time* look_again_at) {
  MutexLock lock(&bindings_mutex_);
  ApplyChargeLocked();
  const size_t count = bindings_.size();
  const absl::Time now = absl::Now();
  // The bindings in turn from next_binding_, then by the device time they had (a stable sort
  // keeps the turn among equals). A core serves a handful of models: no allocation below 8.
  absl::InlinedVector<size_t, 8> order;
  for (size_t step = 0; step < count; ++step) order.push_back((next_binding_ + step) % count);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) ABSL_EXCLUSIVE_LOCKS_REQUIRED(bindings_mutex_) {
                     return bindings_[a].used < bindings_[b].used;
                   });
  for (size_t asked = 0; asked < order.size(); ++asked) {
    Binding& candidate = bindings_[order[asked]];
    if (!candidate.replica->healthy.load(std::memory_order_acquire)) continue;
    if (!candidate.model->scheduler()->Next(*candidate.replica, now, unit_, look_again_at)) {
      continue;
    }
    // Those asked before had nothing: they bank no credit for the time they were idle.
    for (size_t idle = 0; idle < asked; ++idle) {
      Binding& passed = bindings_[order[idle]];
      passed.used = std::max(passed.used, candidate.used);
    }
    next_binding_ = order[asked] + 1;  // among equals, the turn passes on
    *binding = candidate;
    uncharged_generation_ = bindings_generation_;
    return true;
  }
  return false;
}

void CoreWorker::ApplyChargeLocked() {
  if (uncharged_replica_ == nullptr) return;
  if (uncharged_generation_ == bindings_generation_) {
    for (Binding& bound : bindings_) {
      if (bound.replica == uncharged_replica_) bound.used += uncharged_;
    }
  }
  uncharged_replica_ = nullptr;
}

void CoreWorker::Run() {
  NameThisThread(absl::StrCat("core-", core_));
  for (;;) {
    uint64_t seen;
    {
      MutexLock lock(&bell_mutex_);
      if (stopping_) return;
      seen = rings_;
    }
    Binding binding{};
    absl::Time look_again_at = absl::InfiniteFuture();
    if (TakeNext(&binding, &look_again_at)) {
      Execute(binding);
      continue;
    }
    // Nothing to take: sleep until a scheduler rings after the scan above began (a ring between
    // the snapshot and the scan leaves rings_ != seen, so it is never lost), or until a
    // scheduler said it will have something.
    MutexLock lock(&bell_mutex_);
    auto woken = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(bell_mutex_) {
      return stopping_ || rings_ != seen;
    };
    if (look_again_at == absl::InfiniteFuture()) {
      bell_.Wait(&bell_mutex_, woken);
    } else {
      bell_.WaitWithTimeout(&bell_mutex_, look_again_at - absl::Now(), woken);
    }
  }
}

void CoreWorker::Execute(const Binding& binding) {
  ExecuteUnit(binding);
  FlushCompletions();
}

bool CoreWorker::WorkWaiting() {
  // The schedulers hold every job not yet taken (a job submitted since this worker looked is
  // one of them), so their depths alone tell whether work waits.
  MutexLock lock(&bindings_mutex_);
  for (const Binding& binding : bindings_) {
    if (binding.replica->healthy.load(std::memory_order_acquire) &&
        binding.model->scheduler()->depth() > 0) {
      return true;
    }
  }
  return false;
}

void CoreWorker::FlushCompletions() {
  if (completions_.empty()) return;
  // Decided before any job completes: completing may release the last lease on a model.
  if (WorkWaiting()) {
    pool_->responder().Post(completions_);
    return;
  }
  for (Completion& completion : completions_) completion.Run();
  completions_.clear();
}

void CoreWorker::ExecuteUnit(const Binding& binding) {
  LoadedModel& model = *binding.model;
  ModelReplica& replica = *binding.replica;
  const std::string& name = model.identity().name;
  const absl::Time started = absl::Now();

  // Everything a job needs from the model is done before its answer: after it the job's
  // owner may release the last lease, and the model may be unloaded. The answers are gathered
  // in completions_ and given when this returns (Execute: FlushCompletions). The owner counts the
  // outcome (RecordRequestOutcome, core/serving/request_outcome.h), not the worker.
  // A part that reached the device reports the batch it ran in (unit_ by then holds only
  // those parts).
  auto answer = [&](const JobRows& part, absl::Status status, absl::Duration device) {
    ExecutionTiming timing{started - part.job->enqueued_at, device};
    if (device > absl::ZeroDuration()) {
      timing.batch_rows = unit_.rows();
      timing.batch_size = replica.variants[unit_.variant].batch_size;
    }
    absl::Status outcome;
    if (EndRows(part, std::move(status), &outcome)) {
      completions_.push_back(Completion{part.job, std::move(outcome), timing});
    }
  };

  // Jobs whose caller gave up, or whose deadline passed, while queued never reach the device,
  // nor do the remaining rows of a split job one of whose ranges failed; the others keep their
  // order (their rows are packed in it).
  size_t kept = 0;
  for (const JobRows& part : unit_.parts) {
    InferenceJob* job = part.job;
    if (job->Cancelled()) {
      answer(part, absl::CancelledError(absl::StrCat(
                       "model '", name, "': the request was cancelled while queued")),
             absl::ZeroDuration());
    } else if (started >= job->deadline) {
      answer(part, absl::DeadlineExceededError(absl::StrCat(
                       "model '", name, "': the deadline passed after ",
                       absl::FormatDuration(
                           absl::Trunc(started - job->enqueued_at, absl::Microseconds(1))),
                       " in the queue; the request did not run")),
             absl::ZeroDuration());
    } else if (job->row_ranges != nullptr && job->row_ranges->failed()) {
      answer(part, job->row_ranges->first_error(), absl::ZeroDuration());
    } else {
      unit_.parts[kept++] = part;
    }
  }
  unit_.parts.resize(kept);
  if (unit_.parts.empty()) return;

  ReplicaVariant& variant = replica.variants[unit_.variant];
  // Counted for whole jobs only: the ranges of a split job may run on two cores at once, and are
  // never retried (TryRetry).
  for (const JobRows& part : unit_.parts) {
    if (part.job->row_ranges == nullptr) ++part.job->attempts;
  }
  if (variant.metrics != nullptr) {
    // What the batcher formed: counted whether or not the execution then succeeds.
    const uint32_t rows = unit_.rows();
    variant.metrics->executions->Increment();
    variant.metrics->rows->Observe(rows);
    if (variant.batch_size > rows)
      variant.metrics->padded_rows->Increment(variant.batch_size - rows);
    for (const JobRows& part : unit_.parts) {
      variant.metrics->queue_seconds->Observe(
          absl::ToDoubleSeconds(started - part.job->enqueued_at));
    }
  }
  executing_since_ns_.store(absl::ToUnixNanos(started), std::memory_order_release);
  // Cleared when Execute returns, whichever way.
  struct ExecutingMark {
    std::atomic<int64_t>& since;
    ~ExecutingMark() { since.store(0, std::memory_order_release); }
  } executing_mark{executing_since_ns_};

  // A copy that failed: no execution ran, so no device time is reported.
  auto fail_all = [&](const absl::Status& status) {
    for (const JobRows& part : unit_.parts) answer(part, status, absl::ZeroDuration());
  };
  if (absl::Status written = WriteInputs(model, variant, replica); !written.ok()) {
    fail_all(written);
    return;
  }
  absl::Status executed = variant.model.Execute(variant.tensors.input_set,
                                                variant.tensors.output_set);
  // One clock read for both the scheduler's cost feedback and the core's busy time.
  const absl::Duration ran = absl::Now() - started;
  model.scheduler()->Executed(unit_.variant, unit_.rows(), ran);
  uncharged_replica_ = &replica;  // charged when the worker next takes a unit
  uncharged_ = ran;
  replica.executions.fetch_add(1, std::memory_order_relaxed);
  if (metrics_.executions != nullptr) {
    metrics_.executions->Increment();
    metrics_.busy_seconds->Increment(absl::ToDoubleSeconds(ran));
  }
  if (!executed.ok()) {
    if (ServingMetrics* metrics = pool_->metrics(); metrics != nullptr) {
      const std::optional<NRT_STATUS> nrt = NrtStatusOf(executed);
      metrics->CountNrtError(core_, nrt.has_value() ? std::string(NrtStatusName(*nrt))
                                                    : std::string("UNKNOWN"));
    }
    const ExecutionFailure kind = ClassifyExecutionFailure(executed);
    const std::string where = absl::StrCat("model '", name, "' on ", NameCoreRange(replica.cores));
    const std::string what = absl::StrCat(where, ": ", executed.message());
    if (kind == ExecutionFailure::kHardware) {
      spdlog::error("{}; taking {} out of rotation", what, NameCoreRange(replica.cores));
      pool_->MarkCoresUnhealthy(replica.cores, what);
    }
    const absl::Status failed = WithContext(executed, where);
    const absl::Duration device = absl::Now() - started;
    const bool batched = unit_.parts.size() > 1;
    for (const JobRows& part : unit_.parts) {
      if (TryRetry(binding, part, kind, batched)) continue;
      answer(part, failed, device);
    }
    return;
  }
  if (absl::Status read = ReadOutputs(model, variant, replica); !read.ok()) {
    fail_all(read);
    return;
  }
  const absl::Duration device = absl::Now() - started;
  model.RecordExecution(unit_.rows(), device);
  for (const JobRows& part : unit_.parts) answer(part, absl::OkStatus(), device);
}

absl::Status CoreWorker::WriteInputs(const LoadedModel& model, ReplicaVariant& variant,
                                     const ModelReplica& replica) {
  // A variant without a batch dimension takes one request's whole tensors: one row.
  const size_t batch = variant.batch_size == 0 ? 1 : variant.batch_size;
  const std::vector<TensorSpec>& inputs = model.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    NrtTensor& tensor = variant.tensors.inputs[i];
    const size_t tensor_bytes = variant.tensors.input_bytes[i];
    const size_t row_bytes = tensor_bytes / batch;
    size_t offset = 0;
    absl::Status written;
    for (const JobRows& part : unit_.parts) {
      const absl::Span<const uint8_t> rows =
          part.job->Input(i).subspan(part.first_row * row_bytes, part.rows * row_bytes);
      written = tensor.Write(rows, offset);
      if (!written.ok()) break;
      offset += rows.size();
    }
    if (written.ok() && offset < tensor_bytes) {
      // Padding: the rows no job fills hold zeros, never an earlier request's data.
      if (zeros_.size() < tensor_bytes - offset) zeros_.resize(tensor_bytes - offset);
      written = tensor.Write(absl::MakeConstSpan(zeros_.data(), tensor_bytes - offset), offset);
    }
    if (!written.ok()) {
      return absl::Status(written.code(),
                          absl::StrCat("model '", model.identity().name, "' input '",
                                       inputs[i].name, "' on ", NameCoreRange(replica.cores),
                                       ": ", written.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status CoreWorker::ReadOutputs(const LoadedModel& model, const ReplicaVariant& variant,
                                     const ModelReplica& replica) {
  const size_t batch = variant.batch_size == 0 ? 1 : variant.batch_size;
  const std::vector<TensorSpec>& outputs = model.outputs();
  for (size_t j = 0; j < outputs.size(); ++j) {
    const size_t row_bytes = variant.tensors.output_bytes[j] / batch;
    size_t offset = 0;
    for (const JobRows& part : unit_.parts) {
      const size_t bytes = part.rows * row_bytes;
      const absl::Span<uint8_t> destination = OutputOf(part, j);
      if (!destination.empty()) {
        absl::Status read = variant.tensors.outputs[j].Read(
            destination.subspan(part.first_row * row_bytes, bytes), offset);
        if (!read.ok()) {
          return absl::Status(read.code(),
                              absl::StrCat("model '", model.identity().name, "' output '",
                                           outputs[j].name, "' on ",
                                           NameCoreRange(replica.cores), ": ", read.message()));
        }
      }
      offset += bytes;
    }
  }
  return absl::OkStatus();
}

bool CoreWorker::TryRetry(const Binding& binding, const JobRows& part, ExecutionFailure kind,
                          bool batched) {
  InferenceJob* job = part.job;
  // Once only; and a range of a split job is not retried: its request fails with the first
  // error any of its ranges met.
  if (job->row_ranges != nullptr || job->attempts > 1) return false;
  Scheduler& scheduler = *binding.model->scheduler();
  if (batched && kind != ExecutionFailure::kHardware) {
    // One bad request must not fail the others it ran with: each runs once more, alone.
    return scheduler.Requeue(job, *binding.replica);
  }
  if (kind == ExecutionFailure::kFinal) return false;
  // Another healthy replica must exist: this one may have just left rotation.
  const size_t healthy = scheduler.healthy_replicas();
  const size_t self = binding.replica->healthy.load(std::memory_order_acquire) ? 1 : 0;
  if (healthy <= self) return false;
  return scheduler.Requeue(job, *binding.replica);
}

}  // namespace neuronserve
