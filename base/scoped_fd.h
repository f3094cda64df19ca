// ScopedFd: owns one file descriptor and closes it when it goes, on every path. The one such
// class of every layer, the simulator's included (header-only, no Abseil).
//
// Thread safety: none of its own; one owner at a time. Ownership: owns the descriptor it was
// given (-1: none).
#ifndef NEURON_SERVE_BASE_SCOPED_FD_H_
#define NEURON_SERVE_BASE_SCOPED_FD_H_

#include <unistd.h>

namespace neuronserve {

class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ~ScopedFd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }
  // Closes now and returns close()'s result, which for a written file can be the first sign of
  // trouble.
  int Close() {
    const int rc = close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_BASE_SCOPED_FD_H_
