// ListenerTls: the main gRPC listener's transport security, from --tls-cert, --tls-key and
// --tls-client-ca: TLS, mutual TLS (client certificates required and verified against the CA)
// or, without a certificate, plaintext.
//
// gRPC reads the certificate through grpc::experimental::FileWatcherCertificateProvider, which
// polls its files once a second. It watches the daemon's private copy
// (server/security/certificate_mirror.h), never the operator's files: those are registered on
// the daemon's FileWatcher, and a change (a rewrite, a Kubernetes symlink swap) or SIGHUP
// (FileWatcher::ReloadAll) checks the new pair and publishes it to the copy only when it
// passes. So a new certificate is served to new connections within about a second; a bad one is
// refused with an error log line and the previous one keeps serving. Established connections
// keep the certificate of their handshake.
//
// Thread safety: credentials() and the accessors are safe from any thread; the watcher's
// callback (on its thread) is the only other user. Ownership: the object owns the mirror; the
// FileWatcher given to Create borrows it, so the watcher must stop (be destroyed) first.
#ifndef NEURON_SERVE_SERVER_DAEMON_TLS_CREDENTIALS_H_
#define NEURON_SERVE_SERVER_DAEMON_TLS_CREDENTIALS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/security/server_credentials.h"
#include "server/security/certificate_mirror.h"
#include "util/file_watcher.h"

namespace neuronserve {

class ListenerTls {
 public:
  struct Files {
    std::string cert;       // --tls-cert
    std::string key;        // --tls-key
    std::string client_ca;  // --tls-client-ca
  };

  // Plaintext when no file is given. INVALID_ARGUMENT naming the flag for a key or a CA without
  // a certificate (or the reverse), a file that cannot be read, or a first pair that fails the
  // checks: the daemon must not start without the security it was asked for.
  static absl::StatusOr<std::unique_ptr<ListenerTls>> Create(const Files& files,
                                                             FileWatcher& watcher);
  ListenerTls(const ListenerTls&) = delete;
  ListenerTls& operator=(const ListenerTls&) = delete;

  std::shared_ptr<grpc::ServerCredentials> credentials() const { return credentials_; }
  bool enabled() const { return mirror_ != nullptr; }
  bool client_certificates_required() const;
  // For the start log: "with TLS (client certificates required: yes)", or "in plaintext".
  std::string Describe() const;

  // Re-reads the operator's files and logs what happened: the new certificate in use, the same
  // one, or the refusal and its reason. The watcher calls it; exposed for tests.
  void Refresh();

 private:
  ListenerTls() = default;

  std::unique_ptr<CertificateMirror> mirror_;  // null: plaintext
  std::shared_ptr<grpc::ServerCredentials> credentials_;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_DAEMON_TLS_CREDENTIALS_H_
