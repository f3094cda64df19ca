// JsonLogFormatter: spdlog lines as JSON objects, one per line (--log-format=json), for log
// collectors: {"time":"2026-12-03T06:10:05.123Z","level":"info","logger":"neuron-serve",
// "message":"..."}. Time is UTC with milliseconds; the message is escaped per RFC 8259.
#ifndef NEURON_SERVE_SERVER_JSON_LOG_FORMATTER_H_
#define NEURON_SERVE_SERVER_JSON_LOG_FORMATTER_H_

#include <memory>
#include <string>
#include <string_view>

#include "spdlog/formatter.h"

namespace neuronserve {

class JsonLogFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;
};

// Appends `text` to `out` as the inside of a JSON string (quotes, backslashes and control
// characters escaped; bytes >= 0x80 passed through).
void AppendJsonEscaped(std::string_view text, std::string& out);

// "2026-12-03T06:10:05.123Z" for a system_clock time.
std::string Rfc3339Millis(std::chrono::system_clock::time_point time);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_JSON_LOG_FORMATTER_H_
