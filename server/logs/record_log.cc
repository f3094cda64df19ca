#include "server/logs/record_log.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/logs/json_log_formatter.h"

namespace neuronserve {

RecordLine::RecordLine(LogFormat format, std::string_view type, absl::Time time) : format_(format) {
  line_.reserve(256);
  const std::string stamp = Rfc3339Millis(absl::ToChronoTime(time));
  if (format_ == LogFormat::kJson) {
    absl::StrAppend(&line_, "{\"time\":\"", stamp, "\",\"type\":\"");
    line_.append(type);
    line_ += '"';
  } else {
    absl::StrAppend(&line_, stamp, " ");
    line_.append(type);
  }
}

void RecordLine::AppendKey(std::string_view key) {
  // Keys are the logs' own words (no escaping needed): ,"key": in JSON, " key=" in text.
  line_ += format_ == LogFormat::kJson ? ",\"" : " ";
  line_.append(key);
  line_ += format_ == LogFormat::kJson ? "\":" : "=";
}

RecordLine& RecordLine::Add(std::string_view key, std::string_view value) {
  AppendKey(key);
  if (format_ == LogFormat::kJson) {
    line_ += '"';
    AppendJsonEscaped(value, line_);
    line_ += '"';
  } else {
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
  AppendKey(key);
  absl::StrAppend(&line_, value);
  return *this;
}

RecordLine& RecordLine::AddNumber(std::string_view key, uint64_t value) {
  AppendKey(key);
  absl::StrAppend(&line_, value);
  return *this;
}

std::string RecordLine::Finish() && {
  if (format_ == LogFormat::kJson) line_ += '}';
  return std::move(line_);
}

RecordLog::RecordLog(LogFormat format, std::unique_ptr<LogLineFile> file)
    : format_(format), file_(std::move(file)) {}

RecordLog::~RecordLog() = default;

void RecordLog::Write(std::string_view line) { file_->Write(line); }

}  // namespace neuronserve
