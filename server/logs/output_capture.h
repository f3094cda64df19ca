// OutputCapture (--log-format=json): everything written to file descriptors 1 and 2 by code
// that does not log through spdlog (the Neuron runtime above all, also libraries and the C++
// runtime's own last words) becomes JSON log lines with logger "nrt", so that every line of
// the daemon's output is one JSON object.
//
// How: Start() forks a forwarding process, then points fds 1 and 2 of the daemon at two pipes
// it reads. The forwarder cuts each stream into lines (LineFramer), wraps each line in the
// daemon's JSON log line (AppendJsonLogLine) and writes it to the original stderr. Being a
// separate process is the point: when the daemon aborts or is killed, the kernel closes the
// pipes' write ends, and the forwarder still drains what was written before the death (an
// abort message, a sanitizer report, "terminate called after ...") and exits on end of file.
//
// The daemon's own spdlog lines do not go through the forwarder: ConfigureLogging writes them
// to a duplicate of the original stderr, taken before Start(). The access log's "-" writes to
// original_stdout().
//
// Limits: a line still open (no '\n') is written when its stream ends, not before. If the
// daemon is PID 1 of its PID namespace, the kernel kills the forwarder as soon as the daemon
// dies, so a crash's last lines may be lost there (an init such as tini does not help: it
// exits when the daemon does, with the same effect).
//
// Thread safety: Start() must run while the process has one thread (it forks); Stop() from
// one thread, once the rest of the process has stopped writing. Ownership: the object owns the
// duplicates of the original fds and the forwarder process.
#ifndef NEURON_SERVE_SERVER_LOGS_OUTPUT_CAPTURE_H_
#define NEURON_SERVE_SERVER_LOGS_OUTPUT_CAPTURE_H_

#include <sys/types.h>

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace neuronserve {

class OutputCapture {
 public:
  // Forks the forwarder and redirects fds 1 and 2 to it. FAILED_PRECONDITION if the process
  // already runs more than one thread (a forked copy could inherit a lock held by another
  // thread, e.g. malloc's, and hang); INTERNAL naming the system call that failed.
  static absl::StatusOr<std::unique_ptr<OutputCapture>> Start();
  // Stop().
  ~OutputCapture();
  OutputCapture(const OutputCapture&) = delete;
  OutputCapture& operator=(const OutputCapture&) = delete;

  // A descriptor of the standard output the process was started with (fd 1 is the pipe).
  // Valid until this object is destroyed; dup it to keep it longer.
  int original_stdout() const { return original_stdout_; }
  // The forwarding process, for tests.
  pid_t forwarder_pid() const { return forwarder_; }

  // Flushes stdio, points fds 1 and 2 back at the original stdout and stderr (which closes the
  // pipes, so the forwarder sees their end) and waits up to `timeout` for the forwarder to
  // write the last lines and exit. Output written afterwards goes to the originals unwrapped.
  // Idempotent.
  void Stop(absl::Duration timeout = absl::Seconds(5));

 private:
  OutputCapture() = default;

  int original_stdout_ = -1;
  int original_stderr_ = -1;
  pid_t forwarder_ = -1;
  bool stopped_ = false;
};

// The forwarder's work, run by the forked process (and directly by tests): reads both streams
// until each ends and writes each line to `out_fd` as a JSON log line with logger "nrt".
// Takes ownership of (closes) the two read fds.
void ForwardCapturedOutput(int stdout_read_fd, int stderr_read_fd, int out_fd);

// The level of a captured line: the first word among its first four that names a level and
// is marked as one: in capitals, bracketed or followed by a colon ("ERROR", "WARN", "[info]",
// "warning:", "fatal:"), as the runtime's console log and most libraries write it; otherwise
// `stream_default` ("info" for stdout, "warning" for stderr, where programs write their
// diagnostics).
std::string_view CapturedLineLevel(std::string_view line, std::string_view stream_default);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_LOGS_OUTPUT_CAPTURE_H_
