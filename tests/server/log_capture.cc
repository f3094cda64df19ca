#include "tests/server/log_capture.h"

#include "spdlog/sinks/ostream_sink.h"

namespace neuronserve::testing {

LogCapture::LogCapture()
    : saved_sinks_(spdlog::default_logger()->sinks()),
      saved_level_(spdlog::default_logger()->level()) {
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(stream_, /*force_flush=*/true);
  sink->set_pattern("%l %v");
  spdlog::default_logger()->sinks() = {sink};
  spdlog::default_logger()->set_level(spdlog::level::trace);
}

LogCapture::~LogCapture() {
  spdlog::default_logger()->sinks() = saved_sinks_;
  spdlog::default_logger()->set_level(saved_level_);
}

std::string LogCapture::text() const { return stream_.str(); }

}  // namespace neuronserve::testing
