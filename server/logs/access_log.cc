#include "server/logs/access_log.h"

#include <utility>

namespace neuronserve {
namespace {

int64_t Micros(absl::Duration duration) { return absl::ToInt64Microseconds(duration); }

}  // namespace

std::string AccessLog::Format(const AccessRecord& record, absl::Time now) const {
  RecordLine line = Line("access", now);
  line.Add("method", record.method)
      .Add("peer", record.peer)
      .AddUnlessEmptyInText("identity", record.identity)
      .AddUnlessEmptyInText("traceparent", record.traceparent)
      .Add("model", record.model)
      .Add("version", record.version)
      .Add("id", record.id)
      .AddCode("code", record.code)
      .AddNumber("queue_us", Micros(record.queued))
      .AddNumber("device_us", Micros(record.device))
      .AddNumber("total_us", Micros(record.total))
      .AddNumber("bytes_in", record.bytes_in)
      .AddNumber("bytes_out", record.bytes_out);
  if (record.batch_size > 0) {
    line.AddNumber("batch_rows", uint64_t{record.batch_rows})
        .AddNumber("batch_size", uint64_t{record.batch_size});
  }
  return std::move(line).Finish();
}

}  // namespace neuronserve
