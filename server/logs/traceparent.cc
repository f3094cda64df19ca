#include "server/logs/traceparent.h"

#include <cstddef>

namespace neuronserve {
namespace {

constexpr size_t kVersion00Length = 55;  // 2 + 1 + 32 + 1 + 16 + 1 + 2

bool IsLowerHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// `length` lowercase hex digits at `at`, not all of them '0' when `nonzero`.
bool HexField(std::string_view text, size_t at, size_t length, bool nonzero) {
  bool any_nonzero = false;
  for (size_t i = at; i < at + length; ++i) {
    if (!IsLowerHex(text[i])) return false;
    any_nonzero |= text[i] != '0';
  }
  return any_nonzero || !nonzero;
}

}  // namespace

std::string_view LoggableTraceparent(std::string_view header) {
  if (header.size() < kVersion00Length) return {};
  if (!HexField(header, 0, 2, /*nonzero=*/false) || header.substr(0, 2) == "ff") return {};
  const bool version00 = header.substr(0, 2) == "00";
  if (version00 ? header.size() != kVersion00Length
                : header.size() > kVersion00Length && header[kVersion00Length] != '-') {
    return {};
  }
  if (header[2] != '-' || header[35] != '-' || header[52] != '-') return {};
  if (!HexField(header, 3, 32, /*nonzero=*/true) || !HexField(header, 36, 16, /*nonzero=*/true) ||
      !HexField(header, 53, 2, /*nonzero=*/false)) {
    return {};
  }
  return header.substr(0, kVersion00Length);
}

}  // namespace neuronserve
