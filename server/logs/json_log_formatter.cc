#include "server/logs/json_log_formatter.h"

#include <cstdio>
#include <ctime>

namespace neuronserve {

std::string Rfc3339Millis(std::chrono::system_clock::time_point time) {
  const auto since_epoch = time.time_since_epoch();
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since_epoch);
  const int millis = static_cast<int>(
      std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch - seconds).count());
  const std::time_t whole = static_cast<std::time_t>(seconds.count());
  std::tm utc;
  gmtime_r(&whole, &utc);
  char text[80];  // room for any int the compiler cannot rule out (-Wformat-truncation)
  std::snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
  return text;
}

void AppendJsonLogLine(const JsonLogRecord& record, std::string& out) {
  out += "{\"time\":\"";
  out += Rfc3339Millis(record.time);
  out += "\",\"level\":\"";
  AppendJsonEscaped(record.level, out);
  out += "\",\"logger\":\"";
  AppendJsonEscaped(record.logger, out);
  out += "\",\"message\":\"";
  AppendJsonEscaped(record.message, out);
  out += record.continued ? "\",\"continued\":true}\n" : "\"}\n";
}

void JsonLogFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  const auto level = spdlog::level::to_string_view(msg.level);
  std::string line;
  AppendJsonLogLine({.time = msg.time,
                     .level = std::string_view(level.data(), level.size()),
                     .logger = std::string_view(msg.logger_name.data(), msg.logger_name.size()),
                     .message = std::string_view(msg.payload.data(), msg.payload.size())},
                    line);
  dest.append(line.data(), line.data() + line.size());
}

std::unique_ptr<spdlog::formatter> JsonLogFormatter::clone() const {
  return std::make_unique<JsonLogFormatter>();
}

}  // namespace neuronserve
