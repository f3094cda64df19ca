// FdLogSink: an spdlog sink that writes each formatted line with write(2) to its own duplicate
// of a file descriptor.
//
// Why not spdlog's stdout/stderr sinks: those write to the FILE* of fd 1 or 2, and with
// --log-format=json OutputCapture points fds 1 and 2 at its forwarder. The daemon's log and the
// access log's "-" must keep writing to the streams the process was started with, so they
// hold duplicates taken from those. One write per line also keeps lines whole when other
// writers share the stream.
//
// Thread-safe (spdlog's base_sink mutex). Owns the duplicate; closes it when destroyed.
#ifndef NEURON_SERVE_SERVER_LOGS_FD_LOG_SINK_H_
#define NEURON_SERVE_SERVER_LOGS_FD_LOG_SINK_H_

#include <memory>
#include <mutex>

#include "absl/status/statusor.h"
#include "spdlog/sinks/base_sink.h"

namespace neuronserve {

class FdLogSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  // A sink writing to a duplicate of `fd` (close-on-exec). INTERNAL if it cannot be duplicated.
  static absl::StatusOr<std::shared_ptr<FdLogSink>> Duplicate(int fd);
  ~FdLogSink() override;
  FdLogSink(const FdLogSink&) = delete;
  FdLogSink& operator=(const FdLogSink&) = delete;

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override {}  // nothing is buffered

 private:
  explicit FdLogSink(int owned_fd) : fd_(owned_fd) {}
  const int fd_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_LOGS_FD_LOG_SINK_H_
