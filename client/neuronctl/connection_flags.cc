#include "client/neuronctl/connection_flags.h"

#include <string>

#include "client/neuronctl/flag_values.h"
#include "client/neuronctl/usage_error.h"

namespace neuronserve::neuronctl {

absl::StatusOr<std::unique_ptr<client::Client>> ConnectFromFlags(const ParsedArgs& args) {
  client::ConnectOptions options;
  absl::StatusOr<std::string> server = GetRequiredFlag(args, "server");
  if (!server.ok()) return server.status();
  options.target = *std::move(server);
  absl::StatusOr<absl::Duration> timeout = GetDurationFlag(args, "timeout");
  if (!timeout.ok()) return timeout.status();
  options.timeout = *timeout;

  // The library insists on an explicit `tls` so that a caller never sends in plaintext what it
  // meant to protect; on a command line, naming a TLS file says the same thing.
  options.tls = args.GetBool("tls");
  for (auto [flag, field] : {std::pair{"tls-ca", &options.tls_ca_file},
                             std::pair{"tls-cert", &options.tls_cert_file},
                             std::pair{"tls-key", &options.tls_key_file},
                             std::pair{"tls-server-name", &options.tls_server_name}}) {
    if (!args.Has(flag)) continue;
    absl::StatusOr<std::string> value = GetRequiredFlag(args, flag);
    if (!value.ok()) return value.status();
    *field = *std::move(value);
    options.tls = true;
  }
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return UsageError("--tls-cert and --tls-key go together (mutual TLS): give both");
  }
  if (args.Has("token-file")) {
    absl::StatusOr<std::string> value = GetRequiredFlag(args, "token-file");
    if (!value.ok()) return value.status();
    options.token_file = *std::move(value);
  }

  absl::StatusOr<std::unique_ptr<client::Client>> client = client::Client::Connect(options);
  // Connect answers INVALID_ARGUMENT for options that do not go together (a certificate without
  // its key), which on the command line is a usage error; a file it cannot read is not.
  if (!client.ok() && absl::IsInvalidArgument(client.status())) {
    return AsUsageError(client.status());
  }
  return client;
}

}  // namespace neuronserve::neuronctl
