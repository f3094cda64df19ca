#include "tests/support/sanitizer_report.h"

#include <algorithm>

#include "absl/strings/ascii.h"

namespace neuronserve::testing {
namespace {

constexpr std::string_view kErrorMark = "==ERROR:";
constexpr std::string_view kThreadSanitizerMark = "WARNING: ThreadSanitizer:";

size_t LineStart(std::string_view log, size_t at) {
  const size_t newline = at == 0 ? std::string_view::npos : log.rfind('\n', at - 1);
  return newline == std::string_view::npos ? 0 : newline + 1;
}

// Where the first `==PID==ERROR:` begins (its first '='), or npos.
size_t FirstPidError(std::string_view log) {
  for (size_t at = log.find(kErrorMark); at != std::string_view::npos;
       at = log.find(kErrorMark, at + 1)) {
    size_t digits = at;
    while (digits > 0 && absl::ascii_isdigit(static_cast<unsigned char>(log[digits - 1]))) {
      --digits;
    }
    if (digits < at && digits >= 2 && log.substr(digits - 2, 2) == "==") return digits - 2;
  }
  return std::string_view::npos;
}

}  // namespace

std::string SanitizerReport(std::string_view log) {
  size_t from = FirstPidError(log);
  if (const size_t tsan = log.find(kThreadSanitizerMark); tsan != std::string_view::npos) {
    from = std::min(from, tsan);
  }
  if (from == std::string_view::npos) return "";
  return std::string(log.substr(LineStart(log, from)));
}

}  // namespace neuronserve::testing
