// How a Client reaches a neuron-serve daemon: the target, transport security, the bearer token
// and the defaults every call inherits.
#ifndef NEURON_SERVE_CLIENT_LIB_CONNECT_OPTIONS_H_
#define NEURON_SERVE_CLIENT_LIB_CONNECT_OPTIONS_H_

#include <string>

#include "absl/time/time.h"

namespace neuronserve::client {

struct ConnectOptions {
  // "host:port", or any gRPC target URI such as "dns:///name:port". Calls are spread over every
  // address the name resolves to (round_robin), so a headless Service name balances load.
  std::string target;

  // TLS. The CA file defaults to the system roots; a client certificate needs both the cert and
  // the key (mutual TLS). tls_server_name overrides the name checked against the server's
  // certificate, for targets given as an IP address. Any tls_* field requires tls = true, so that
  // a forgotten `tls` never silently sends in plaintext what the caller meant to protect.
  bool tls = false;
  std::string tls_ca_file;
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_server_name;

  // Sent as "authorization: Bearer <token>" metadata on every call. token_file is read once, at
  // Connect, with trailing whitespace (the newline editors add) stripped; give one or the other.
  std::string token;
  std::string token_file;

  // Deadline of every call that does not give its own; absl::InfiniteDuration() means none.
  absl::Duration timeout = absl::Seconds(30);

  // Largest response accepted; the default fits large inference outputs and model listings.
  int max_receive_message_bytes = 64 << 20;
};

}  // namespace neuronserve::client

#endif  // NEURON_SERVE_CLIENT_LIB_CONNECT_OPTIONS_H_
