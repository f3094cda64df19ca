#include "server/access_log.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "server/fd_log_sink.h"
#include "server/json_log_formatter.h"
#include "spdlog/async.h"
#include "spdlog/async_logger.h"
#include "spdlog/sinks/basic_file_sink.h"
#include "spdlog/spdlog.h"

namespace neuronserve {
namespace {

std::string CodeName(absl::StatusCode code) {
  std::string name = absl::StatusCodeToString(code);  // "NOT_FOUND", "OK", ...
  return name.empty() ? absl::StrCat(static_cast<int>(code)) : name;
}

int64_t Micros(absl::Duration duration) { return absl::ToInt64Microseconds(duration); }

// A text value: bare when it has no space, quote or '=', else quoted with \" and \\ escaped.
void AppendTextValue(std::string_view value, std::string& out) {
  const bool bare = !value.empty() && value.find_first_of(" \"=\\\t\n") == std::string_view::npos;
  if (bare) {
    out.append(value);
    return;
  }
  out += '"';
  AppendJsonEscaped(value, out);
  out += '"';
}

}  // namespace

absl::StatusOr<std::unique_ptr<AccessLog>> AccessLog::Open(const std::string& path,
                                                           LogFormat format, int stdout_fd) {
  std::unique_ptr<AccessLog> log(new AccessLog());
  log->format_ = format;
  spdlog::sink_ptr sink;
  try {
    if (path == "-") {
      absl::StatusOr<std::shared_ptr<FdLogSink>> stdout_sink = FdLogSink::Duplicate(stdout_fd);
      if (!stdout_sink.ok()) {
        return absl::UnavailableError(
            absl::StrCat("--access-log=-: ", stdout_sink.status().message()));
      }
      sink = *std::move(stdout_sink);
    } else {
      sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path, /*truncate=*/false);
    }
  } catch (const spdlog::spdlog_ex& error) {
    return absl::UnavailableError(
        absl::StrCat("--access-log='", path, "': cannot open it: ", error.what()));
  }
  log->writer_ = std::make_shared<spdlog::details::thread_pool>(16384, 1);
  log->logger_ = std::make_shared<spdlog::async_logger>(
      "access", std::move(sink), log->writer_, spdlog::async_overflow_policy::block);
  log->logger_->set_pattern("%v");
  log->logger_->set_level(spdlog::level::info);
  log->logger_->flush_on(spdlog::level::info);
  return log;
}

AccessLog::~AccessLog() {
  // The logger's queued lines are written by the pool's thread, which drains its queue before
  // it stops: drop the logger first, then the pool.
  if (logger_ != nullptr) logger_->flush();
  logger_.reset();
  writer_.reset();
}

std::string AccessLog::Format(const AccessRecord& record, absl::Time now) const {
  std::string line;
  line.reserve(256);
  const std::string time = Rfc3339Millis(absl::ToChronoTime(now));
  if (format_ == LogFormat::kJson) {
    absl::StrAppend(&line, "{\"time\":\"", time, "\",\"type\":\"access\",\"method\":\"");
    AppendJsonEscaped(record.method, line);
    line += "\",\"peer\":\"";
    AppendJsonEscaped(record.peer, line);
    line += "\",\"model\":\"";
    AppendJsonEscaped(record.model, line);
    line += "\",\"version\":\"";
    AppendJsonEscaped(record.version, line);
    line += "\",\"id\":\"";
    AppendJsonEscaped(record.id, line);
    absl::StrAppend(&line, "\",\"code\":\"", CodeName(record.code), "\",\"queue_us\":",
                    Micros(record.queued), ",\"device_us\":", Micros(record.device),
                    ",\"total_us\":", Micros(record.total), ",\"bytes_in\":", record.bytes_in,
                    ",\"bytes_out\":", record.bytes_out, "}");
    return line;
  }
  absl::StrAppend(&line, time, " access method=");
  AppendTextValue(record.method, line);
  line += " peer=";
  AppendTextValue(record.peer, line);
  line += " model=";
  AppendTextValue(record.model, line);
  line += " version=";
  AppendTextValue(record.version, line);
  line += " id=";
  AppendTextValue(record.id, line);
  absl::StrAppend(&line, " code=", CodeName(record.code), " queue_us=", Micros(record.queued),
                  " device_us=", Micros(record.device), " total_us=", Micros(record.total),
                  " bytes_in=", record.bytes_in, " bytes_out=", record.bytes_out);
  return line;
}

void AccessLog::Record(const AccessRecord& record) {
  const std::string line = Format(record, absl::Now());
  logger_->info("{}", line);
}

}  // namespace neuronserve
