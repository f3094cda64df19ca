// Conversions of flag values to numbers and lists, with usage errors that name the flag and
// quote the bad value ("--batch: '0' is not a positive integer").
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_FLAG_VALUES_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_FLAG_VALUES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "client/neuronctl/args.h"

namespace neuronserve::neuronctl {

// The bound of every flag that counts NeuronCores or names one: more cores than any instance
// has (trn2.48xlarge: 128 physical), so a larger count, or an index at or above it, is a typo.
inline constexpr uint64_t kMaxCoreCount = 1024;

// `text` as a number if it is plain decimal digits that fit: absl::SimpleAtoi alone would also
// take "+5" and surrounding spaces, and a flag value should be exactly what the help shows.
bool ParsePlainDecimal(absl::string_view text, uint64_t* number);

// The flag's value (or default) as an integer >= 0 / >= 1; a usage error when it is absent,
// not a decimal integer, or out of range.
absl::StatusOr<uint64_t> GetUnsignedFlag(const ParsedArgs& args, absl::string_view name);
absl::StatusOr<uint64_t> GetPositiveFlag(const ParsedArgs& args, absl::string_view name);

// "16,32,8" -> {16, 32, 8}: a comma-separated list of positive integers, each at most
// `max_value`.
absl::StatusOr<std::vector<int64_t>> ParsePositiveList(absl::string_view name,
                                                       absl::string_view value, int64_t max_value);

// The flag's value (or default) as a duration ("30s", "500ms", "2m", "1h30m"); a usage error
// when it is absent, malformed or not positive.
absl::StatusOr<absl::Duration> GetDurationFlag(const ParsedArgs& args, absl::string_view name);

// The flag's value (or default); a usage error when it is absent or empty.
absl::StatusOr<std::string> GetRequiredFlag(const ParsedArgs& args, absl::string_view name);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_FLAG_VALUES_H_
