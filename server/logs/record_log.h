// RecordLog: the one writer under the daemon's record logs, the access log (access_log.h) and the
// audit log (audit_log.h): it owns the file their lines go to (LogLineFile, log_line_file.h) and
// the format choice (--log-format), and RecordLine builds each line in that format, so that each
// log keeps only what is its own: its flag, its record and the fields it writes.
//
// A line is the record's type and time, then its fields in order:
//   text  2026-12-04T11:30:05.123Z TYPE key=value key=value ...   (values as AppendLogTextValue)
//   JSON  {"time":"2026-12-04T11:30:05.123Z","type":"TYPE","key":"value","key":123,...}
//
// Thread safety: RecordLog::Write may be called from any thread (LogLineFile queues the line);
// a RecordLine belongs to the thread that builds it. Ownership: a RecordLog owns its LogLineFile
// (whose destructor writes every queued line); RecordLine owns its text and borrows nothing.
#ifndef NEURON_SERVE_SERVER_LOGS_RECORD_LOG_H_
#define NEURON_SERVE_SERVER_LOGS_RECORD_LOG_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/logs/log_line_file.h"
#include "server/logs/logging.h"

namespace neuronserve {

// One line of a record log, built field by field.
class RecordLine {
 public:
  RecordLine(LogFormat format, std::string_view type, absl::Time time);

  // A string field: text key=value, JSON "key":"value" (escaped).
  RecordLine& Add(std::string_view key, std::string_view value);
  // As Add, but a text line leaves the field out when `value` is empty (a JSON line keeps it,
  // so that its objects all have the same keys).
  RecordLine& AddUnlessEmptyInText(std::string_view key, std::string_view value);
  // A status code by name (LogCodeName: "OK", "NOT_FOUND"), as a string field.
  RecordLine& AddCode(std::string_view key, absl::StatusCode code);
  // A number field: bare in both formats.
  RecordLine& AddNumber(std::string_view key, int64_t value);
  RecordLine& AddNumber(std::string_view key, uint64_t value);

  // The finished line, without a newline.
  std::string Finish() &&;

 private:
  // A field's key and what separates it from the value, in the line's format.
  void AppendKey(std::string_view key);

  const LogFormat format_;
  std::string line_;
};

// The base of a record log: AccessLog and AuditLog derive from it and add their record and its
// Format; the file, the format choice and the line's form are here.
class RecordLog {
 public:
  RecordLog(const RecordLog&) = delete;
  RecordLog& operator=(const RecordLog&) = delete;

 protected:
  // Opens (appends to) `path`, or for "-" a duplicate of `stdout_fd`: the process's real
  // standard output, which is not fd 1 while OutputCapture holds it; then makes the Log over it
  // (Log's constructor takes the format and the file, and befriends RecordLog). UNAVAILABLE
  // naming `flag` ("--access-log") and the path when the file cannot be opened.
  template <typename Log>
  static absl::StatusOr<std::unique_ptr<Log>> OpenAs(const std::string& flag,
                                                     const std::string& path, LogFormat format,
                                                     int stdout_fd) {
    absl::StatusOr<std::unique_ptr<LogLineFile>> file = LogLineFile::Open(flag, path, stdout_fd);
    if (!file.ok()) return file.status();
    return std::unique_ptr<Log>(new Log(format, *std::move(file)));
  }

  RecordLog(LogFormat format, std::unique_ptr<LogLineFile> file);
  // Writes every line still queued. Not virtual: a log is owned and deleted as its own type.
  ~RecordLog();

  // A line of this log's format for a record of `type` ("access", "audit") at `time`.
  RecordLine Line(std::string_view type, absl::Time time) const {
    return RecordLine(format_, type, time);
  }
  // Queues `line` (without its newline) for the background writer.
  void Write(std::string_view line);

 private:
  const LogFormat format_;
  const std::unique_ptr<LogLineFile> file_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_LOGS_RECORD_LOG_H_
