#include "server/json_log_formatter.h"

#include <cstdio>
#include <ctime>

namespace neuronserve {

void AppendJsonEscaped(std::string_view text, std::string& out) {
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned char>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
}

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

void JsonLogFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  std::string line = "{\"time\":\"";
  line += Rfc3339Millis(msg.time);
  line += "\",\"level\":\"";
  const auto level = spdlog::level::to_string_view(msg.level);
  line.append(level.data(), level.size());
  line += "\",\"logger\":\"";
  AppendJsonEscaped(std::string_view(msg.logger_name.data(), msg.logger_name.size()), line);
  line += "\",\"message\":\"";
  AppendJsonEscaped(std::string_view(msg.payload.data(), msg.payload.size()), line);
  line += "\"}\n";
  dest.append(line.data(), line.data() + line.size());
}

std::unique_ptr<spdlog::formatter> JsonLogFormatter::clone() const {
  return std::make_unique<JsonLogFormatter>();
}

}  // namespace neuronserve
