#include "client/lib/grpc_status.h"

#include "absl/strings/str_cat.h"

namespace neuronserve::client {

absl::Status FromGrpcStatus(const grpc::Status& status) {
  return FromCodeAndMessage(static_cast<int32_t>(status.error_code()), status.error_message());
}

absl::Status FromCodeAndMessage(int32_t code, absl::string_view message) {
  if (code == 0) return absl::OkStatus();
  // absl::Status keeps a number outside the canonical range as its raw code (code() maps it to
  // UNKNOWN), so nothing the server sent is lost.
  return absl::Status(static_cast<absl::StatusCode>(code), message);
}

absl::Status FromCallStatus(const grpc::Status& status, grpc::Channel& channel,
                            absl::string_view target) {
  absl::Status converted = FromGrpcStatus(status);
  if (converted.code() != absl::StatusCode::kUnavailable) return converted;
  if (channel.GetState(/*try_to_connect=*/false) == GRPC_CHANNEL_READY) return converted;
  return absl::UnavailableError(
      absl::StrCat("cannot reach neuron-serve at ", target, ": ", status.error_message()));
}

}  // namespace neuronserve::client
