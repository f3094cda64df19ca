#include "server/admission/drain_gate.h"

#include <algorithm>
#include <utility>

#include "absl/time/clock.h"

namespace neuronserve {

bool DrainGate::TryEnter() {
  MutexLock lock(&mutex_);
  if (draining_) return false;
  ++open_;
  return true;
}

void DrainGate::Leave() {
  MutexLock lock(&mutex_);
  --open_;
  if (open_ == 0) empty_.NotifyAll();
}

DrainGate::StreamId DrainGate::RegisterStream(std::function<void()> on_drain) {
  MutexLock streams_lock(&streams_mutex_);
  if (draining()) return 0;
  const StreamId id = next_stream_++;
  streams_.emplace(id, std::move(on_drain));
  return id;
}

void DrainGate::UnregisterStream(StreamId id) {
  if (id == 0) return;
  MutexLock streams_lock(&streams_mutex_);
  streams_.erase(id);
}

void DrainGate::BeginDrain() {
  MutexLock streams_lock(&streams_mutex_);
  {
    MutexLock lock(&mutex_);
    if (draining_) return;
    draining_ = true;
  }
  // Registration is closed now (draining() is true under streams_mutex_), so the map only
  // shrinks after this, and not while we hold streams_mutex_.
  for (auto& [id, on_drain] : streams_) on_drain();
  streams_.clear();
}

bool DrainGate::draining() const {
  MutexLock lock(&mutex_);
  return draining_;
}

int64_t DrainGate::open_calls() const {
  MutexLock lock(&mutex_);
  return open_;
}

bool DrainGate::WaitUntilEmpty(absl::Time deadline, const std::function<bool()>& give_up,
                               absl::Duration poll) {
  MutexLock lock(&mutex_);
  while (open_ > 0) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return false;
    empty_.WaitWithTimeout(&mutex_, std::min(left, poll), [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      return open_ == 0;
    });
    if (open_ == 0) break;
    // give_up may take its time (sigtimedwait): not with the lock held.
    mutex_.Unlock();
    const bool stop = give_up && give_up();
    mutex_.Lock();
    if (stop) return open_ == 0;
  }
  return true;
}

}  // namespace neuronserve
