// SocketLock: the lock file beside a unix admin socket (`<socket>.lock`), held for the daemon's
// life, so that a second neuron-serve on the same socket path refuses to start.
//
// Why: gRPC (1.51) unlinks and re-binds a unix socket path that already exists, so a second
// daemon would silently take the first one's admin socket over. The lock is an flock(LOCK_EX)
// on a separate file, taken before the socket is bound; the kernel drops it when the process
// ends however it ends, so a stale lock file never blocks a restart.
//
// Thread safety: none needed (taken once at start, released at destruction). Ownership: owns
// the lock file's descriptor; the file itself is left in place (removing it would race with a
// daemon starting at that moment, which could then lock a file no one else sees).
#ifndef NEURON_SERVE_SERVER_SECURITY_SOCKET_LOCK_H_
#define NEURON_SERVE_SERVER_SECURITY_SOCKET_LOCK_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace neuronserve {

class SocketLock {
 public:
  // Locks `socket_path` + ".lock" (created with mode 0600 if missing). FAILED_PRECONDITION
  // naming the lock file when another process holds it; the errno error when the file cannot
  // be opened or locked otherwise.
  static absl::StatusOr<std::unique_ptr<SocketLock>> Acquire(const std::string& socket_path);

  SocketLock(const SocketLock&) = delete;
  SocketLock& operator=(const SocketLock&) = delete;
  ~SocketLock();  // releases the lock

  const std::string& lock_path() const { return lock_path_; }

 private:
  SocketLock(std::string lock_path, int fd) : lock_path_(std::move(lock_path)), fd_(fd) {}

  const std::string lock_path_;
  const int fd_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_SECURITY_SOCKET_LOCK_H_
