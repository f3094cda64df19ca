#include "server/logs/logging.h"

#include <grpc/support/log.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "server/logs/fd_log_sink.h"
#include "server/logs/json_log_formatter.h"
#include "spdlog/spdlog.h"

namespace neuronserve {
namespace {

constexpr char kTextPattern[] = "%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v";
// gRPC's lines name their logger, so that they are not mistaken for the daemon's.
constexpr char kGrpcTextPattern[] = "%Y-%m-%dT%H:%M:%S.%e %^%l%$ grpc: %v";

// Never destroyed: gRPC may log from its threads while the process exits.
std::atomic<spdlog::logger*> grpc_logger{nullptr};

void LogGrpcLine(gpr_log_func_args* args) {
  spdlog::logger* logger = grpc_logger.load(std::memory_order_acquire);
  if (logger == nullptr || args == nullptr) return;
  spdlog::level::level_enum level = spdlog::level::info;
  switch (args->severity) {
    case GPR_LOG_SEVERITY_DEBUG:
      level = spdlog::level::debug;
      break;
    case GPR_LOG_SEVERITY_INFO:
      level = spdlog::level::info;
      break;
    case GPR_LOG_SEVERITY_ERROR:
      level = spdlog::level::err;
      break;
  }
  std::string_view file = args->file != nullptr ? args->file : "";
  if (const size_t slash = file.rfind('/'); slash != std::string_view::npos) {
    file.remove_prefix(slash + 1);
  }
  logger->log(level, "{}:{}: {}", file, args->line, args->message != nullptr ? args->message : "");
}

// What gRPC itself prints, one step below the --log-level: gRPC's INFO lines are its internals
// (polling engine, pollers, connection events), detail for debugging rather than the lifecycle
// events the daemon logs at info, so the default (info) keeps gRPC's own default, ERROR.
gpr_log_severity GrpcVerbosity(spdlog::level::level_enum level) {
  if (level <= spdlog::level::trace) return GPR_LOG_SEVERITY_DEBUG;
  if (level == spdlog::level::debug) return GPR_LOG_SEVERITY_INFO;
  return GPR_LOG_SEVERITY_ERROR;
}

}  // namespace

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
  absl::StatusOr<std::shared_ptr<FdLogSink>> sink = FdLogSink::Duplicate(STDERR_FILENO);
  if (!sink.ok()) return sink.status();
  auto logger = std::make_shared<spdlog::logger>("neuron-serve", *sink);
  // The sink keeps one formatter for every logger on it, so the gRPC logger needs its own sink
  // for its own text pattern; both share fd 2's file description, one write(2) per line.
  absl::StatusOr<std::shared_ptr<FdLogSink>> grpc_sink = FdLogSink::Duplicate(STDERR_FILENO);
  if (!grpc_sink.ok()) return grpc_sink.status();
  auto* grpc = new spdlog::logger("grpc", *grpc_sink);
  if (format == LogFormat::kJson) {
    logger->set_formatter(std::make_unique<JsonLogFormatter>());
    grpc->set_formatter(std::make_unique<JsonLogFormatter>());
  } else {
    logger->set_pattern(kTextPattern);
    grpc->set_pattern(kGrpcTextPattern);
  }
  logger->set_level(parsed);
  // gRPC's verbosity chooses what gRPC hands over; --log-level=off silences it here too.
  grpc->set_level(parsed == spdlog::level::off ? spdlog::level::off : spdlog::level::trace);
  logger->flush_on(spdlog::level::trace);  // every line reaches a pipe at once
  spdlog::set_default_logger(std::move(logger));
  // A logger of an earlier call (tests) is leaked on purpose: a gRPC thread may still use it.
  grpc_logger.store(grpc, std::memory_order_release);
  gpr_set_log_function(&LogGrpcLine);
  const char* grpc_verbosity = std::getenv("GRPC_VERBOSITY");
  if (grpc_verbosity == nullptr || *grpc_verbosity == '\0') {
    gpr_set_log_verbosity(GrpcVerbosity(parsed));
  }
  return absl::OkStatus();
}

}  // namespace neuronserve
