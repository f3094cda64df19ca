#include "core/serving/model/version_number.h"

#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "util/sha256.h"

namespace neuronserve {
namespace {

// Labels this long or shorter that are plain decimals stay themselves: the hashed numbers have
// 16 digits, so the two ranges cannot meet.
constexpr size_t kMaxPlainDigits = 15;
constexpr uint64_t kHashedBase = 1000000000000000ULL;   // 10^15
constexpr uint64_t kHashedRange = 8000000000000000ULL;  // up to 9 * 10^15 < 2^53

bool IsPlainDecimal(absl::string_view label) {
  if (label.empty() || label.size() > kMaxPlainDigits) return false;
  if (label.size() > 1 && label[0] == '0') return false;
  for (char c : label) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

uint64_t HexDigit(char c) {
  return c <= '9' ? static_cast<uint64_t>(c - '0') : static_cast<uint64_t>(c - 'a' + 10);
}

}  // namespace

std::string VersionNumber(absl::string_view label) {
  if (label.empty()) return "1";
  if (IsPlainDecimal(label)) return std::string(label);
  Sha256 digest;
  digest.Update(label);
  const std::string hex = digest.FinalHex();
  uint64_t leading = 0;
  for (size_t i = 0; i < 16; ++i) leading = (leading << 4) | HexDigit(hex[i]);
  return absl::StrCat(kHashedBase + leading % kHashedRange);
}

bool NamesVersion(absl::string_view asked, absl::string_view label) {
  if (asked.empty() || asked == label) return true;
  return asked == VersionNumber(label);
}

bool IsVersionNumberForm(absl::string_view asked) {
  if (asked.empty()) return false;
  for (char c : asked) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string DescribeVersion(absl::string_view label) {
  if (label.empty()) return "1 (no label)";
  if (IsPlainDecimal(label)) return absl::StrCat("'", label, "'");
  return absl::StrCat("'", label, "' (number ", VersionNumber(label), ")");
}

}  // namespace neuronserve
