// Mutex, MutexLock, CondVar and Notification for every layer (the simulator included):
// std::mutex underneath, with Abseil's thread-safety annotations on top.
//
// Why not absl::Mutex: Debian's Abseil is built without ThreadSanitizer support, so TSAN cannot
// see absl::Mutex (or absl::Notification) lock and unlock and reports every access they guard as
// a race. core/'s concurrent logic must run clean under TSAN with no suppressions, so it locks
// with std::mutex, which TSAN understands, while clang's -Wthread-safety still checks
// ABSL_GUARDED_BY against these types. The AddressSanitizer configuration compiles every target
// with clang-14 and -Werror=thread-safety (.ci/run), so the annotations are checked, not prose.
//
// It lives in base/ so that the simulator (which links no Abseil library) is checked too:
// absl/base/thread_annotations.h is macros only, and the absl::Duration overload below is a
// template that only callers linking absl::time instantiate.
//
// The rules the analysis needs:
//  - Every member a lock protects is ABSL_GUARDED_BY(that lock); every function that expects a
//    lock held says ABSL_EXCLUSIVE_LOCKS_REQUIRED; two locks taken together name their order
//    with ABSL_ACQUIRED_AFTER / ABSL_ACQUIRED_BEFORE on the mutex members.
//  - A CondVar predicate runs with the mutex held, but clang cannot see that through the
//    condition variable: declare the lambda with ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex), e.g.
//      cv_.Wait(&mutex_, [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return done_; });
//    never ABSL_NO_THREAD_SAFETY_ANALYSIS, which would also hide a predicate reading members
//    of another lock.
//  - Where a lock is held by a means the analysis cannot follow (a lock taken on another
//    object's behalf), Mutex::AssertHeld() tells it so, and checks nothing at run time.
#ifndef NEURON_SERVE_BASE_MUTEX_H_
#define NEURON_SERVE_BASE_MUTEX_H_

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
  // Tells the analysis that the calling thread holds this mutex; no check at run time (a
  // std::mutex does not know its owner).
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() {}

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
  void Wait(Mutex* mutex, Predicate done) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex) {
    std::unique_lock<std::mutex> lock(mutex->mutex_, std::adopt_lock);
    condition_.wait(lock, done);
    lock.release();  // still held: ownership goes back to the caller's MutexLock
  }
  // As Wait, but gives up after `timeout`; returns done().
  template <typename Predicate>
  bool WaitWithTimeout(Mutex* mutex, absl::Duration timeout, Predicate done)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex) {
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
  void NotifyOne() { condition_.notify_one(); }

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
    condition_.Wait(&mutex_, [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return notified_; });
  }
  bool WaitForNotificationWithTimeout(absl::Duration timeout) {
    MutexLock lock(&mutex_);
    return condition_.WaitWithTimeout(&mutex_, timeout,
                                      [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return notified_; });
  }
  bool HasBeenNotified() {
    MutexLock lock(&mutex_);
    return notified_;
  }

 private:
  Mutex mutex_;
  CondVar condition_;
  bool notified_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_BASE_MUTEX_H_
