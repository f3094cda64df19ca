// LogCapture: collects what the default spdlog logger writes while it exists, so unit tests can
// assert the daemon's log lines (the same lines the end-to-end tests read from stderr).
//
// Thread safety: construct, destroy and read text() while no other thread logs (the tests call
// the code under test on their own thread). Restores the logger's sinks and level on
// destruction.
#ifndef NEURON_SERVE_TESTS_SERVER_LOG_CAPTURE_H_
#define NEURON_SERVE_TESTS_SERVER_LOG_CAPTURE_H_

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "spdlog/sinks/sink.h"
#include "spdlog/spdlog.h"

namespace neuronserve::testing {

class LogCapture {
 public:
  LogCapture();
  ~LogCapture();
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  // Every line so far, as "LEVEL MESSAGE\n" (e.g. "warning health: NOT_SERVING (...)").
  std::string text() const;

 private:
  std::ostringstream stream_;  // written by the sink, which the destructor detaches first
  std::vector<spdlog::sink_ptr> saved_sinks_;
  spdlog::level::level_enum saved_level_;
};

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SERVER_LOG_CAPTURE_H_
