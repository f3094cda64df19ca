// RequestQueue: the bounded queue of one loaded model version, shared by the workers of every
// core that holds one of its replicas, so requests spread across replicas and a free replica
// never idles while another has a backlog.
//
// Two lanes: the main lane, bounded by the model's max queue (a full queue refuses at once
// rather than building an unbounded backlog), and a retry lane for jobs whose execution failed
// transiently on one replica and should run once more on another. Retries go first and do not
// count against the bound: they were admitted already.
//
// The queue also counts the model's healthy replicas. When the last one fails, waiting jobs
// can never run: the queue closes with UNAVAILABLE and hands them back to be answered.
#ifndef NEURON_SERVE_CORE_SERVING_REQUEST_QUEUE_H_
#define NEURON_SERVE_CORE_SERVING_REQUEST_QUEUE_H_

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/serving/doorbell.h"
#include "core/serving/inference_job.h"
#include "base/mutex.h"

namespace neuronserve {

class RequestQueue {
 public:
  // `doorbells` (the workers of the replicas' cores) must outlive the queue; `capacity` >= 1.
  RequestQueue(std::string model_name, size_t capacity, size_t healthy_replicas,
               std::vector<Doorbell*> doorbells);
  RequestQueue(const RequestQueue&) = delete;
  RequestQueue& operator=(const RequestQueue&) = delete;

  // Admits `job` and rings the doorbells. RESOURCE_EXHAUSTED when the main lane is full,
  // UNAVAILABLE once the queue is closed; on an error the job is not kept (the caller answers).
  absl::Status Push(InferenceJob* job);
  // Queues a job that failed on `job->failed_replica` to run next on any other replica.
  // False (job not kept) once closed.
  bool PushRetry(InferenceJob* job);
  // The next job for `replica`, or nullptr: a retry that did not fail on it first (or any retry
  // when it is the only healthy replica left), else the oldest job of the main lane.
  InferenceJob* TryPop(const void* replica);

  // Closes the queue for good with `code`/`reason` (what later pushes get) and returns the
  // jobs still waiting, oldest first; the caller completes them.
  std::vector<InferenceJob*> Close(absl::StatusCode code, std::string reason);
  // One replica left rotation. When it was the last healthy one the queue closes (as Close)
  // and the waiting jobs are returned; otherwise nothing is returned.
  std::vector<InferenceJob*> ReplicaLost(const std::string& why);

  size_t depth() const;
  size_t capacity() const { return capacity_; }
  size_t healthy_replicas() const;
  bool closed() const;

 private:
  std::vector<InferenceJob*> CloseLocked(absl::StatusCode code, std::string reason)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void RingAll() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const std::string model_name_;
  const size_t capacity_;
  // Fixed at construction. Rung with mutex_ held (lock order: queue, then doorbell).
  const std::vector<Doorbell*> doorbells_;

  mutable Mutex mutex_;
  std::deque<InferenceJob*> main_ ABSL_GUARDED_BY(mutex_);
  std::deque<InferenceJob*> retries_ ABSL_GUARDED_BY(mutex_);
  size_t healthy_replicas_ ABSL_GUARDED_BY(mutex_);
  bool closed_ ABSL_GUARDED_BY(mutex_) = false;
  // Kept as code and text, not as an absl::Status: a Status shared across threads counts its
  // references inside Debian's uninstrumented libabsl, where TSAN cannot follow them.
  absl::StatusCode closed_code_ ABSL_GUARDED_BY(mutex_) = absl::StatusCode::kOk;
  std::string closed_reason_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_REQUEST_QUEUE_H_
