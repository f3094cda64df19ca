// CertificateMirror: the private copy of the TLS certificate, key and client CA that gRPC's
// certificate provider watches, updated only with pairs that pass CheckServerCertificate.
//
// The daemon never points gRPC at the operator's files: a broken or half-written pair there
// would break every new handshake (gRPC 1.51's FileWatcherCertificateProvider takes whatever
// it reads). Refresh() reads the operator's files, checks them (tls_pair_check.h) and only then
// publishes them here; a pair that fails leaves the previous copy, which keeps serving.
//
// Layout of the private directory (mkdtemp under $TMPDIR, else /tmp; mode 0700; removed with
// everything in it by the destructor):
//   gen-<N>/cert.pem, gen-<N>/key.pem (0600), gen-<N>/client_ca.pem   one generation per pair
//   current -> gen-<N>                                                 what gRPC reads through
// cert_path(), key_path() and client_ca_path() go through `current`. Why a directory swap and
// not two file renames is explained at Publish in the .cc (the provider reads the key and the
// certificate separately).
//
// Thread safety: Refresh may be called from any thread (a FileWatcher callback, SIGHUP, start);
// calls are serialized. The path accessors are constant after Create.
#ifndef NEURON_SERVE_SERVER_SECURITY_CERTIFICATE_MIRROR_H_
#define NEURON_SERVE_SERVER_SECURITY_CERTIFICATE_MIRROR_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/security/tls_pair_check.h"
#include "base/mutex.h"

namespace neuronserve {

class CertificateMirror {
 public:
  // The operator's files. client_ca is empty without mutual TLS.
  struct Sources {
    std::string cert;
    std::string key;
    std::string client_ca;
  };

  // What a successful Refresh did.
  struct Update {
    bool changed = false;  // false: the sources held what is already published
    CertificateSummary certificate;
  };

  // Creates the private directory; publishes nothing yet (call Refresh, whose first failure
  // should stop the daemon from starting: there is nothing to serve).
  static absl::StatusOr<std::unique_ptr<CertificateMirror>> Create(Sources sources);
  ~CertificateMirror();
  CertificateMirror(const CertificateMirror&) = delete;
  CertificateMirror& operator=(const CertificateMirror&) = delete;

  // Reads the sources, checks them at `now` and, when they pass and differ from what is
  // published, publishes them as a new generation. An error (unreadable file, failed check)
  // leaves the published copy as it was; it names the file or the check that failed, never
  // the key's bytes.
  absl::StatusOr<Update> Refresh(absl::Time now = absl::Now()) ABSL_LOCKS_EXCLUDED(mutex_);

  const Sources& sources() const { return sources_; }
  const std::string& directory() const { return directory_; }
  std::string cert_path() const;
  std::string key_path() const;
  std::string client_ca_path() const;  // empty without a client CA

 private:
  CertificateMirror(Sources sources, std::string directory);
  absl::Status Publish(const std::string& cert, const std::string& key,
                       const std::string& client_ca) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const Sources sources_;
  const std::string directory_;
  Mutex mutex_;
  uint64_t generation_ ABSL_GUARDED_BY(mutex_) = 0;  // 0: nothing published yet
  int64_t last_mtime_seconds_ ABSL_GUARDED_BY(mutex_) = 0;
  // What is published, to skip identical re-reads (SIGHUP, a touched file).
  std::string cert_ ABSL_GUARDED_BY(mutex_);
  std::string key_ ABSL_GUARDED_BY(mutex_);
  std::string client_ca_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_SECURITY_CERTIFICATE_MIRROR_H_
