#include "core/lifecycle/model_record.h"

#include <cstdint>
#include <limits>
#include <string>
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

// `prefix` names where `json` is in the record, for the message ("variants[1].").
absl::Status StringField(const nlohmann::json& json, const char* field, std::string* out,
                         const std::string& prefix = "") {
  auto it = json.find(field);
  if (it == json.end()) return BadField(prefix + field, "is missing");
  if (!it->is_string()) return BadField(prefix + field, "is not a string");
  *out = it->get<std::string>();
  return absl::OkStatus();
}

// The NEFF fields of a format 1 record (`prefix` empty) or of one of a format 2 record's
// variants (`prefix` "variants[i].", for the messages); batch_size is the caller's.
absl::StatusOr<RecordedNeff> ParseNeff(const nlohmann::json& json, const std::string& prefix) {
  RecordedNeff neff;
  if (absl::Status status = StringField(json, "neff_file", &neff.file, prefix); !status.ok()) {
    return status;
  }
  if (absl::Status status = StringField(json, "neff_sha256", &neff.sha256, prefix); !status.ok()) {
    return status;
  }
  if (!IsNeffFileName(neff.file)) return BadField(prefix + "neff_file", "is not a NEFF file name");
  if (!IsSha256Hex(neff.sha256)) {
    return BadField(prefix + "neff_sha256", "is not 64 lower-case hex digits");
  }
  auto size = json.find("neff_size");
  if (size == json.end() || !size->is_number_unsigned()) {
    return BadField(prefix + "neff_size", "is missing or not a byte count");
  }
  neff.size = size->get<uint64_t>();
  return neff;
}

}  // namespace

bool IsNeffFileName(absl::string_view name) {
  return name.size() > sizeof(kNeffFileSuffix) - 1 && absl::EndsWith(name, kNeffFileSuffix) &&
         name[0] != '.' && name.find('/') == absl::string_view::npos &&
         name.find('\0') == absl::string_view::npos;
}

std::string SerializeModelRecord(const ModelRecord& record, absl::Time saved_at) {
  nlohmann::json json = {{"name", record.name}, {"version", record.version}};
  const bool one_neff = record.neffs.size() == 1 && record.neffs.front().batch_size == 0;
  if (one_neff) {
    const RecordedNeff& neff = record.neffs.front();
    json["format"] = 1;
    json["neff_file"] = neff.file;
    json["neff_size"] = neff.size;
    json["neff_sha256"] = neff.sha256;
  } else {
    json["format"] = 2;
    nlohmann::json variants = nlohmann::json::array();
    for (const RecordedNeff& neff : record.neffs) {
      variants.push_back({{"batch_size", neff.batch_size},
                          {"neff_file", neff.file},
                          {"neff_size", neff.size},
                          {"neff_sha256", neff.sha256}});
    }
    json["variants"] = std::move(variants);
  }
  json["config_text"] = record.config_text;
  json["saved_at"] = absl::FormatTime(absl::RFC3339_full, saved_at, absl::UTCTimeZone());
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
  if (*format < 1 || *format > kModelRecordFormat) {
    return BadField("format", absl::StrCat("is ", format->dump(),
                                           "; this build reads formats 1 to ", kModelRecordFormat));
  }
  ModelRecord record;
  for (auto [field, out] :
       {std::pair{"name", &record.name}, std::pair{"version", &record.version}}) {
    if (absl::Status status = StringField(json, field, out); !status.ok()) return status;
  }
  if (absl::Status valid = ValidateModelName(record.name); !valid.ok()) {
    return BadField("name", valid.message());
  }
  if (absl::Status valid = ValidateModelVersion(record.version); !valid.ok()) {
    return BadField("version", valid.message());
  }
  if (*format == 1) {
    absl::StatusOr<RecordedNeff> neff = ParseNeff(json, "");
    if (!neff.ok()) return neff.status();
    record.neffs.push_back(*std::move(neff));
  } else {
    auto variants = json.find("variants");
    if (variants == json.end() || !variants->is_array() || variants->empty()) {
      return BadField("variants", "is missing or not a list of variants");
    }
    for (size_t i = 0; i < variants->size(); ++i) {
      const nlohmann::json& variant = (*variants)[i];
      const std::string where = absl::StrCat("variants[", i, "].");
      if (!variant.is_object())
        return BadField(absl::StrCat("variants[", i, "]"), "is not an object");
      absl::StatusOr<RecordedNeff> neff = ParseNeff(variant, where);
      if (!neff.ok()) return neff.status();
      auto batch_size = variant.find("batch_size");
      const uint64_t rows = batch_size != variant.end() && batch_size->is_number_unsigned()
                                ? batch_size->get<uint64_t>()
                                : 0;
      if (rows == 0 || rows > std::numeric_limits<uint32_t>::max()) {
        return BadField(where + "batch_size", "is missing or not a batch size (1 or more)");
      }
      neff->batch_size = static_cast<uint32_t>(rows);
      for (const RecordedNeff& earlier : record.neffs) {
        if (earlier.batch_size == neff->batch_size) {
          return BadField(where + "batch_size", absl::StrCat("repeats ", neff->batch_size));
        }
      }
      record.neffs.push_back(*std::move(neff));
    }
  }
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
