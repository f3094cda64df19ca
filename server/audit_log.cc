#include "server/audit_log.h"

#include "absl/strings/str_cat.h"
#include "server/json_log_formatter.h"
#include "server/log_line_file.h"

namespace neuronserve {

absl::StatusOr<std::unique_ptr<AuditLog>> AuditLog::Open(const std::string& path, LogFormat format,
                                                         int stdout_fd) {
  absl::StatusOr<std::unique_ptr<LogLineFile>> file =
      LogLineFile::Open("--audit-log", path, stdout_fd);
  if (!file.ok()) return file.status();
  std::unique_ptr<AuditLog> log(new AuditLog());
  log->format_ = format;
  log->file_ = *std::move(file);
  return log;
}

AuditLog::~AuditLog() = default;

std::string AuditLog::Format(const AuditRecord& record, absl::Time now) const {
  std::string line;
  line.reserve(256);
  const std::string time = Rfc3339Millis(absl::ToChronoTime(now));
  const std::pair<std::string_view, std::string_view> fields[] = {
      {"rpc", record.rpc},
      {"peer", record.peer},
      {"identity", record.identity},
      {"model", record.model},
  };
  const std::string code = LogCodeName(record.code);
  if (format_ == LogFormat::kJson) {
    absl::StrAppend(&line, "{\"time\":\"", time, "\",\"type\":\"audit\"");
    for (const auto& [key, value] : fields) {
      absl::StrAppend(&line, ",\"", std::string(key), "\":\"");
      AppendJsonEscaped(value, line);
      line += '"';
    }
    absl::StrAppend(&line, ",\"code\":\"", code, "\",\"message\":\"");
    AppendJsonEscaped(record.message, line);
    line += "\"}";
    return line;
  }
  absl::StrAppend(&line, time, " audit");
  for (const auto& [key, value] : fields) {
    absl::StrAppend(&line, " ", std::string(key), "=");
    AppendLogTextValue(value, line);
  }
  absl::StrAppend(&line, " code=", code, " message=");
  AppendLogTextValue(record.message, line);
  return line;
}

void AuditLog::Record(const AuditRecord& record) { file_->Write(Format(record, absl::Now())); }

}  // namespace neuronserve
