#include "client/lib/channel_factory.h"

#include <string>

#include "client/lib/file_contents.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"

namespace neuronserve::client {
namespace {

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> Credentials(
    const ConnectOptions& options) {
  if (!options.tls) {
    if (!options.tls_ca_file.empty() || !options.tls_cert_file.empty() ||
        !options.tls_key_file.empty() || !options.tls_server_name.empty()) {
      return absl::InvalidArgumentError("TLS files or a TLS server name were given without tls");
    }
    return grpc::InsecureChannelCredentials();
  }
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return absl::InvalidArgumentError(
        "a TLS client certificate needs both tls_cert_file and tls_key_file");
  }
  grpc::SslCredentialsOptions ssl;
  // An empty pem_root_certs makes gRPC use the system's roots.
  if (!options.tls_ca_file.empty()) {
    absl::StatusOr<std::string> ca = ReadFileContents(options.tls_ca_file);
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *std::move(ca);
  }
  if (!options.tls_cert_file.empty()) {
    absl::StatusOr<std::string> cert = ReadFileContents(options.tls_cert_file);
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadFileContents(options.tls_key_file);
    if (!key.ok()) return key.status();
    ssl.pem_cert_chain = *std::move(cert);
    ssl.pem_private_key = *std::move(key);
  }
  return grpc::SslCredentials(ssl);
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::Channel>> CreateClientChannel(const ConnectOptions& options) {
  if (options.target.empty()) return absl::InvalidArgumentError("no target given");
  if (options.max_receive_message_bytes < 1) {
    return absl::InvalidArgumentError("max_receive_message_bytes must be at least 1");
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials = Credentials(options);
  if (!credentials.ok()) return credentials.status();

  grpc::ChannelArguments arguments;
  arguments.SetServiceConfigJSON(kRoundRobinServiceConfig);
  arguments.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  // Requests are bounded by the server's limit, which answers RESOURCE_EXHAUSTED by itself; a
  // second, client-side limit would only disagree with it.
  arguments.SetMaxSendMessageSize(-1);
  if (!options.tls_server_name.empty()) {
    arguments.SetSslTargetNameOverride(options.tls_server_name);
  }
  return grpc::CreateCustomChannel(options.target, *credentials, arguments);
}

}  // namespace neuronserve::client
