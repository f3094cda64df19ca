#include "server/logging.h"

#include "absl/strings/str_cat.h"
#include "server/json_log_formatter.h"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

namespace neuronserve {

absl::Status ParseLogFormat(const std::string& text, LogFormat* format) {
  if (text == "text") {
    *format = LogFormat::kText;
  } else if (text == "json") {
    *format = LogFormat::kJson;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--log-format='", text, "': expected text or json"));
  }
  return absl::OkStatus();
}

absl::Status ConfigureLogging(const std::string& level, LogFormat format) {
  const spdlog::level::level_enum parsed = spdlog::level::from_str(level);
  // from_str answers "off" for anything it does not know; only "off" itself may mean off.
  if (parsed == spdlog::level::off && level != "off") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--log-level='", level, "': expected trace, debug, info, warn, error, critical or off"));
  }
  auto logger = spdlog::stderr_logger_mt("neuron-serve");
  if (format == LogFormat::kJson) {
    logger->set_formatter(std::make_unique<JsonLogFormatter>());
  } else {
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  }
  logger->set_level(parsed);
  logger->flush_on(spdlog::level::trace);  // every line reaches a pipe at once
  spdlog::set_default_logger(std::move(logger));
  return absl::OkStatus();
}

}  // namespace neuronserve
