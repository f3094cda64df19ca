// InferenceJob: one request on its way to a NeuronCore, as core/ sees it.
//
// The server implements it over its gRPC call (so core/ never sees gRPC): the job exposes the
// request's input bytes and the response's output buffers, so a core worker copies straight
// from the request into the device tensor and straight from the device tensor into the
// response, and it is told the outcome exactly once through Complete().
#ifndef NEURON_SERVE_CORE_SERVING_INFERENCE_JOB_H_
#define NEURON_SERVE_CORE_SERVING_INFERENCE_JOB_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "absl/types/span.h"

namespace neuronserve {

struct ExecutionTiming {
  absl::Duration queued = absl::ZeroDuration();  // from enqueue until a worker took it
  absl::Duration device = absl::ZeroDuration();  // write, execute and read on the core
};

class InferenceJob {
 public:
  virtual ~InferenceJob() = default;

  // The bytes of the model's input `index` (model input order), already checked against the
  // tensor's byte size. Valid until Complete().
  virtual absl::Span<const uint8_t> Input(size_t index) const = 0;
  // Where the model's output `index` goes: exactly its byte size, or an empty span when the
  // caller did not ask for that output. Called on the worker thread, at most once per output.
  virtual absl::Span<uint8_t> Output(size_t index) = 0;
  // True once the caller has given up; checked before the job touches the device.
  virtual bool Cancelled() const = 0;
  // The outcome, exactly once, on a worker thread (or on the thread that closed the queue).
  // Core code never touches the job after calling it: the owner may destroy it inside. Core
  // does not count the outcome: the owner records it (RecordRequestOutcome,
  // core/serving/request_outcome.h) before it lets its lease on the model go.
  virtual void Complete(absl::Status status, const ExecutionTiming& timing) = 0;

  // A job still queued at its deadline is answered DEADLINE_EXCEEDED and never runs.
  absl::Time deadline = absl::InfiniteFuture();

  // Set by the queue and the workers.
  absl::Time enqueued_at;
  // The replica whose execution failed, when the job waits for a retry elsewhere.
  const void* failed_replica = nullptr;
  int attempts = 0;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_INFERENCE_JOB_H_
