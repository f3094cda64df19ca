// Responder: the threads that complete jobs (InferenceJob::Complete) for the core workers, so a
// core does not spend its time on what follows an execution while other work waits for it.
// Completing a server call fills, serializes and sends its answer, and gRPC's Finish writes to
// the socket on the thread that calls it; a REST call builds its JSON. A core worker completes
// inline only when nothing waits for its core (no extra hop at 1 in flight) and otherwise hands
// its completions here, all of an execution at once.
//
// A responder thread takes every pending completion per wake-up, and Post wakes a thread only
// when none is awake: under load the threads drain batches without a hand-off per completion.
// Completions posted together run in order on one thread; separate posts may run in parallel
// on different threads.
//
// Thread safety: Post from any thread. Ownership: a posted job is the responder's to complete
// until its Complete returns; the destructor completes everything still pending, then joins.
#ifndef NEURON_SERVE_CORE_SERVING_EXECUTION_RESPONDER_H_
#define NEURON_SERVE_CORE_SERVING_EXECUTION_RESPONDER_H_

#include <cstddef>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "base/mutex.h"
#include "core/serving/request/inference_job.h"

namespace neuronserve {

// A job's outcome, to be given to it with Complete.
struct Completion {
  InferenceJob* job = nullptr;
  absl::Status status;
  ExecutionTiming timing;

  void Run() { job->Complete(std::move(status), timing); }
};

class Responder {
 public:
  // Starts `threads` threads (at least 1), named "responder-N".
  explicit Responder(size_t threads);
  ~Responder();
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  // Moves every completion of `completions` to the responder and leaves it empty (its capacity
  // is kept for the caller's next batch). Takes the responder's lock once.
  void Post(std::vector<Completion>& completions);

  size_t threads() const { return threads_.size(); }

 private:
  void Run(size_t index);

  Mutex mutex_;
  CondVar wake_;
  std::vector<Completion> pending_ ABSL_GUARDED_BY(mutex_);
  size_t sleeping_ ABSL_GUARDED_BY(mutex_) = 0;  // threads waiting for work
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::vector<std::thread> threads_;  // last: started once everything above exists
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_SERVING_EXECUTION_RESPONDER_H_
