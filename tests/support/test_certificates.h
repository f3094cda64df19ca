// Certificates for TLS tests, made with the `openssl` command line in a directory the test
// owns (a TempDir): certificate authorities, server and client certificates signed by them,
// expired ones, chains with an intermediate. EC P-256 keys, unencrypted PEM.
//
// TestCertificates::Make gives the set the TLS, mTLS and rotation tests share; MakeCertificate
// makes any other one. gRPC-free (the ThreadSanitizer build's unit tests use it too).
// Failures of openssl abort the test with openssl's output: a test without its certificates
// cannot say anything.
//
// Thread safety: the functions share no state; each writes only the files it is asked for.
#ifndef NEURON_SERVE_TESTS_SUPPORT_TEST_CERTIFICATES_H_
#define NEURON_SERVE_TESTS_SUPPORT_TEST_CERTIFICATES_H_

#include <string>
#include <vector>

namespace neuronserve::testing {

// A certificate and its key, as files.
struct CertificateFiles {
  std::string cert;  // PEM; for a chain, the leaf first
  std::string key;   // PEM private key (PKCS#8, unencrypted)
  // The files' contents.
  std::string CertPem() const;
  std::string KeyPem() const;
};

enum class CertificateUse { kCa, kServer, kClient };

struct CertificateOptions {
  std::string name;         // files <dir>/<name>.pem and <dir>/<name>.key
  std::string common_name;  // the subject is "CN=<common_name>"
  // subjectAltName entries as openssl writes them: "DNS:localhost", "IP:127.0.0.1",
  // "URI:spiffe://example/a".
  std::vector<std::string> subject_alt_names;
  CertificateUse use = CertificateUse::kServer;
  const CertificateFiles* issuer = nullptr;  // nullptr: self-signed
  // Issued with a validity that ended yesterday.
  bool expired = false;
  // The certificate file holds the issuer's certificate too, after the leaf (for a leaf of an
  // intermediate CA).
  bool append_issuer = false;
};

// Makes one certificate (and a new key) in `dir`.
CertificateFiles MakeCertificate(const std::string& dir, const CertificateOptions& options);

// The shared set. Server certificates carry the SANs DNS:localhost and IP:127.0.0.1.
struct TestCertificates {
  CertificateFiles ca;              // "CN=neuron-serve test CA"
  CertificateFiles server;          // "CN=server-1", signed by ca
  CertificateFiles server_rotated;  // "CN=server-2", signed by ca: the rotation's new one
  CertificateFiles expired_server;  // "CN=server-expired", signed by ca, expired
  // "CN=client-a", SANs DNS:client-a and URI:spiffe://neuron-serve.test/client-a, signed by ca.
  CertificateFiles client;
  CertificateFiles other_ca;      // "CN=other test CA"
  CertificateFiles other_client;  // "CN=client-b", SAN DNS:client-b, signed by other_ca
  CertificateFiles intermediate;  // "CN=neuron-serve test intermediate", a CA signed by ca
  // "CN=server-3", signed by intermediate; its file holds the leaf, then the intermediate.
  CertificateFiles server_via_intermediate;

  // Makes all of the above in `dir` (created if missing).
  static TestCertificates Make(const std::string& dir);
};

// One set for the whole test binary, made on first use in a temporary folder that lives until
// the process exits (making a set runs openssl about twenty times). Thread-safe.
const TestCertificates& SharedTestCertificates();

// Writes `pair` to `cert` and `key` as an operator's tool would: each file whole, by rename,
// the key first.
void InstallCertificatePair(const CertificateFiles& pair, const std::string& cert,
                            const std::string& key);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SUPPORT_TEST_CERTIFICATES_H_
