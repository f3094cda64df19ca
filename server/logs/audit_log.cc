#include "server/logs/audit_log.h"

#include <utility>

#include "server/logs/record_log.h"

namespace neuronserve {

absl::StatusOr<std::unique_ptr<AuditLog>> AuditLog::Open(const std::string& path, LogFormat format,
                                                         int stdout_fd) {
  absl::StatusOr<std::unique_ptr<RecordLog>> log =
      RecordLog::Open("--audit-log", path, format, stdout_fd);
  if (!log.ok()) return log.status();
  return std::unique_ptr<AuditLog>(new AuditLog(*std::move(log)));
}

AuditLog::AuditLog(std::unique_ptr<RecordLog> log) : log_(std::move(log)) {}

AuditLog::~AuditLog() = default;

std::string AuditLog::Format(const AuditRecord& record, absl::Time now) const {
  RecordLine line = log_->Line("audit", now);
  line.Add("rpc", record.rpc)
      .Add("peer", record.peer)
      .Add("identity", record.identity)
      .Add("model", record.model)
      .AddCode("code", record.code)
      .Add("message", record.message);
  return std::move(line).Finish();
}

void AuditLog::Record(const AuditRecord& record) { log_->Write(Format(record, absl::Now())); }

}  // namespace neuronserve
