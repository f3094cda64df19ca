#include "server/logs/audit_log.h"

#include <utility>

namespace neuronserve {

std::string AuditLog::Format(const AuditRecord& record, absl::Time now) const {
  RecordLine line = Line("audit", now);
  line.Add("rpc", record.rpc)
      .Add("peer", record.peer)
      .Add("identity", record.identity)
      .Add("model", record.model);
  if (!record.region.empty()) line.Add("region", record.region);
  if (record.bytes.has_value()) line.AddNumber("bytes", *record.bytes);
  line.AddCode("code", record.code).Add("message", record.message);
  return std::move(line).Finish();
}

}  // namespace neuronserve
