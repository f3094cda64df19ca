// JsonLogFormatter: spdlog lines as JSON objects, one per line (--log-format=json), for log
// collectors: {"time":"2026-12-03T06:10:05.123Z","level":"info","logger":"neuron-serve",
// "message":"..."}. Time is UTC with milliseconds; the message is escaped per RFC 8259.
//
// AppendJsonLogLine is the one writer of that line: the formatter uses it for spdlog's records,
// and the output-capture forwarder (a forked process without spdlog) for the runtime's lines.
#ifndef NEURON_SERVE_SERVER_LOGS_JSON_LOG_FORMATTER_H_
#define NEURON_SERVE_SERVER_LOGS_JSON_LOG_FORMATTER_H_

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "spdlog/formatter.h"
#include "util/json_escape.h"

namespace neuronserve {

class JsonLogFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;
};

struct JsonLogRecord {
  std::chrono::system_clock::time_point time;
  std::string_view level;  // spdlog's names: "trace", "debug", "info", "warning", "error", ...
  std::string_view logger;
  std::string_view message;
  // The message is one piece of a line too long for one record; the next record of the same
  // logger goes on with it. Written as "continued":true, and left out when false.
  bool continued = false;
};

// Appends the record's JSON object and a newline to `out`.
void AppendJsonLogLine(const JsonLogRecord& record, std::string& out);

// "2026-12-03T06:10:05.123Z" for a system_clock time.
std::string Rfc3339Millis(std::chrono::system_clock::time_point time);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_LOGS_JSON_LOG_FORMATTER_H_
