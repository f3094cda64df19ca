// DrainGate: which inference calls are open, and the switch that stops new ones when the daemon
// drains (SIGTERM).
//
// Every Infer call and every InferStream enters the gate when it starts and leaves when gRPC is
// done with it. Once draining begins, entering fails (the call answers UNAVAILABLE), each open
// stream is told through the callback it registered (it stops reading, answers what it has in
// flight and finishes), and the daemon waits until the gate is empty or its drain time is up.
// The gate knows nothing about gRPC, so its concurrency is tested here under ThreadSanitizer.
#ifndef NEURON_SERVE_SERVER_ADMISSION_DRAIN_GATE_H_
#define NEURON_SERVE_SERVER_ADMISSION_DRAIN_GATE_H_

#include <cstdint>
#include <functional>
#include <map>

#include "absl/time/time.h"
#include "base/mutex.h"

namespace neuronserve {

class DrainGate {
 public:
  using StreamId = uint64_t;

  // A call starts: false once draining has begun (the caller refuses it; it did not enter).
  bool TryEnter();
  // A call that entered is done.
  void Leave();

  // A stream that entered asks to hear when draining begins. `on_drain` runs once, on the
  // thread that calls BeginDrain, with no gate lock held by anyone else's Register/Unregister
  // (they wait). Returns 0, and does not keep the callback, when draining has already begun:
  // the stream drains at once itself.
  StreamId RegisterStream(std::function<void()> on_drain);
  // Forgets the stream's callback; waits while BeginDrain is running it, so the stream may be
  // destroyed as soon as this returns. 0 is ignored.
  void UnregisterStream(StreamId id);

  // Starts draining (idempotent): entering fails from now on and every registered stream's
  // callback runs.
  void BeginDrain();
  bool draining() const;
  // Calls entered and not yet left.
  int64_t open_calls() const;

  // Waits until no call is open (true), or until `deadline` passes or `give_up()` (polled every
  // `poll`) says to stop waiting (false).
  bool WaitUntilEmpty(absl::Time deadline, const std::function<bool()>& give_up,
                      absl::Duration poll = absl::Milliseconds(50));

 private:
  mutable Mutex mutex_;
  CondVar empty_;
  bool draining_ ABSL_GUARDED_BY(mutex_) = false;
  int64_t open_ ABSL_GUARDED_BY(mutex_) = 0;

  // Held while stream callbacks run, and by (un)registration, so a stream cannot unregister and
  // be destroyed in the middle of its own callback.
  Mutex streams_mutex_ ABSL_ACQUIRED_BEFORE(mutex_);
  StreamId next_stream_ ABSL_GUARDED_BY(streams_mutex_) = 1;
  std::map<StreamId, std::function<void()>> streams_ ABSL_GUARDED_BY(streams_mutex_);
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_ADMISSION_DRAIN_GATE_H_
