// ModelRecord: the model store's on-disk record of one model, models/<name>/record.json (see
// model_store.h for the directory layout and the order of writes).
//
// record.json is one JSON object. Format 1, a model of one NEFF:
//   {"format": 1, "name": ..., "version": ..., "neff_file": "<sha16>-<unique>.neff",
//    "neff_size": <bytes>, "neff_sha256": "<64 hex>", "config_text": ..., "saved_at": RFC 3339}
// Format 2, a batched model (one NEFF per compiled variant, in the config's order):
//   {"format": 2, "name": ..., "version": ...,
//    "variants": [{"batch_size": 1, "neff_file": ..., "neff_size": ..., "neff_sha256": ...}, ...],
//    "config_text": ..., "saved_at": ...}
// A config_text that is not valid UTF-8 (JSON strings must be) is kept as "config_text_base64".
// "saved_at" is for people reading the file; the parser ignores it, and unknown fields.
//
// The writer uses the oldest format that holds the record, so a daemon rolled back to a build
// before batching still restores every model of one NEFF. A reader accepts the formats up to
// the one it was built for; a newer record is refused with both numbers named rather than
// misread. A change of the fields that an older reader would misread must raise
// kModelRecordFormat.
//
// Free functions on values: thread-safe.
#ifndef NEURON_SERVE_CORE_LIFECYCLE_MODEL_RECORD_H_
#define NEURON_SERVE_CORE_LIFECYCLE_MODEL_RECORD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace neuronserve {

// The newest format this build reads and writes.
inline constexpr int kModelRecordFormat = 2;
// The record's file name in its model directory.
inline constexpr char kModelRecordFileName[] = "record.json";
inline constexpr char kNeffFileSuffix[] = ".neff";

// One NEFF of a record.
struct RecordedNeff {
  // 0: the model's one NEFF (a model without batch variants); else the variant's batch size.
  uint32_t batch_size = 0;
  std::string file;  // a NEFF file name in the model's directory (IsNeffFileName)
  uint64_t size = 0;
  std::string sha256;  // 64 lower-case hex digits

  friend bool operator==(const RecordedNeff&, const RecordedNeff&) = default;
};

struct ModelRecord {
  std::string name;     // passes ValidateModelName
  std::string version;  // passes ValidateModelVersion; may be empty
  // One NEFF of batch_size 0, or the variants: each of batch_size >= 1, distinct.
  std::vector<RecordedNeff> neffs;
  std::string config_text;  // opaque: any bytes
};

// A NEFF file name as the store makes them, and the only kind a record may point to: one path
// component, not hidden, ending in ".neff".
bool IsNeffFileName(absl::string_view name);

// The record's JSON text (indented, ending in a newline), stamped with `saved_at`.
std::string SerializeModelRecord(const ModelRecord& record, absl::Time saved_at);

// Checks every field, so that a hand-edited or damaged record is refused with a reason ("not
// valid JSON", "field \"neff_file\" is not a NEFF file name", ...) instead of pointing the store
// at an arbitrary path. DATA_LOSS on every error.
absl::StatusOr<ModelRecord> ParseModelRecord(absl::string_view text);

// Reads and parses the record file at `path`. The file's errors are ReadFile's (NOT_FOUND when
// there is none); a parse error is prefixed with "bad record <path>: ".
absl::StatusOr<ModelRecord> ReadModelRecord(const std::string& path);

}  // namespace neuronserve

#endif  // NEURON_SERVE_CORE_LIFECYCLE_MODEL_RECORD_H_
