#include "server/logs/record_log.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/logs/json_log_formatter.h"
#include "server/logs/log_line_file.h"

namespace neuronserve {

RecordLine::RecordLine(LogFormat format, std::string_view type, absl::Time time) : format_(format) {
  line_.reserve(256);
  const std::string stamp = Rfc3339Millis(absl::ToChronoTime(time));
  if (format_ == LogFormat::kJson) {
    absl::StrAppend(&line_, "{\"time\":\"", stamp, "\",\"type\":\"", type, "\"");
  } else {
    absl::StrAppend(&line_, stamp, " ", type);
  }
}

RecordLine& RecordLine::Add(std::string_view key, std::string_view value) {
  if (format_ == LogFormat::kJson) {
    absl::StrAppend(&line_, ",\"", key, "\":\"");
    AppendJsonEscaped(value, line_);
    line_ += '"';
  } else {
    absl::StrAppend(&line_, " ", key, "=");
    AppendLogTextValue(value, line_);
  }
  return *this;
}

RecordLine& RecordLine::AddUnlessEmptyInText(std::string_view key, std::string_view value) {
  if (value.empty() && format_ != LogFormat::kJson) return *this;
  return Add(key, value);
}

RecordLine& RecordLine::AddCode(std::string_view key, absl::StatusCode code) {
  return Add(key, LogCodeName(code));
}

RecordLine& RecordLine::AddNumber(std::string_view key, int64_t value) {
  if (format_ == LogFormat::kJson) {
    absl::StrAppend(&line_, ",\"", key, "\":", value);
  } else {
    absl::StrAppend(&line_, " ", key, "=", value);
  }
  return *this;
}

RecordLine& RecordLine::AddNumber(std::string_view key, uint64_t value) {
  if (format_ == LogFormat::kJson) {
    absl::StrAppend(&line_, ",\"", key, "\":", value);
  } else {
    absl::StrAppend(&line_, " ", key, "=", value);
  }
  return *this;
}

std::string RecordLine::Finish() && {
  if (format_ == LogFormat::kJson) line_ += '}';
  return std::move(line_);
}

absl::StatusOr<std::unique_ptr<RecordLog>> RecordLog::Open(const std::string& flag,
                                                           const std::string& path,
                                                           LogFormat format, int stdout_fd) {
  absl::StatusOr<std::unique_ptr<LogLineFile>> file = LogLineFile::Open(flag, path, stdout_fd);
  if (!file.ok()) return file.status();
  return std::unique_ptr<RecordLog>(new RecordLog(format, *std::move(file)));
}

RecordLog::RecordLog(LogFormat format, std::unique_ptr<LogLineFile> file)
    : format_(format), file_(std::move(file)) {}

RecordLog::~RecordLog() = default;

void RecordLog::Write(std::string_view line) { file_->Write(line); }

}  // namespace neuronserve
