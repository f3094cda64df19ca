// The three stages a unit goes through on a core (see core_worker.h): Write (answer the jobs
// that gave up while queued, write the others' inputs), Execute, and Read (read the outputs,
// or retry or fail the jobs of a failed execution), with what they share: answering a part,
// noting a device failure, deciding a retry. core_worker.cc holds the threads that move units
// between these stages.
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/nrt/nrt_status.h"
#include "core/serving/execution/core_worker.h"
#include "core/serving/execution/execution_failure.h"
#include "core/serving/scheduling/job_withdrawal.h"
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
  ServedModel& model = *flight.binding.model;
  ModelReplica& replica = *flight.binding.replica;
  ExecutionUnit& unit = flight.unit;
  const std::string& name = model.name();

  // Everything a job needs from the model is done before its answer: after it the job's owner
  // may release the last lease, and the model may be unloaded. So answers are gathered in
  // `scratch` and given once the flight is released (FlushCompletions). The owner counts the
  // outcome (RecordRequestOutcome, core/serving/model/request_outcome.h), not the worker.
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
  absl::Status written = WriteUnitInputs(unit, model, replica, variant,
                                         variant.tensor_sets[unit.tensor_set], scratch.zeros);
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
  ServedModel& model = *flight.binding.model;
  ModelReplica& replica = *flight.binding.replica;
  ReplicaVariant& variant = replica.variants[flight.unit.variant];
  const std::string& name = model.name();
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
  if (ServingMetrics* metrics = host_->metrics(); metrics != nullptr) {
    const std::optional<NRT_STATUS> nrt = NrtStatusOf(status);
    metrics->CountNrtError(
        core_, nrt.has_value() ? std::string(NrtStatusName(*nrt)) : std::string("UNKNOWN"));
  }
  const ExecutionFailure failure = ClassifyExecutionFailure(status);
  if (failure == ExecutionFailure::kHardware) {
    // At once, not when the unit is read: no further unit is taken for the replica.
    spdlog::error("{}; taking {} out of rotation", what, NameCoreRange(replica.cores));
    host_->MarkCoresUnhealthy(replica.cores, what);
  }
  return failure;
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
    const ReplicaVariant& variant = flight.binding.replica->variants[unit.variant];
    absl::Status read = ReadUnitOutputs(unit, *flight.binding.model, *flight.binding.replica,
                                        variant, variant.tensor_sets[unit.tensor_set]);
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
