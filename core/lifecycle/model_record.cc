#include "core/lifecycle/model_record.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/lifecycle/model_name.h"
#include "nlohmann/json.hpp"
#include "util/posix_file.h"
#include "util/sha256.h"

namespace neuronserve {
namespace {

absl::Status BadField(absl::string_view field, absl::string_view why) {
  return absl::DataLossError(absl::StrCat("field \"", field, "\" ", why));
}

absl::Status StringField(const nlohmann::json& json, const char* field, std::string* out) {
  auto it = json.find(field);
  if (it == json.end()) return BadField(field, "is missing");
  if (!it->is_string()) return BadField(field, "is not a string");
  *out = it->get<std::string>();
  return absl::OkStatus();
}

}  // namespace

bool IsNeffFileName(absl::string_view name) {
  return name.size() > sizeof(kNeffFileSuffix) - 1 && absl::EndsWith(name, kNeffFileSuffix) &&
         name[0] != '.' && name.find('/') == absl::string_view::npos &&
         name.find('\0') == absl::string_view::npos;
}

std::string SerializeModelRecord(const ModelRecord& record, absl::Time saved_at) {
  nlohmann::json json = {
      {"format", kModelRecordFormat},
      {"name", record.name},
      {"version", record.version},
      {"neff_file", record.neff_file},
      {"neff_size", record.neff_size},
      {"neff_sha256", record.neff_sha256},
      {"config_text", record.config_text},
      {"saved_at", absl::FormatTime(absl::RFC3339_full, saved_at, absl::UTCTimeZone())},
  };
  try {
    return json.dump(2) + "\n";
  } catch (const nlohmann::json::exception&) {
    // JSON strings must be UTF-8; the store keeps config_text opaque, so fall back to base64.
    json.erase("config_text");
    json["config_text_base64"] = absl::Base64Escape(record.config_text);
    return json.dump(2) + "\n";
  }
}

absl::StatusOr<ModelRecord> ParseModelRecord(absl::string_view text) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return absl::DataLossError("not valid JSON");
  if (!json.is_object()) return absl::DataLossError("not a JSON object");
  auto format = json.find("format");
  if (format == json.end() || !format->is_number_integer()) return BadField("format", "is missing");
  if (*format != kModelRecordFormat) {
    return BadField("format", absl::StrCat("is ", format->dump(), "; this build reads format ",
                                           kModelRecordFormat));
  }
  ModelRecord record;
  for (auto [field, out] :
       {std::pair{"name", &record.name}, std::pair{"version", &record.version},
        std::pair{"neff_file", &record.neff_file}, std::pair{"neff_sha256", &record.neff_sha256}}) {
    if (absl::Status status = StringField(json, field, out); !status.ok()) return status;
  }
  if (absl::Status valid = ValidateModelName(record.name); !valid.ok()) {
    return BadField("name", valid.message());
  }
  if (absl::Status valid = ValidateModelVersion(record.version); !valid.ok()) {
    return BadField("version", valid.message());
  }
  if (!IsNeffFileName(record.neff_file)) return BadField("neff_file", "is not a NEFF file name");
  if (!IsSha256Hex(record.neff_sha256)) {
    return BadField("neff_sha256", "is not 64 lower-case hex digits");
  }
  auto size = json.find("neff_size");
  if (size == json.end() || !size->is_number_unsigned()) {
    return BadField("neff_size", "is missing or not a byte count");
  }
  record.neff_size = size->get<uint64_t>();
  if (json.contains("config_text")) {
    if (absl::Status status = StringField(json, "config_text", &record.config_text); !status.ok()) {
      return status;
    }
  } else {
    std::string encoded;
    if (!StringField(json, "config_text_base64", &encoded).ok()) {
      return BadField("config_text", "is missing");
    }
    if (!absl::Base64Unescape(encoded, &record.config_text)) {
      return BadField("config_text_base64", "is not base64");
    }
  }
  return record;
}

absl::StatusOr<ModelRecord> ReadModelRecord(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<ModelRecord> record = ParseModelRecord(*text);
  if (!record.ok()) {
    return absl::Status(record.status().code(),
                        absl::StrCat("bad record ", path, ": ", record.status().message()));
  }
  return record;
}

}  // namespace neuronserve
