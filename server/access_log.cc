#include "server/access_log.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "server/json_log_formatter.h"
#include "server/log_line_file.h"

namespace neuronserve {
namespace {

int64_t Micros(absl::Duration duration) { return absl::ToInt64Microseconds(duration); }

}  // namespace

absl::StatusOr<std::unique_ptr<AccessLog>> AccessLog::Open(const std::string& path,
                                                           LogFormat format, int stdout_fd) {
  absl::StatusOr<std::unique_ptr<LogLineFile>> file =
      LogLineFile::Open("--access-log", path, stdout_fd);
  if (!file.ok()) return file.status();
  std::unique_ptr<AccessLog> log(new AccessLog());
  log->format_ = format;
  log->file_ = *std::move(file);
  return log;
}

AccessLog::~AccessLog() = default;

std::string AccessLog::Format(const AccessRecord& record, absl::Time now) const {
  std::string line;
  line.reserve(256);
  const std::string time = Rfc3339Millis(absl::ToChronoTime(now));
  if (format_ == LogFormat::kJson) {
    absl::StrAppend(&line, "{\"time\":\"", time, "\",\"type\":\"access\",\"method\":\"");
    AppendJsonEscaped(record.method, line);
    line += "\",\"peer\":\"";
    AppendJsonEscaped(record.peer, line);
    line += "\",\"identity\":\"";
    AppendJsonEscaped(record.identity, line);
    line += "\",\"model\":\"";
    AppendJsonEscaped(record.model, line);
    line += "\",\"version\":\"";
    AppendJsonEscaped(record.version, line);
    line += "\",\"id\":\"";
    AppendJsonEscaped(record.id, line);
    absl::StrAppend(&line, "\",\"code\":\"", LogCodeName(record.code), "\",\"queue_us\":",
                    Micros(record.queued), ",\"device_us\":", Micros(record.device),
                    ",\"total_us\":", Micros(record.total), ",\"bytes_in\":", record.bytes_in,
                    ",\"bytes_out\":", record.bytes_out, "}");
    return line;
  }
  absl::StrAppend(&line, time, " access method=");
  AppendLogTextValue(record.method, line);
  line += " peer=";
  AppendLogTextValue(record.peer, line);
  if (!record.identity.empty()) {
    line += " identity=";
    AppendLogTextValue(record.identity, line);
  }
  line += " model=";
  AppendLogTextValue(record.model, line);
  line += " version=";
  AppendLogTextValue(record.version, line);
  line += " id=";
  AppendLogTextValue(record.id, line);
  absl::StrAppend(&line, " code=", LogCodeName(record.code), " queue_us=", Micros(record.queued),
                  " device_us=", Micros(record.device), " total_us=", Micros(record.total),
                  " bytes_in=", record.bytes_in, " bytes_out=", record.bytes_out);
  return line;
}

void AccessLog::Record(const AccessRecord& record) {
  file_->Write(Format(record, absl::Now()));
}

}  // namespace neuronserve
