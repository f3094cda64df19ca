// InferenceJob: one request on its way to a NeuronCore, as core/ sees it. Who answers for it
// while it is queued or executing: scheduler.h.
//
// The server implements it over its gRPC call (so core/ never sees gRPC): the job exposes the
// request's input bytes and the response's output buffers, so a core worker copies straight
// from the request into the device tensor and straight from the device tensor into the
// response, and it is told the outcome exactly once through Complete().
#ifndef NEURON_SERVE_CORE_SERVING_REQUEST_INFERENCE_JOB_H_
#define NEURON_SERVE_CORE_SERVING_REQUEST_INFERENCE_JOB_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "core/serving/request/row_ranges.h"

namespace neuronserve {

struct ModelReplica;  // core/serving/execution/model_replica.h (only compared by address)

struct ExecutionTiming {
  absl::Duration queued = absl::ZeroDuration();  // from enqueue until a worker took it
  absl::Duration device = absl::ZeroDuration();  // write, execute and read on the core
  // The parts of `device` spent writing the inputs and reading the outputs (the execution is
  // the rest): Triton's compute_input and compute_output. Zero when `device` is.
  absl::Duration input = absl::ZeroDuration();
  absl::Duration output = absl::ZeroDuration();
  // The execution the request ran in (0 and 0 when it reached no core): the requests' rows it
  // carried (padding not counted), and the batch size of the variant (0 for a model without a
  // batch dimension).
  uint32_t batch_rows = 0;
  uint32_t batch_size = 0;
};

class InferenceJob {
 public:
  virtual ~InferenceJob() = default;

  // The bytes of the model's input `index` (model input order), already checked against the
  // tensor's byte size: `rows` rows of it. Valid until Complete().
  virtual absl::Span<const uint8_t> Input(size_t index) const = 0;
  // Where the model's output `index` goes: exactly its byte size for `rows` rows, or an empty
  // span when the caller did not ask for that output. Called on a worker thread, at most once
  // per output and execution of the job, never by two threads at once (a job split into row
  // ranges is asked once, through its RowRanges: OutputOf, job_rows.h).
  virtual absl::Span<uint8_t> Output(size_t index) = 0;
  // True once the caller has given up; checked before the job touches the device.
  virtual bool Cancelled() const = 0;
  // The outcome, exactly once, on a worker thread (or on the thread that closed the queue).
  // Core code never touches the job after calling it: the owner may destroy it inside. Core
  // does not count the outcome: the owner records it (RecordRequestOutcome,
  // core/serving/model/request_outcome.h) before it lets its lease on the model go.
  virtual void Complete(absl::Status status, const ExecutionTiming& timing) = 0;

  // A job still queued at its deadline is answered DEADLINE_EXCEEDED and never runs.
  absl::Time deadline = absl::InfiniteFuture();
  // The request's rows along the model's batch dimension (the leading one of every input and
  // output); 1 for a model without one, whose whole tensors are one row.
  uint32_t rows = 1;

  // The request's input bytes, set by the owner before Submit: what the request holds while it
  // waits, counted against the daemon's QueuedBytesBudget.
  uint64_t input_bytes = 0;

  // Set by the scheduler and the workers.
  absl::Time enqueued_at;
  // Set by a scheduler that splits the request's rows over several executions; null when the
  // request runs in one (answer its rows with AnswerRows, job_rows.h, either way).
  std::unique_ptr<RowRanges> row_ranges;
  // The replica whose execution failed, when the job waits for a retry elsewhere.
  const ModelReplica* failed_replica = nullptr;
  // Executions of the whole job begun (a job split into row ranges keeps 0: its ranges may run
  // on several cores at once, and are never retried).
  int attempts = 0;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_REQUEST_INFERENCE_JOB_H_
