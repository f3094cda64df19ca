// AuditLog (--audit-log=FILE, "-" for stdout): one line per admin call (LoadModel, UnloadModel:
// what was asked, by whom, and how it ended) and per shared-memory registration change, and one per
// refused authentication on any RPC, in the log format of the daemon (text key=value pairs, or a
// JSON object per line):
//
//   2026-12-04T11:30:05.123Z audit rpc=LoadModel peer=ipv4:10.0.0.7:50312 identity=ci
//       model=resnet code=OK message=""
//
// Fields: time, rpc, peer, identity (the client certificate's name or the token's label; ""
// when the caller has none), model ("" when the call never named one), region (only on the
// shared-memory register and unregister calls, which are audited too: the region's name, never
// its key; "*" for all), bytes (only on an upload: the NEFF bytes a LoadModel stream carried,
// or a RepositoryModelLoad's `file:` parameters' decoded bytes together), code and message (the status the caller got). A token never appears: the
// authority's messages name a token by its label only.
//
// The file, the format and the line's form are RecordLog's (record_log.h), shared with the
// access log; this log has only its record and its fields.
//
// Thread safety: Record may be called from any thread. Ownership: a RecordLog (its base), whose
// background thread writes the lines.
#ifndef NEURON_SERVE_SERVER_LOGS_AUDIT_LOG_H_
#define NEURON_SERVE_SERVER_LOGS_AUDIT_LOG_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/logs/logging.h"
#include "server/logs/record_log.h"

namespace neuronserve {

struct AuditRecord {
  std::string_view rpc;       // "LoadModel"
  std::string_view peer;      // gRPC's peer string
  std::string_view identity;  // empty: none
  std::string_view model;     // empty: not known
  std::string_view region;    // a shared-memory call's region ("*" for all); empty: no field
  absl::StatusCode code = absl::StatusCode::kOk;
  std::string_view message;
  // An upload's bytes (LoadModel's chunks, or RepositoryModelLoad's `file:` parameters,
  // decoded); unset: no field.
  std::optional<uint64_t> bytes;
};

class AuditLog final : public RecordLog {
 public:
  // As AccessLog::Open, for --audit-log.
  static absl::StatusOr<std::unique_ptr<AuditLog>> Open(const std::string& path, LogFormat format,
                                                        int stdout_fd = 1) {
    return OpenAs<AuditLog>("--audit-log", path, format, stdout_fd);
  }

  void Record(const AuditRecord& record) { Write(Format(record, absl::Now())); }
  // The line Record writes (without the newline), for tests.
  std::string Format(const AuditRecord& record, absl::Time now) const;

 private:
  friend class RecordLog;  // OpenAs makes it
  using RecordLog::RecordLog;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_LOGS_AUDIT_LOG_H_
