// HangupWatcher: tells when the peer of a connected socket goes away (closes or breaks its
// connection), without ever reading from the socket.
//
// Why: the HTTP server suspends a connection while its request waits for an answer, and
// libmicrohttpd does not watch a suspended connection, so a client that leaves would go unnoticed
// until the answer is sent. The watcher fills that gap for the server (http_server_internal.h);
// it knows nothing of HTTP, libmicrohttpd or gRPC, only descriptors and callbacks.
//
// How: one thread per watcher waits in its own epoll instance for EPOLLRDHUP (EPOLLHUP and
// EPOLLERR come unasked) on each watched descriptor, level-triggered and one-shot. It never asks
// for EPOLLIN: bytes the peer sends meanwhile (a pipelined next request) are not a hang-up, and a
// TLS socket must not be read behind the TLS layer's back. A peer that left before Watch is
// reported too (its hang-up is already pending when the descriptor is added). A peer that only
// shuts down its sending side (shutdown(SHUT_WR)) counts as gone: it will send nothing more.
//
// Callbacks: each watch's `on_gone` runs at most once, on the watcher's thread, one callback at a
// time, with no lock of the watcher held, so it may call Watch and Unwatch (its own id included).
// Unwatch returns only once `on_gone` cannot run any more: when it is running on the watcher's
// thread at that moment, Unwatch waits until it has returned and been destroyed, unless Unwatch
// is called from that very thread (from inside a callback), where waiting would be waiting for
// itself; then it returns at once. So a callback must not wait for a thread that may be inside
// Unwatch of that callback's own id.
//
// Thread safety: Watch and Unwatch may be called from any thread, concurrently; Stop and the
// destructor from one thread, never from a callback. Ownership: the watcher owns its epoll
// descriptor, the eventfd that wakes its thread, and the thread (started by the first Watch,
// joined by Stop or the destructor). It borrows the watched descriptors: each watch must be
// Unwatched before its descriptor is closed, since Unwatch removes the registration by the
// descriptor's number, which the kernel may give to another socket once it is closed. Every
// callback not yet run is dropped, unrun, by Stop.
#ifndef NEURON_SERVE_SERVER_HTTP_HANGUP_WATCHER_H_
#define NEURON_SERVE_SERVER_HTTP_HANGUP_WATCHER_H_

#include <cstdint>
#include <functional>
#include <thread>
#include <unordered_map>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "base/scoped_fd.h"

namespace neuronserve {

class HangupWatcher {
 public:
  // Names one watch; never 0, never reused by the same watcher.
  using Id = uint64_t;

  HangupWatcher();
  // Stop().
  ~HangupWatcher();
  HangupWatcher(const HangupWatcher&) = delete;
  HangupWatcher& operator=(const HangupWatcher&) = delete;

  // Calls `on_gone` once the peer of socket `fd` hangs up (at once when it already has).
  // INVALID_ARGUMENT for a negative `fd`; FAILED_PRECONDITION after Stop; another code, naming
  // the errno, when the descriptor cannot be watched (no epoll instance, epoll_ctl refused it: a
  // descriptor already watched, one that is not a socket...). On an error `on_gone` never runs.
  absl::StatusOr<Id> Watch(int fd, std::function<void()> on_gone) ABSL_LOCKS_EXCLUDED(mutex_);

  // Stops watching `id` (a no-op for 0 or an id already unwatched). On return `on_gone` does not
  // run and is not running, except when Unwatch is called from inside it. Returns whether
  // `on_gone` ran (or is the caller).
  bool Unwatch(Id id) ABSL_LOCKS_EXCLUDED(mutex_);

  // Stops the thread: on return no callback runs, and none will. Idempotent.
  void Stop() ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  struct Entry {
    int fd;
    // Empty once taken to run.
    std::function<void()> on_gone;
    bool fired;
  };

  void Run();
  // Runs the callback of `id` if it is still watched and has not run.
  void Fire(Id id) ABSL_LOCKS_EXCLUDED(mutex_);

  // epoll_event.data of the eventfd; watch ids start at 1.
  static constexpr Id kWakeId = 0;

  ScopedFd epoll_;  // -1 when epoll_create1 failed (epoll_errno_ says why)
  ScopedFd wake_;   // an eventfd, written once by Stop
  int epoll_errno_ = 0;

  Mutex mutex_;
  CondVar callback_done_;
  std::unordered_map<Id, Entry> watches_ ABSL_GUARDED_BY(mutex_);
  Id next_id_ ABSL_GUARDED_BY(mutex_) = 1;
  // The watch whose callback runs now (0: none), and the thread it runs on.
  Id running_ ABSL_GUARDED_BY(mutex_) = 0;
  std::thread::id thread_id_ ABSL_GUARDED_BY(mutex_);
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread thread_ ABSL_GUARDED_BY(mutex_);  // started by the first Watch
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_HTTP_HANGUP_WATCHER_H_
