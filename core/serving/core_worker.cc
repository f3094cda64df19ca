#include "core/serving/core_worker.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
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
    bindings_.push_back(Binding{model, replica});
  }
  Ring();  // jobs may be waiting already
}

void CoreWorker::Detach(const LoadedModel* model) {
  MutexLock lock(&bindings_mutex_);
  bindings_.erase(std::remove_if(bindings_.begin(), bindings_.end(),
                                 [model](const Binding& b) { return b.model == model; }),
                  bindings_.end());
  next_binding_ = 0;
}

bool CoreWorker::TakeNext(Binding* binding, InferenceJob** job) {
  MutexLock lock(&bindings_mutex_);
  const size_t count = bindings_.size();
  for (size_t step = 0; step < count; ++step) {
    const size_t index = (next_binding_ + step) % count;
    const Binding& candidate = bindings_[index];
    if (!candidate.replica->healthy.load(std::memory_order_acquire)) continue;
    InferenceJob* taken = candidate.model->queue()->TryPop(candidate.replica);
    if (taken == nullptr) continue;
    next_binding_ = index + 1;  // the next scan starts after the model just served
    *binding = candidate;
    *job = taken;
    return true;
  }
  return false;
}

void CoreWorker::Run() {
  for (;;) {
    uint64_t seen;
    {
      MutexLock lock(&bell_mutex_);
      if (stopping_) return;
      seen = rings_;
    }
    Binding binding{};
    InferenceJob* job = nullptr;
    if (TakeNext(&binding, &job)) {
      Execute(binding, job);
      continue;
    }
    // Nothing to take: sleep until a queue rings after the scan above began (a ring between the
    // snapshot and the scan leaves rings_ != seen, so it is never lost).
    MutexLock lock(&bell_mutex_);
    bell_.Wait(&bell_mutex_,
               [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(bell_mutex_) { return stopping_ || rings_ != seen; });
  }
}

void CoreWorker::Execute(const Binding& binding, InferenceJob* job) {
  LoadedModel& model = *binding.model;
  ModelReplica& replica = *binding.replica;
  const std::string& name = model.identity().name;
  const absl::Time started = absl::Now();
  ExecutionTiming timing;
  timing.queued = started - job->enqueued_at;

  // Everything the job needs from the model is done before Complete(): after it the job's
  // owner may release the last lease, and the model may be unloaded. The owner counts the
  // outcome (RecordRequestOutcome, core/serving/request_outcome.h), not the worker.
  auto finish = [&](absl::Status status) { job->Complete(std::move(status), timing); };

  if (job->Cancelled()) {
    finish(absl::CancelledError(absl::StrCat("model '", name,
                                             "': the request was cancelled while queued")));
    return;
  }
  if (started >= job->deadline) {
    finish(absl::DeadlineExceededError(
        absl::StrCat("model '", name, "': the deadline passed after ",
                     absl::FormatDuration(absl::Trunc(timing.queued, absl::Microseconds(1))),
                     " in the queue; the request did not run")));
    return;
  }
  ++job->attempts;
  executing_since_ns_.store(absl::ToUnixNanos(started), std::memory_order_release);
  // Cleared when Execute returns, whichever way.
  struct ExecutingMark {
    std::atomic<int64_t>& since;
    ~ExecutingMark() { since.store(0, std::memory_order_release); }
  } executing_mark{executing_since_ns_};
  const std::vector<TensorSpec>& inputs = model.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (absl::Status written = replica.tensors.inputs[i].Write(job->Input(i)); !written.ok()) {
      finish(absl::Status(written.code(), absl::StrCat("model '", name, "' input '",
                                                       inputs[i].name, "' on ",
                                                       NameCoreRange(replica.cores), ": ",
                                                       written.message())));
      return;
    }
  }
  absl::Status executed = replica.model.Execute(replica.tensors.input_set,
                                                replica.tensors.output_set);
  replica.executions.fetch_add(1, std::memory_order_relaxed);
  if (metrics_.executions != nullptr) {
    metrics_.executions->Increment();
    metrics_.busy_seconds->Increment(absl::ToDoubleSeconds(absl::Now() - started));
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
    if (kind != ExecutionFailure::kFinal && TryRetry(binding, job)) return;
    timing.device = absl::Now() - started;
    finish(WithContext(executed, where));
    return;
  }
  const std::vector<TensorSpec>& outputs = model.outputs();
  for (size_t j = 0; j < outputs.size(); ++j) {
    absl::Span<uint8_t> destination = job->Output(j);
    if (destination.empty()) continue;
    if (absl::Status read = replica.tensors.outputs[j].Read(destination); !read.ok()) {
      finish(absl::Status(read.code(), absl::StrCat("model '", name, "' output '",
                                                    outputs[j].name, "' on ",
                                                    NameCoreRange(replica.cores), ": ",
                                                    read.message())));
      return;
    }
  }
  timing.device = absl::Now() - started;
  finish(absl::OkStatus());
}

bool CoreWorker::TryRetry(const Binding& binding, InferenceJob* job) {
  if (job->attempts > 1) return false;  // once only
  RequestQueue& queue = *binding.model->queue();
  // Another healthy replica must exist: this one may have just left rotation.
  const size_t healthy = queue.healthy_replicas();
  const size_t self = binding.replica->healthy.load(std::memory_order_acquire) ? 1 : 0;
  if (healthy <= self) return false;
  job->failed_replica = binding.replica;
  return queue.PushRetry(job);
}

}  // namespace neuronserve
