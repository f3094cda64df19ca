// Mutex, MutexLock, CondVar and Notification for core/: std::mutex underneath, with Abseil's
// thread-safety annotations on top.
//
// Why not absl::Mutex: Debian's Abseil is built without ThreadSanitizer support, so TSAN cannot
// see absl::Mutex (or absl::Notification) lock and unlock and reports every access they guard as
// a race. core/'s concurrent logic must run clean under TSAN with no suppressions, so it locks
// with std::mutex, which TSAN understands, while clang's -Wthread-safety still checks
// ABSL_GUARDED_BY against these types.
#ifndef NEURON_SERVE_UTIL_MUTEX_H_
#define NEURON_SERVE_UTIL_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "absl/time/time.h"

namespace neuronserve {

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mutex_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mutex_.unlock(); }

 private:
  friend class CondVar;
  std::mutex mutex_;
};

class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mutex) ABSL_EXCLUSIVE_LOCK_FUNCTION(mutex) : mutex_(mutex) {
    mutex_->Lock();
  }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mutex_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mutex_;
};

class CondVar {
 public:
  // Waits until `done()` is true; `mutex` must be held and is held again on return.
  template <typename Predicate>
  void Wait(Mutex* mutex, Predicate done) {
    std::unique_lock<std::mutex> lock(mutex->mutex_, std::adopt_lock);
    condition_.wait(lock, done);
    lock.release();  // still held: ownership goes back to the caller's MutexLock
  }
  // As Wait, but gives up after `timeout`; returns done().
  template <typename Predicate>
  bool WaitWithTimeout(Mutex* mutex, absl::Duration timeout, Predicate done) {
    std::unique_lock<std::mutex> lock(mutex->mutex_, std::adopt_lock);
    bool result;
    if (timeout == absl::InfiniteDuration()) {
      condition_.wait(lock, done);
      result = true;
    } else {
      result = condition_.wait_for(lock, absl::ToChronoNanoseconds(timeout), done);
    }
    lock.release();
    return result;
  }
  void NotifyAll() { condition_.notify_all(); }

 private:
  std::condition_variable condition_;
};

// A one-shot event: Notify once, wait any number of times.
class Notification {
 public:
  void Notify() {
    MutexLock lock(&mutex_);
    notified_ = true;
    condition_.NotifyAll();
  }
  void WaitForNotification() {
    MutexLock lock(&mutex_);
    condition_.Wait(&mutex_, [this] { return notified_; });
  }
  bool WaitForNotificationWithTimeout(absl::Duration timeout) {
    MutexLock lock(&mutex_);
    return condition_.WaitWithTimeout(&mutex_, timeout, [this] { return notified_; });
  }
  bool HasBeenNotified() {
    MutexLock lock(&mutex_);
    return notified_;
  }

 private:
  Mutex mutex_;
  CondVar condition_;
  bool notified_ = false;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_UTIL_MUTEX_H_
