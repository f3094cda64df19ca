// LogLineFile: where a record log (RecordLog, record_log.h: the access log and the audit log)
// writes its lines: a file opened for appending, or for "-" the process's real standard output;
// and the text-format helpers of those lines.
//
// Lines are handed to a background writer thread (spdlog's async logger) so a slow disk never
// delays an answer; only when its queue of 16384 lines is full does a caller wait. Each line is
// flushed as it is written, so a crash loses at most what is queued.
//
// Thread safety: Write may be called from any thread. Ownership: owns the file (or the
// duplicate of stdout) and the writer thread; the destructor writes every queued line.
#ifndef NEURON_SERVE_SERVER_LOGS_LOG_LINE_FILE_H_
#define NEURON_SERVE_SERVER_LOGS_LOG_LINE_FILE_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace spdlog {
class logger;
namespace details {
class thread_pool;
}
}  // namespace spdlog

namespace neuronserve {

class LogLineFile {
 public:
  // Opens (appends to) `path`, or for "-" a duplicate of `stdout_fd`: the process's real
  // standard output, which is not fd 1 while OutputCapture holds it. `flag` ("--access-log")
  // names the option in errors: UNAVAILABLE "--access-log='PATH': cannot open it: ..." or
  // "--access-log=-: ...".
  static absl::StatusOr<std::unique_ptr<LogLineFile>> Open(const std::string& flag,
                                                           const std::string& path, int stdout_fd);
  ~LogLineFile();
  LogLineFile(const LogLineFile&) = delete;
  LogLineFile& operator=(const LogLineFile&) = delete;

  // Queues `line` (without its newline) for writing.
  void Write(std::string_view line);

 private:
  LogLineFile() = default;
  std::shared_ptr<spdlog::details::thread_pool> writer_;
  std::shared_ptr<spdlog::logger> logger_;
};

// A text-format value: bare when it is not empty and has no space, quote, '=' or backslash, else
// quoted with JSON escapes, so that a line always splits back into its key=value pairs.
void AppendLogTextValue(std::string_view value, std::string& out);

// "NOT_FOUND", "OK", ...; a code without a name as its number.
std::string LogCodeName(absl::StatusCode code);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_LOGS_LOG_LINE_FILE_H_
