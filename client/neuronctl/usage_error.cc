#include "client/neuronctl/usage_error.h"

#include "absl/strings/cord.h"

namespace neuronserve::neuronctl {
namespace {

constexpr absl::string_view kUsageErrorPayload = "type.neuronserve.dev/neuronctl.UsageError";

}  // namespace

absl::Status UsageError(absl::string_view message) {
  return AsUsageError(absl::InvalidArgumentError(message));
}

absl::Status AsUsageError(absl::Status status) {
  if (!status.ok()) status.SetPayload(kUsageErrorPayload, absl::Cord("1"));
  return status;
}

bool IsUsageError(const absl::Status& status) {
  return status.GetPayload(kUsageErrorPayload).has_value();
}

}  // namespace neuronserve::neuronctl
