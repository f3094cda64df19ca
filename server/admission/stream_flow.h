// StreamFlow: the bookkeeping of one bidirectional inference stream, apart from gRPC.
//
// A stream reads requests one at a time but keeps many in flight; responses come back from the
// core workers in completion order and are written one at a time (gRPC allows one outstanding
// write per stream). The stream finishes once the client has stopped sending and every request
// it sent has been answered. Every event below is one call that updates the state under a lock
// and returns what the caller must do next, so the caller acts (StartRead, StartWrite, Finish)
// with no lock held and the decisions are tested here, under ThreadSanitizer, without gRPC.
#ifndef NEURON_SERVE_SERVER_ADMISSION_STREAM_FLOW_H_
#define NEURON_SERVE_SERVER_ADMISSION_STREAM_FLOW_H_

#include <cstddef>
#include <deque>
#include <vector>

#include "base/mutex.h"

namespace neuronserve {

template <typename Response>
class StreamFlow {
 public:
  struct Actions {
    bool read = false;             // start the next read
    Response* write = nullptr;     // start writing this response
    std::vector<Response*> drop;   // responses that can no longer be written: free them
    bool finish = false;           // finish the stream (happens once)
    bool drained = false;          // with `finish`: ended by Drain() before the client was done
    bool discard_read = false;     // the request just read came after the finish: free it
  };

  // At most `max_in_flight` requests are read and not yet answered; past it, reading pauses
  // until an answer frees a slot, so one stream cannot flood the daemon's memory.
  explicit StreamFlow(size_t max_in_flight)
      : max_in_flight_(max_in_flight == 0 ? 1 : max_in_flight) {}

  Actions Start() {
    MutexLock lock(&mutex_);
    Actions actions;
    reading_ = true;
    actions.read = true;
    return actions;
  }

  // A read completed. ok: a request arrived and is now in flight (the caller answers it with
  // Respond, possibly at once). Not ok: the client half-closed or the stream broke.
  Actions ReadDone(bool ok) {
    MutexLock lock(&mutex_);
    Actions actions;
    reading_ = false;
    if (!ok) {
      reads_done_ = true;
    } else if (finished_) {
      actions.discard_read = true;
    } else {
      ++in_flight_;
      MaybeRead(actions);
    }
    MaybeFinish(actions);
    return actions;
  }

  // A request's response is ready (any thread).
  Actions Respond(Response* response) {
    MutexLock lock(&mutex_);
    Actions actions;
    --in_flight_;
    if (broken_) {
      actions.drop.push_back(response);
    } else if (writing_) {
      pending_.push_back(response);
    } else {
      writing_ = true;
      actions.write = response;
    }
    MaybeRead(actions);
    MaybeFinish(actions);
    return actions;
  }

  // The outstanding write completed; `written` is the response it wrote (the caller frees it).
  // Not ok: the client is gone, so what is still pending is dropped.
  Actions WriteDone(bool ok) {
    MutexLock lock(&mutex_);
    Actions actions;
    writing_ = false;
    if (!ok) broken_ = true;
    if (broken_) {
      actions.drop.assign(pending_.begin(), pending_.end());
      pending_.clear();
    } else if (!pending_.empty()) {
      writing_ = true;
      actions.write = pending_.front();
      pending_.pop_front();
    }
    MaybeFinish(actions);
    return actions;
  }

  // The daemon is draining: read no more requests, answer those in flight, then finish, even
  // with a read outstanding (gRPC completes it, not ok, once the call is finished). A request
  // that the outstanding read still delivers is in flight like any other and is answered
  // (the caller refuses it with UNAVAILABLE).
  Actions Drain() {
    MutexLock lock(&mutex_);
    Actions actions;
    draining_ = true;
    MaybeFinish(actions);
    return actions;
  }
  size_t in_flight() const {
    MutexLock lock(&mutex_);
    return in_flight_;
  }

 private:
  void MaybeRead(Actions& actions) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    if (reading_ || reads_done_ || broken_ || draining_ || finished_ ||
        in_flight_ >= max_in_flight_) {
      return;
    }
    reading_ = true;
    actions.read = true;
  }
  void MaybeFinish(Actions& actions) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    if (finished_ || in_flight_ > 0 || writing_ || !pending_.empty()) return;
    // A read outstanding holds the finish back, except while draining: an idle client would
    // otherwise keep the stream (and the daemon's shutdown) open forever.
    if (!draining_ && (reading_ || !(reads_done_ || broken_))) return;
    finished_ = true;
    actions.finish = true;
    actions.drained = draining_ && !reads_done_ && !broken_;
  }

  const size_t max_in_flight_;
  mutable Mutex mutex_;
  size_t in_flight_ ABSL_GUARDED_BY(mutex_) = 0;
  bool reading_ ABSL_GUARDED_BY(mutex_) = false;
  bool reads_done_ ABSL_GUARDED_BY(mutex_) = false;
  bool writing_ ABSL_GUARDED_BY(mutex_) = false;
  bool broken_ ABSL_GUARDED_BY(mutex_) = false;
  bool finished_ ABSL_GUARDED_BY(mutex_) = false;
  bool draining_ ABSL_GUARDED_BY(mutex_) = false;
  std::deque<Response*> pending_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_ADMISSION_STREAM_FLOW_H_
