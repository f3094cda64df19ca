// HttpTls: the HTTP endpoint's certificate (--http-tls-cert, --http-tls-key), served by the HTTP
// server (http_server.h) to each new TLS handshake and rotated without a restart.
//
// The operator's files are read and the pair checked (CheckServerCertificate: the chain parses,
// the key matches the leaf, the leaf is valid now) before GnuTLS credentials are built from
// them. The files are registered on the daemon's FileWatcher, which also runs on SIGHUP
// (FileWatcher::ReloadAll): a change re-reads them, and a good new pair serves every handshake
// from then on (established connections keep theirs), while a bad one is refused with an error
// log line naming the problem and the previous pair keeps serving. The log lines are those of
// the gRPC listener's certificate (server/daemon/tls_credentials.h), with "HTTP TLS" for "TLS".
//
// GnuTLS keeps the certificate list and key that the certificate callback hands it for the
// rest of the handshake, so a pair that is replaced is kept alive for kRetiredGrace (far longer
// than a handshake, which MHD's 10 s idle timeout bounds) before it is freed.
//
// Thread safety: every method may be called from any thread; the callback runs on the HTTP
// server's threads, the watcher's callback on the watcher's thread. Ownership: the FileWatcher
// given to Create borrows the object, so the watcher must stop (be destroyed) first; the HTTP
// server borrows it too and must be destroyed first.
#ifndef NEURON_SERVE_SERVER_HTTP_HTTP_TLS_H_
#define NEURON_SERVE_SERVER_HTTP_HTTP_TLS_H_

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "server/security/tls_pair_check.h"

namespace neuronserve {

class FileWatcher;

class HttpTls {
 public:
  static constexpr absl::Duration kRetiredGrace = absl::Minutes(5);

  // Reads and checks the pair; INVALID_ARGUMENT naming the flag (--http-tls-cert or
  // --http-tls-key) when a file cannot be read, or the problem when the pair fails the checks or
  // GnuTLS refuses it: the daemon must not start without the HTTPS it was asked for. With a
  // `watcher`, the files are watched from then on.
  static absl::StatusOr<std::unique_ptr<HttpTls>> Create(std::string cert_file,
                                                         std::string key_file,
                                                         FileWatcher* watcher);
  ~HttpTls();
  HttpTls(const HttpTls&) = delete;
  HttpTls& operator=(const HttpTls&) = delete;

  // Re-reads the files and logs what happened: the new certificate in use, the same one, or the
  // refusal and its reason. The watcher calls it; exposed for tests.
  void Refresh();

  // The subject of the certificate new handshakes get ("CN=neuron-serve").
  std::string subject() const;

  // For the HTTP server: MHD_OPTION_HTTPS_CERT_CALLBACK's function. It finds the HttpTls the
  // server attached to the session (Attach) and hands GnuTLS the current pair.
  static int CertificateCallback(gnutls_session_t session, const gnutls_datum_t* req_ca_rdn,
                                 int nreqs, const gnutls_pk_algorithm_t* pk_algos,
                                 int pk_algos_length, gnutls_pcert_st** pcert,
                                 unsigned int* pcert_length, gnutls_privkey_t* privkey);
  // Called by the server when a connection starts, before its handshake.
  void Attach(gnutls_session_t session);

 private:
  struct Pair;  // GnuTLS credentials of one certificate and key

  HttpTls(std::string cert_file, std::string key_file)
      : cert_file_(std::move(cert_file)), key_file_(std::move(key_file)) {}
  // Reads, checks and builds the pair in the files now.
  absl::StatusOr<std::shared_ptr<const Pair>> Build() const;

  const std::string cert_file_;
  const std::string key_file_;
  mutable Mutex mutex_;
  std::shared_ptr<const Pair> current_ ABSL_GUARDED_BY(mutex_);
  // Replaced pairs, with when they were replaced, kept for kRetiredGrace.
  std::vector<std::pair<absl::Time, std::shared_ptr<const Pair>>> retired_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_HTTP_HTTP_TLS_H_
