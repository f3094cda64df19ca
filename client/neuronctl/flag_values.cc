#include "client/neuronctl/flag_values.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/neuronctl/usage_error.h"

namespace neuronserve::neuronctl {
namespace {

absl::StatusOr<uint64_t> GetUnsigned(const ParsedArgs& args, absl::string_view name,
                                     uint64_t minimum) {
  absl::StatusOr<std::string> value = GetRequiredFlag(args, name);
  if (!value.ok()) return value.status();
  uint64_t number = 0;
  if (!ParsePlainDecimal(*value, &number) || number < minimum) {
    return UsageError(absl::StrCat("--", name, ": '", *value, "' is not ",
                                   minimum == 0 ? "a non-negative" : "a positive", " integer"));
  }
  return number;
}

}  // namespace

bool ParsePlainDecimal(absl::string_view text, uint64_t* number) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return absl::SimpleAtoi(text, number);
}

absl::StatusOr<std::string> GetRequiredFlag(const ParsedArgs& args, absl::string_view name) {
  std::optional<std::string> value = args.Get(name);
  if (!value.has_value()) return UsageError(absl::StrCat("--", name, " is required"));
  if (value->empty()) return UsageError(absl::StrCat("--", name, " needs a non-empty value"));
  return *std::move(value);
}

absl::StatusOr<absl::Duration> GetDurationFlag(const ParsedArgs& args, absl::string_view name) {
  absl::StatusOr<std::string> value = GetRequiredFlag(args, name);
  if (!value.ok()) return value.status();
  absl::Duration duration;
  if (!absl::ParseDuration(*value, &duration) || duration <= absl::ZeroDuration()) {
    return UsageError(absl::StrCat("--", name, ": '", *value,
                                   "' is not a positive duration (e.g. 30s, 500ms, 2m)"));
  }
  return duration;
}

absl::StatusOr<uint64_t> GetUnsignedFlag(const ParsedArgs& args, absl::string_view name) {
  return GetUnsigned(args, name, 0);
}

absl::StatusOr<uint64_t> GetPositiveFlag(const ParsedArgs& args, absl::string_view name) {
  return GetUnsigned(args, name, 1);
}

absl::StatusOr<std::vector<int64_t>> ParsePositiveList(absl::string_view name,
                                                       absl::string_view value, int64_t max_value) {
  std::vector<int64_t> numbers;
  for (absl::string_view item : absl::StrSplit(value, ',')) {
    uint64_t number = 0;
    if (!ParsePlainDecimal(item, &number) || number == 0) {
      return UsageError(absl::StrCat("--", name, ": '", value,
                                     "' is not a comma-separated list of positive integers ('",
                                     item, "' is not)"));
    }
    if (number > static_cast<uint64_t>(max_value)) {
      return UsageError(absl::StrCat("--", name, ": ", number, " in '", value,
                                     "' is above the limit of ", max_value));
    }
    numbers.push_back(static_cast<int64_t>(number));
  }
  return numbers;
}

}  // namespace neuronserve::neuronctl
