#include "client/neuronctl/bench/concurrency_range.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/neuronctl/flag_values.h"
#include "client/neuronctl/usage_error.h"

namespace neuronserve::neuronctl {
namespace {

constexpr absl::string_view kFlag = "--concurrency-range";

absl::Status RangeError(absl::string_view value, absl::string_view why) {
  return UsageError(absl::StrCat(kFlag, ": '", value, "' ", why));
}

}  // namespace

absl::StatusOr<std::vector<uint32_t>> ParseConcurrencyRange(absl::string_view value) {
  const std::vector<absl::string_view> parts = absl::StrSplit(value, ':');
  if (parts.size() > 3) {
    return RangeError(value, "is not START[:END[:STEP]] (e.g. 1:16:x2 or 4:32:4)");
  }
  uint64_t start = 0;
  if (!ParsePlainDecimal(parts[0], &start) || start == 0) {
    return RangeError(value, absl::StrCat("has START '", parts[0], "', not a positive integer"));
  }
  uint64_t end = start;
  if (parts.size() >= 2 && (!ParsePlainDecimal(parts[1], &end) || end == 0)) {
    return RangeError(value, absl::StrCat("has END '", parts[1], "', not a positive integer"));
  }
  if (end < start) return RangeError(value, "has END below START");
  if (end > kMaxConcurrency) {
    return RangeError(value, absl::StrCat("goes above the limit of ", kMaxConcurrency));
  }

  bool multiply = false;
  uint64_t step = 1;
  if (parts.size() == 3) {
    absl::string_view step_text = parts[2];
    multiply = absl::ConsumePrefix(&step_text, "x");
    if (!ParsePlainDecimal(step_text, &step) || step == 0 || (multiply && step == 1)) {
      return RangeError(value, absl::StrCat("has STEP '", parts[2],
                                            "', neither N >= 1 (add N) nor xF with F >= 2 "
                                            "(multiply by F)"));
    }
  }

  // Any step past kMaxConcurrency leaves START alone; clamping it keeps level * step far from
  // overflowing.
  step = std::min<uint64_t>(step, kMaxConcurrency + 1);
  std::vector<uint32_t> levels;
  for (uint64_t level = start; level <= end; level = multiply ? level * step : level + step) {
    levels.push_back(static_cast<uint32_t>(level));
  }
  return levels;
}

}  // namespace neuronserve::neuronctl
