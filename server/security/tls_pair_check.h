// CheckServerCertificate: the checks a server certificate and its key must pass before the
// daemon hands them to gRPC.
//
// gRPC's certificate provider takes whatever files it finds: a certificate that does not parse,
// a key of another certificate or an expired certificate in its files breaks every new handshake
// until good files return. So a new pair is checked here first (OpenSSL): the chain parses, the
// key parses and matches the leaf, the leaf is valid now, each certificate of the chain is
// signed by the next one in the same file, and the client CA bundle (when given) parses.
//
// Messages name what failed, with the certificate's subject and dates; never the bytes of a key.
//
// Thread safety: pure functions (OpenSSL 3 is thread-safe; the thread's OpenSSL error queue is
// left empty, so gRPC's own OpenSSL calls on this thread never see our errors).
#ifndef NEURON_SERVE_SERVER_SECURITY_TLS_PAIR_CHECK_H_
#define NEURON_SERVE_SERVER_SECURITY_TLS_PAIR_CHECK_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace neuronserve {

// What the log says about a certificate that passed.
struct CertificateSummary {
  std::string subject;  // RFC 2253, e.g. "CN=neuron-serve,O=example"
  std::string serial;   // hex
  absl::Time not_before;
  absl::Time not_after;
};

// Checks the PEM chain `cert_pem` (leaf first), the PEM private key `key_pem` and, unless empty,
// the PEM CA bundle `client_ca_pem` at time `now`. INVALID_ARGUMENT naming what failed, e.g.
// "certificate 'CN=x' expired at 2026-01-01T00:00:00Z"; the leaf's summary when all pass.
absl::StatusOr<CertificateSummary> CheckServerCertificate(const std::string& cert_pem,
                                                          const std::string& key_pem,
                                                          const std::string& client_ca_pem,
                                                          absl::Time now);

// "2026-01-01T00:00:00Z": how the messages above write a time.
std::string FormatCertificateTime(absl::Time time);

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_SECURITY_TLS_PAIR_CHECK_H_
