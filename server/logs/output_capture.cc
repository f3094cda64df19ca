#include "server/logs/output_capture.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/logs/json_log_formatter.h"
#include "server/logs/line_framer.h"

namespace neuronserve {
namespace {

absl::Status ErrnoError(const char* call) {
  return absl::InternalError(absl::StrCat("output capture: ", call, ": ", std::strerror(errno)));
}

// Threads of this process, from /proc/self/task (0 if it cannot tell).
int ThreadCount() {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return 0;
  int count = 0;
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] != '.') ++count;
  }
  closedir(tasks);
  return count;
}

void WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t written = write(fd, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;  // the reader is gone: nothing better to do with the line
    bytes.remove_prefix(static_cast<size_t>(written));
  }
}

void CloseIfOpen(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// One captured stream in the forwarder.
struct CapturedStream {
  int fd;
  std::string_view default_level;
  LineFramer framer;
  // The level of the line whose pieces are being emitted: every piece keeps the first's.
  std::string_view continuing_level = {};
};

}  // namespace

std::string_view CapturedLineLevel(std::string_view line, std::string_view stream_default) {
  static constexpr std::pair<std::string_view, std::string_view> kLevels[] = {
      {"trace", "trace"},       {"debug", "debug"},    {"info", "info"},   {"warn", "warning"},
      {"warning", "warning"},   {"err", "error"},      {"error", "error"}, {"fatal", "critical"},
      {"critical", "critical"}, {"panic", "critical"},
  };
  std::string_view rest = line;
  for (int word = 0; word < 4; ++word) {
    const size_t start = rest.find_first_not_of(" \t");
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    const size_t end = std::min(rest.find_first_of(" \t"), rest.size());
    std::string_view token = rest.substr(0, end);
    rest.remove_prefix(end);
    // A level word is marked as one: "[warn]", "<info>", "error:", or in capitals ("ERROR"),
    // so that prose ("no error at all") does not count.
    const size_t length = token.size();
    while (!token.empty() && std::strchr("[(<", token.front()) != nullptr) token.remove_prefix(1);
    while (!token.empty() && std::strchr("])>:,", token.back()) != nullptr) token.remove_suffix(1);
    const bool marked =
        token.size() < length ||
        std::none_of(token.begin(), token.end(), [](char c) { return c >= 'a' && c <= 'z'; });
    if (!marked) continue;
    for (const auto& [name, level] : kLevels) {
      if (absl::EqualsIgnoreCase(absl::string_view(token.data(), token.size()),
                                 absl::string_view(name.data(), name.size()))) {
        return level;
      }
    }
  }
  return stream_default;
}

void ForwardCapturedOutput(int stdout_read_fd, int stderr_read_fd, int out_fd) {
  CapturedStream streams[] = {{stdout_read_fd, "info", LineFramer()},
                              {stderr_read_fd, "warning", LineFramer()}};
  std::string line;
  auto emit_for = [&](CapturedStream& stream) {
    return [&line, &stream, out_fd](std::string_view text, bool continued) {
      const std::string_view level = !stream.continuing_level.empty()
                                         ? stream.continuing_level
                                         : CapturedLineLevel(text, stream.default_level);
      stream.continuing_level = continued ? level : std::string_view();
      line.clear();
      AppendJsonLogLine({.time = std::chrono::system_clock::now(),
                         .level = level,
                         .logger = "nrt",
                         .message = text,
                         .continued = continued},
                        line);
      WriteAll(out_fd, line);
    };
  };
  char buffer[64 * 1024];
  int open_streams = 2;
  while (open_streams > 0) {
    pollfd polled[2];
    for (int i = 0; i < 2; ++i) polled[i] = {.fd = streams[i].fd, .events = POLLIN, .revents = 0};
    if (poll(polled, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      CapturedStream& stream = streams[i];
      if (stream.fd < 0 || polled[i].revents == 0) continue;
      const ssize_t n = read(stream.fd, buffer, sizeof(buffer));
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      const auto emit = emit_for(stream);
      if (n <= 0) {  // end of file: every writer is gone
        stream.framer.Finish(emit);
        CloseIfOpen(stream.fd);  // poll ignores a negative fd
        --open_streams;
        continue;
      }
      stream.framer.Append(std::string_view(buffer, static_cast<size_t>(n)), emit);
    }
  }
  for (CapturedStream& stream : streams) CloseIfOpen(stream.fd);
}

absl::StatusOr<std::unique_ptr<OutputCapture>> OutputCapture::Start() {
  if (const int threads = ThreadCount(); threads > 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        "output capture must start before any thread does; the process runs ", threads));
  }
  std::unique_ptr<OutputCapture> capture(new OutputCapture());
  capture->original_stdout_ = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (capture->original_stdout_ < 0) return ErrnoError("dup of stdout");
  capture->original_stderr_ = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  if (capture->original_stderr_ < 0) return ErrnoError("dup of stderr");
  int stdout_pipe[2];
  int stderr_pipe[2];
  if (pipe2(stdout_pipe, O_CLOEXEC) != 0) return ErrnoError("pipe2");
  if (pipe2(stderr_pipe, O_CLOEXEC) != 0) {
    const absl::Status status = ErrnoError("pipe2");
    close(stdout_pipe[0]);
    close(stdout_pipe[1]);
    return status;
  }
  // Whatever stdio buffered so far belongs to the original streams, not to the forwarder's
  // copy of the buffers (which would print it twice).
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    const absl::Status status = ErrnoError("fork");
    for (int fd : {stdout_pipe[0], stdout_pipe[1], stderr_pipe[0], stderr_pipe[1]}) close(fd);
    return status;
  }
  if (pid == 0) {
    // The forwarder. It must see end of file when the daemon dies, so it holds no write end;
    // it must outlive the daemon's own shutdown and a Ctrl-C to the process group, so it
    // ignores the signals that stop the daemon and keeps reading until the pipes end.
    close(stdout_pipe[1]);
    close(stderr_pipe[1]);
    for (int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) {
      signal(signal_number, SIG_IGN);
    }
    prctl(PR_SET_NAME, "log-forwarder");
    ForwardCapturedOutput(stdout_pipe[0], stderr_pipe[0], STDERR_FILENO);
    _exit(0);  // not exit(): the daemon's atexit handlers and static destructors are not ours
  }
  capture->forwarder_ = pid;
  close(stdout_pipe[0]);
  close(stderr_pipe[0]);
  // A forwarder that died must cost lines, not the daemon: writes get EPIPE instead of SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  const bool redirected =
      dup2(stdout_pipe[1], STDOUT_FILENO) >= 0 && dup2(stderr_pipe[1], STDERR_FILENO) >= 0;
  const absl::Status status = redirected ? absl::OkStatus() : ErrnoError("dup2");
  // fds 1 and 2 are now the only write ends (without close-on-exec, like any stdout).
  close(stdout_pipe[1]);
  close(stderr_pipe[1]);
  if (!status.ok()) return status;  // the destructor restores fds 1 and 2 and reaps the child
  // stdio would buffer a pipe fully: a runtime's printf lines would arrive in 4 KiB lumps, late,
  // and be lost in a crash. Line by line, as on a terminal.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  return capture;
}

OutputCapture::~OutputCapture() {
  Stop();
  CloseIfOpen(original_stdout_);
  CloseIfOpen(original_stderr_);
}

void OutputCapture::Stop(absl::Duration timeout) {
  if (stopped_) return;
  stopped_ = true;
  std::fflush(stdout);
  std::fflush(stderr);
  if (original_stdout_ >= 0) dup2(original_stdout_, STDOUT_FILENO);
  if (original_stderr_ >= 0) dup2(original_stderr_, STDERR_FILENO);
  if (forwarder_ <= 0) return;
  // The forwarder exits once it has written everything; a child process of the daemon that
  // inherited fd 1 or 2 keeps a pipe open, and then the daemon stops waiting after `timeout`
  // (the forwarder goes on until that process, too, is gone).
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    int status = 0;
    const pid_t result = waitpid(forwarder_, &status, WNOHANG);
    if (result == forwarder_ || (result < 0 && errno != EINTR)) break;
    if (absl::Now() >= deadline) break;
    absl::SleepFor(absl::Milliseconds(2));
  }
}

}  // namespace neuronserve
