#include "server/logs/access_log.h"

#include <utility>

#include "server/logs/record_log.h"

namespace neuronserve {
namespace {

int64_t Micros(absl::Duration duration) { return absl::ToInt64Microseconds(duration); }

}  // namespace

absl::StatusOr<std::unique_ptr<AccessLog>> AccessLog::Open(const std::string& path,
                                                           LogFormat format, int stdout_fd) {
  absl::StatusOr<std::unique_ptr<RecordLog>> log =
      RecordLog::Open("--access-log", path, format, stdout_fd);
  if (!log.ok()) return log.status();
  return std::unique_ptr<AccessLog>(new AccessLog(*std::move(log)));
}

AccessLog::AccessLog(std::unique_ptr<RecordLog> log) : log_(std::move(log)) {}

AccessLog::~AccessLog() = default;

std::string AccessLog::Format(const AccessRecord& record, absl::Time now) const {
  RecordLine line = log_->Line("access", now);
  line.Add("method", record.method)
      .Add("peer", record.peer)
      .AddUnlessEmptyInText("identity", record.identity)
      .Add("model", record.model)
      .Add("version", record.version)
      .Add("id", record.id)
      .AddCode("code", record.code)
      .AddNumber("queue_us", Micros(record.queued))
      .AddNumber("device_us", Micros(record.device))
      .AddNumber("total_us", Micros(record.total))
      .AddNumber("bytes_in", record.bytes_in)
      .AddNumber("bytes_out", record.bytes_out);
  return std::move(line).Finish();
}

void AccessLog::Record(const AccessRecord& record) { log_->Write(Format(record, absl::Now())); }

}  // namespace neuronserve
