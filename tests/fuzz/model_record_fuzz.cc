// libFuzzer target: a model store record (record.json, ParseModelRecord), as the daemon reads it
// back at start, of either format (one NEFF, or a batched model's variants). Checks, besides the
// sanitizers: a record that parses is serialized again (SerializeModelRecord) and that text
// parses to the same record.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/time/time.h"
#include "core/lifecycle/model_record.h"

namespace {

void Require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<neuronserve::ModelRecord> record = neuronserve::ParseModelRecord(text);
  if (!record.ok()) {
    Require(!record.status().message().empty());
    return 0;
  }
  // A fixed time: the target must be deterministic.
  const std::string again = neuronserve::SerializeModelRecord(*record, absl::UnixEpoch());
  const absl::StatusOr<neuronserve::ModelRecord> reread = neuronserve::ParseModelRecord(again);
  Require(reread.ok());
  Require(reread->name == record->name && reread->version == record->version &&
          reread->neffs == record->neffs && reread->config_text == record->config_text);
  return 0;
}
