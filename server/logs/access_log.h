// AccessLog (--access-log=FILE, "-" for stdout): one line per inference request, in the log
// format of the daemon (text key=value pairs, or a JSON object per line), with the caller's
// identity (its client certificate's name or its token's label) and its W3C traceparent when it
// has them.
//
// The file, the format and the line's form are RecordLog's (record_log.h), which the audit log
// writes through too; this log has only its record and its fields. Lines are written by a
// background thread, so a slow disk never delays an answer; only when its queue of 16384 lines
// is full does a request thread wait.
//
// Thread safety: Record may be called from any thread. Ownership: a RecordLog (its base), which
// owns the file and its writer thread.
#ifndef NEURON_SERVE_SERVER_LOGS_ACCESS_LOG_H_
#define NEURON_SERVE_SERVER_LOGS_ACCESS_LOG_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/logs/logging.h"
#include "server/logs/record_log.h"

namespace neuronserve {

struct AccessRecord {
  std::string_view method;  // "Infer", "InferStream"
  std::string_view peer;    // gRPC's peer string, e.g. "ipv4:127.0.0.1:50312"
  // The caller's name (server/grpc/call_guard.h); empty when it has none, and then left out of
  // text lines.
  std::string_view identity;
  // The request's W3C traceparent, checked (LoggableTraceparent); empty when it sent none or an
  // invalid one, and then left out of text lines.
  std::string_view traceparent;
  std::string_view model;
  std::string_view version;
  std::string_view id;
  absl::StatusCode code = absl::StatusCode::kOk;
  absl::Duration queued;
  absl::Duration device;
  absl::Duration total;
  uint64_t bytes_in = 0;
  uint64_t bytes_out = 0;
  // A batched model's request: the rows of the execution it ran in and its variant's batch
  // size (ExecutionTiming's); written only when batch_size > 0.
  uint32_t batch_rows = 0;
  uint32_t batch_size = 0;
};

class AccessLog final : public RecordLog {
 public:
  // Opens (appends to) `path`, or for "-" a duplicate of `stdout_fd`: the process's real
  // standard output, which is not fd 1 while OutputCapture holds it. UNAVAILABLE naming the
  // path when it cannot.
  static absl::StatusOr<std::unique_ptr<AccessLog>> Open(const std::string& path, LogFormat format,
                                                         int stdout_fd = 1) {
    return OpenAs<AccessLog>("--access-log", path, format, stdout_fd);
  }

  void Record(const AccessRecord& record) { Write(Format(record, absl::Now())); }
  // The line Record writes (without the newline), for tests.
  std::string Format(const AccessRecord& record, absl::Time now) const;

 private:
  friend class RecordLog;  // OpenAs makes it
  using RecordLog::RecordLog;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_LOGS_ACCESS_LOG_H_
