#include "server/http/http_tls.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"
#include "util/file_watcher.h"
#include "util/fmt_absl.h"
#include "util/posix_file.h"

namespace neuronserve {
namespace {

// The longest certificate chain accepted in --http-tls-cert.
constexpr unsigned kMaxChain = 16;

gnutls_datum_t Datum(const std::string& text) {
  return {reinterpret_cast<unsigned char*>(const_cast<char*>(text.data())),
          static_cast<unsigned>(text.size())};
}

}  // namespace

struct HttpTls::Pair {
  Pair() = default;
  Pair(const Pair&) = delete;
  Pair& operator=(const Pair&) = delete;
  ~Pair() {
    for (unsigned i = 0; i < count; ++i) gnutls_pcert_deinit(&chain[i]);
    if (key != nullptr) gnutls_privkey_deinit(key);
  }

  gnutls_pcert_st chain[kMaxChain];
  unsigned count = 0;
  gnutls_privkey_t key = nullptr;
  CertificateSummary summary;
  // What the files held, to tell a re-read of the same pair from a new one.
  std::string cert_pem;
  std::string key_pem;
};

absl::StatusOr<std::unique_ptr<HttpTls>> HttpTls::Create(std::string cert_file,
                                                         std::string key_file,
                                                         FileWatcher* watcher) {
  // Each file readable now, so that the error names the flag rather than only a path.
  for (const auto& [flag, path] :
       {std::pair{"--http-tls-cert", &cert_file}, std::pair{"--http-tls-key", &key_file}}) {
    absl::StatusOr<std::string> contents = ReadFile(*path);
    if (!contents.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(flag, ": ", contents.status().message()));
    }
  }
  std::unique_ptr<HttpTls> tls(new HttpTls(std::move(cert_file), std::move(key_file)));
  absl::StatusOr<std::shared_ptr<const Pair>> first = tls->Build();
  if (!first.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--http-tls-cert=", tls->cert_file_,
                                                   " --http-tls-key=", tls->key_file_, ": ",
                                                   first.status().message()));
  }
  const CertificateSummary& summary = (*first)->summary;
  spdlog::info("HTTP TLS certificate '{}' (serial {}, expires {}) from {}", summary.subject,
               summary.serial, FormatCertificateTime(summary.not_after), tls->cert_file_);
  {
    MutexLock lock(&tls->mutex_);
    tls->current_ = *std::move(first);
  }
  if (watcher != nullptr) {
    HttpTls* self = tls.get();
    watcher->Watch({tls->cert_file_, tls->key_file_}, [self] { self->Refresh(); });
  }
  return tls;
}

HttpTls::~HttpTls() = default;

absl::StatusOr<std::shared_ptr<const HttpTls::Pair>> HttpTls::Build() const {
  absl::StatusOr<std::string> cert_pem = ReadFile(cert_file_);
  if (!cert_pem.ok()) return cert_pem.status();
  absl::StatusOr<std::string> key_pem = ReadFile(key_file_);
  if (!key_pem.ok()) return key_pem.status();
  absl::StatusOr<CertificateSummary> summary =
      CheckServerCertificate(*cert_pem, *key_pem, "", absl::Now());
  if (!summary.ok()) return summary.status();

  auto pair = std::make_shared<Pair>();
  pair->summary = *std::move(summary);
  unsigned count = kMaxChain;
  const gnutls_datum_t cert_datum = Datum(*cert_pem);
  int result =
      gnutls_pcert_list_import_x509_raw(pair->chain, &count, &cert_datum, GNUTLS_X509_FMT_PEM, 0);
  if (result < 0) {
    return absl::InvalidArgumentError(absl::StrCat("GnuTLS cannot use the certificate chain of '",
                                                   pair->summary.subject,
                                                   "': ", gnutls_strerror(result)));
  }
  pair->count = count;
  result = gnutls_privkey_init(&pair->key);
  const gnutls_datum_t key_datum = Datum(*key_pem);
  if (result >= 0) {
    result = gnutls_privkey_import_x509_raw(pair->key, &key_datum, GNUTLS_X509_FMT_PEM, nullptr, 0);
  }
  if (result < 0) {
    // The message names GnuTLS' reason only; never the key's bytes.
    return absl::InvalidArgumentError(absl::StrCat("GnuTLS cannot use the private key of '",
                                                   pair->summary.subject,
                                                   "': ", gnutls_strerror(result)));
  }
  pair->cert_pem = *std::move(cert_pem);
  pair->key_pem = *std::move(key_pem);
  return std::shared_ptr<const Pair>(std::move(pair));
}

void HttpTls::Refresh() {
  absl::StatusOr<std::shared_ptr<const Pair>> fresh = Build();
  if (!fresh.ok()) {
    spdlog::error("refused new HTTP TLS certificate from {}: {}; the previous one keeps serving",
                  cert_file_, fresh.status().message());
    return;
  }
  const CertificateSummary& summary = (*fresh)->summary;
  {
    MutexLock lock(&mutex_);
    if (current_->cert_pem == (*fresh)->cert_pem && current_->key_pem == (*fresh)->key_pem) {
      spdlog::info("HTTP TLS certificate files re-read: '{}' unchanged", summary.subject);
      return;
    }
    const absl::Time now = absl::Now();
    std::erase_if(retired_, [now](const auto& entry) { return now - entry.first > kRetiredGrace; });
    retired_.emplace_back(now, std::move(current_));
    current_ = *fresh;
  }
  spdlog::info("new HTTP TLS certificate '{}' (serial {}, expires {}) in use", summary.subject,
               summary.serial, FormatCertificateTime(summary.not_after));
}

std::string HttpTls::subject() const {
  MutexLock lock(&mutex_);
  return current_->summary.subject;
}

void HttpTls::Attach(gnutls_session_t session) { gnutls_session_set_ptr(session, this); }

int HttpTls::CertificateCallback(gnutls_session_t session, const gnutls_datum_t* /*req_ca_rdn*/,
                                 int /*nreqs*/, const gnutls_pk_algorithm_t* /*pk_algos*/,
                                 int /*pk_algos_length*/, gnutls_pcert_st** pcert,
                                 unsigned int* pcert_length, gnutls_privkey_t* privkey) {
  auto* self = static_cast<HttpTls*>(gnutls_session_get_ptr(session));
  if (self == nullptr) return -1;  // not a session the server attached: fail the handshake
  MutexLock lock(&self->mutex_);
  // GnuTLS borrows these for the handshake; the pair stays alive at least kRetiredGrace after
  // it is replaced (see the header).
  const Pair& pair = *self->current_;
  *pcert = const_cast<gnutls_pcert_st*>(pair.chain);
  *pcert_length = pair.count;
  *privkey = pair.key;
  return 0;
}

}  // namespace neuronserve
