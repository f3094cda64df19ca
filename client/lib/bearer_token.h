// The bearer token a Client sends on every call, from ConnectOptions.token or token_file.
#ifndef NEURON_SERVE_CLIENT_LIB_BEARER_TOKEN_H_
#define NEURON_SERVE_CLIENT_LIB_BEARER_TOKEN_H_

#include <string>

#include "absl/status/statusor.h"
#include "client/lib/connect_options.h"

namespace neuronserve::client {

// The metadata key; gRPC requires lower case.
inline constexpr char kAuthorizationKey[] = "authorization";

// The token ("" when neither option is set). The file is read now, once: a token rotated on
// disk takes effect at the next Connect, not halfway through a client's life. Trailing
// whitespace is stripped. INVALID_ARGUMENT for both options at once, an empty file, or a token
// that is not printable ASCII (gRPC would refuse it as a header value on every call, far from
// the cause); the file's NOT_FOUND / PERMISSION_DENIED name its path.
absl::StatusOr<std::string> LoadBearerToken(const ConnectOptions& options);

// "Bearer <token>".
std::string AuthorizationValue(const std::string& token);

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_BEARER_TOKEN_H_
