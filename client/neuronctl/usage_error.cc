#include "client/neuronctl/usage_error.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"

namespace neuronserve::neuronctl {
namespace {

constexpr absl::string_view kExitCodePayload = "type.neuronserve.dev/neuronctl.ExitCode";

}  // namespace

ExitCode ExitCodeOf(const absl::Status& status) {
  if (status.ok()) return kExitSuccess;
  const auto payload = status.GetPayload(kExitCodePayload);
  int code = 0;
  if (payload.has_value() && absl::SimpleAtoi(std::string(*payload), &code) &&
      code > kExitSuccess && code <= kExitNotServing) {
    return static_cast<ExitCode>(code);
  }
  return kExitRuntimeFailure;
}

absl::Status WithExitCode(absl::Status status, ExitCode code) {
  if (!status.ok()) status.SetPayload(kExitCodePayload, absl::Cord(std::to_string(code)));
  return status;
}

absl::Status UsageError(absl::string_view message) {
  return AsUsageError(absl::InvalidArgumentError(message));
}

absl::Status AsUsageError(absl::Status status) {
  return WithExitCode(std::move(status), kExitUsageError);
}

bool IsUsageError(const absl::Status& status) { return ExitCodeOf(status) == kExitUsageError; }

}  // namespace neuronserve::neuronctl
