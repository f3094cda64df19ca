// The flags every neuronctl subcommand that talks to a daemon shares (--server, --tls*,
// --token-file, --timeout) and the client::Client they describe.
#ifndef NEURON_SERVE_CLIENT_NEURONCTL_CONNECTION_FLAGS_H_
#define NEURON_SERVE_CLIENT_NEURONCTL_CONNECTION_FLAGS_H_

#include <array>
#include <memory>

#include "absl/status/statusor.h"
#include "client/lib/client.h"
#include "client/neuronctl/args.h"
#include "client/neuronctl/output_format.h"

namespace neuronserve::neuronctl {

inline constexpr auto kConnectionFlags = std::to_array<FlagSpec>({
    {"server", FlagType::kValue, "HOST:PORT", "127.0.0.1:8001",
     "the daemon: host:port or a gRPC target such as dns:///name:port"},
    {"tls", FlagType::kBoolean, "", "", "connect with TLS (implied by any --tls-* flag)"},
    {"tls-ca", FlagType::kValue, "FILE", "", "PEM roots to trust (default: the system's)"},
    {"tls-cert", FlagType::kValue, "FILE", "", "PEM client certificate, for mutual TLS"},
    {"tls-key", FlagType::kValue, "FILE", "", "PEM key of --tls-cert"},
    {"tls-server-name", FlagType::kValue, "NAME", "", "name to expect in the server's certificate"},
    {"token-file", FlagType::kValue, "FILE", "", "file holding a bearer token to send"},
    {"timeout", FlagType::kValue, "DURATION", "30s", "deadline of each call"},
});

// A command's flag table: its own flags, then the connection flags and --output.
template <size_t N>
constexpr std::array<FlagSpec, N + kConnectionFlags.size() + 1> WithConnectionFlags(
    const std::array<FlagSpec, N>& own) {
  std::array<FlagSpec, N + kConnectionFlags.size() + 1> all{};
  size_t next = 0;
  for (const FlagSpec& spec : own) all[next++] = spec;
  for (const FlagSpec& spec : kConnectionFlags) all[next++] = spec;
  all[next] = kOutputFormatFlag;
  return all;
}

// A client configured by the connection flags. Does not contact the server (the first call
// does). Unreadable token or TLS files are runtime errors naming the file; inconsistent flags
// are usage errors.
absl::StatusOr<std::unique_ptr<client::Client>> ConnectFromFlags(const ParsedArgs& args);

}  // namespace neuronserve::neuronctl

#endif  // NEURON_SERVE_CLIENT_NEURONCTL_CONNECTION_FLAGS_H_
