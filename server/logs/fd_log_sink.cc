#include "server/logs/fd_log_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace neuronserve {

absl::StatusOr<std::shared_ptr<FdLogSink>> FdLogSink::Duplicate(int fd) {
  const int owned = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (owned < 0) {
    return absl::InternalError(absl::StrCat("cannot duplicate file descriptor ", fd,
                                            " for logging: ", std::strerror(errno)));
  }
  return std::shared_ptr<FdLogSink>(new FdLogSink(owned));
}

FdLogSink::~FdLogSink() { close(fd_); }

void FdLogSink::sink_it_(const spdlog::details::log_msg& msg) {
  spdlog::memory_buf_t formatted;
  formatter_->format(msg, formatted);
  const char* data = formatted.data();
  size_t left = formatted.size();
  while (left > 0) {
    const ssize_t written = write(fd_, data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;  // a closed stream (EPIPE) costs the line, never the daemon
    data += written;
    left -= static_cast<size_t>(written);
  }
}

}  // namespace neuronserve
