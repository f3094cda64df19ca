#include "sim/text_parse.h"

#include <array>
#include <limits>
#include <vector>

#include "base/nrt_status_names.h"

namespace neuronserve::nrtsim {

std::optional<uint64_t> ParseUnsigned(std::string_view text) {
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::optional<uint64_t> ParseByteSize(std::string_view text) {
  struct Suffix {
    std::string_view name;
    uint64_t multiplier;
  };
  constexpr std::array<Suffix, 3> kSuffixes = {{
      {"KiB", uint64_t{1} << 10},
      {"MiB", uint64_t{1} << 20},
      {"GiB", uint64_t{1} << 30},
  }};
  uint64_t multiplier = 1;
  for (const Suffix& suffix : kSuffixes) {
    if (text.ends_with(suffix.name)) {
      text.remove_suffix(suffix.name.size());
      multiplier = suffix.multiplier;
      break;
    }
  }
  std::optional<uint64_t> count = ParseUnsigned(text);
  if (!count) return std::nullopt;
  if (*count > std::numeric_limits<uint64_t>::max() / multiplier) return std::nullopt;
  return *count * multiplier;
}

std::string RuntimeVersion::ToString() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch) +
         (maintenance != 0 ? "." + std::to_string(maintenance) : "");
}

std::optional<RuntimeVersion> ParseRuntimeVersion(std::string_view text) {
  std::vector<uint64_t> parts;
  while (true) {
    size_t dot = text.find('.');
    std::optional<uint64_t> part = ParseUnsigned(text.substr(0, dot));
    if (!part) return std::nullopt;
    parts.push_back(*part);
    if (dot == std::string_view::npos) break;
    text.remove_prefix(dot + 1);
  }
  if (parts.size() < 3 || parts.size() > 4) return std::nullopt;
  RuntimeVersion version;
  version.major = parts[0];
  version.minor = parts[1];
  version.patch = parts[2];
  if (parts.size() == 4) version.maintenance = parts[3];
  return version;
}

std::optional<NRT_STATUS> ParseNrtStatus(std::string_view text) {
  if (std::optional<NRT_STATUS> named = NrtStatusFromName(text)) return named;
  std::optional<uint64_t> number = ParseUnsigned(text);
  if (!number || *number > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return std::nullopt;
  }
  return static_cast<NRT_STATUS>(static_cast<int32_t>(*number));
}

}  // namespace neuronserve::nrtsim
