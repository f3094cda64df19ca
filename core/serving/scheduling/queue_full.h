// QueueFullError: the one answer to a request that finds its model's queue full, whichever
// scheduler holds the queue (FifoScheduler, DynamicBatcher).
//
// UNAVAILABLE, as Triton answers it ("Exceeds maximum queue size", UNAVAILABLE / HTTP 503): the
// request was fine and the same request may succeed a moment later, which is what UNAVAILABLE
// tells clients (gRPC retry policies retry it; the REST front end adds Retry-After).
// RESOURCE_EXHAUSTED stays for what a retry cannot fix: a message or model over a limit.
//
// Plain function: thread-safe.
#ifndef NEURON_SERVE_CORE_SERVING_SCHEDULING_QUEUE_FULL_H_
#define NEURON_SERVE_CORE_SERVING_SCHEDULING_QUEUE_FULL_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace neuronserve {

// "model 'm': request queue is full (64 waiting, its max_queue); retry later or add replicas".
absl::Status QueueFullError(absl::string_view model, size_t capacity);

// The same answer when the daemon's queues together hold their most bytes
// (QueuedBytesBudget): "model 'm': the request's 1048576 input bytes do not fit the daemon's
// queues (1073741000 of 1073741824 bytes held, --max-queued-bytes); retry later".
absl::Status QueuedBytesFullError(absl::string_view model, uint64_t request_bytes, uint64_t held,
                                  uint64_t limit);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_SCHEDULING_QUEUE_FULL_H_
