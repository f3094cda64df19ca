#include "server/security/socket_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "util/posix_file.h"

namespace neuronserve {

absl::StatusOr<std::unique_ptr<SocketLock>> SocketLock::Acquire(const std::string& socket_path) {
  std::string lock_path = absl::StrCat(socket_path, ".lock");
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoError(errno, "open the admin socket's lock file", lock_path);
  int result;
  do {
    result = ::flock(fd, LOCK_EX | LOCK_NB);
  } while (result != 0 && errno == EINTR);
  if (result != 0) {
    const int error = errno;
    ::close(fd);
    if (error == EWOULDBLOCK) {
      return absl::FailedPreconditionError(
          absl::StrCat("the admin socket ", socket_path, " is in use: its lock file ", lock_path,
                       " is held by another process (another neuron-serve on the same "
                       "--admin-listen path?)"));
    }
    return ErrnoError(error, "lock", lock_path);
  }
  return std::unique_ptr<SocketLock>(new SocketLock(std::move(lock_path), fd));
}

SocketLock::~SocketLock() {
  // Closing the last descriptor of the open file releases the flock.
  ::close(fd_);
}

}  // namespace neuronserve
