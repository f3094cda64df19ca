#include "server/logs/log_line_file.h"

#include "absl/strings/str_cat.h"
#include "server/logs/fd_log_sink.h"
#include "server/logs/json_log_formatter.h"
#include "spdlog/async.h"
#include "spdlog/async_logger.h"
#include "spdlog/sinks/basic_file_sink.h"
#include "spdlog/spdlog.h"

namespace neuronserve {

absl::StatusOr<std::unique_ptr<LogLineFile>> LogLineFile::Open(const std::string& flag,
                                                               const std::string& path,
                                                               int stdout_fd) {
  std::unique_ptr<LogLineFile> file(new LogLineFile());
  spdlog::sink_ptr sink;
  try {
    if (path == "-") {
      absl::StatusOr<std::shared_ptr<FdLogSink>> stdout_sink = FdLogSink::Duplicate(stdout_fd);
      if (!stdout_sink.ok()) {
        return absl::UnavailableError(absl::StrCat(flag, "=-: ", stdout_sink.status().message()));
      }
      sink = *std::move(stdout_sink);
    } else {
      sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path, /*truncate=*/false);
    }
  } catch (const spdlog::spdlog_ex& error) {
    return absl::UnavailableError(
        absl::StrCat(flag, "='", path, "': cannot open it: ", error.what()));
  }
  file->writer_ = std::make_shared<spdlog::details::thread_pool>(16384, 1);
  // The name is only spdlog's; the logger is not registered, so two of one kind do not clash.
  file->logger_ = std::make_shared<spdlog::async_logger>(flag, std::move(sink), file->writer_,
                                                         spdlog::async_overflow_policy::block);
  file->logger_->set_pattern("%v");
  file->logger_->set_level(spdlog::level::info);
  file->logger_->flush_on(spdlog::level::info);
  return file;
}

LogLineFile::~LogLineFile() {
  // The logger's queued lines are written by the pool's thread, which drains its queue before
  // it stops: drop the logger first, then the pool.
  if (logger_ != nullptr) logger_->flush();
  logger_.reset();
  writer_.reset();
}

void LogLineFile::Write(std::string_view line) { logger_->info("{}", line); }

void AppendLogTextValue(std::string_view value, std::string& out) {
  const bool bare = !value.empty() && value.find_first_of(" \"=\\\t\n") == std::string_view::npos;
  if (bare) {
    out.append(value);
    return;
  }
  out += '"';
  AppendJsonEscaped(value, out);
  out += '"';
}

std::string LogCodeName(absl::StatusCode code) {
  std::string name = absl::StatusCodeToString(code);  // "NOT_FOUND", "OK", ...
  return name.empty() ? absl::StrCat(static_cast<int>(code)) : name;
}

}  // namespace neuronserve
