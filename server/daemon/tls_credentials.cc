#include "server/daemon/tls_credentials.h"

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_credentials_options.h"
#include "spdlog/spdlog.h"
#include "util/fmt_absl.h"
#include "util/posix_file.h"

namespace neuronserve {
namespace {

// How often gRPC's provider re-reads the private copy: its smallest interval, so a published
// certificate is served within about a second.
constexpr unsigned int kProviderRefreshSeconds = 1;

absl::Status CheckFlags(const ListenerTls::Files& files) {
  if (files.cert.empty()) {
    if (!files.key.empty()) return absl::InvalidArgumentError("--tls-key needs --tls-cert");
    if (!files.client_ca.empty()) {
      return absl::InvalidArgumentError(
          "--tls-client-ca needs --tls-cert and --tls-key (mutual TLS is TLS that also "
          "requires client certificates)");
    }
    return absl::OkStatus();
  }
  if (files.key.empty()) return absl::InvalidArgumentError("--tls-cert needs --tls-key");
  // Each file readable now, so that the error names the flag rather than only a path.
  for (const auto& [flag, path] :
       {std::pair{"--tls-cert", &files.cert}, std::pair{"--tls-key", &files.key},
        std::pair{"--tls-client-ca", &files.client_ca}}) {
    if (path->empty()) continue;
    absl::StatusOr<std::string> contents = ReadFile(*path);
    if (!contents.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(flag, ": ", contents.status().message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<ListenerTls>> ListenerTls::Create(const Files& files,
                                                                 FileWatcher& watcher) {
  if (absl::Status flags = CheckFlags(files); !flags.ok()) return flags;
  std::unique_ptr<ListenerTls> tls(new ListenerTls());
  if (files.cert.empty()) {
    tls->credentials_ = grpc::InsecureServerCredentials();
    return tls;
  }

  absl::StatusOr<std::unique_ptr<CertificateMirror>> mirror =
      CertificateMirror::Create({files.cert, files.key, files.client_ca});
  if (!mirror.ok()) return mirror.status();
  tls->mirror_ = *std::move(mirror);
  absl::StatusOr<CertificateMirror::Update> first = tls->mirror_->Refresh();
  if (!first.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--tls-cert=", files.cert, " --tls-key=", files.key, ": ", first.status().message()));
  }
  spdlog::info("TLS certificate '{}' (serial {}, expires {}) from {}", first->certificate.subject,
               first->certificate.serial, FormatCertificateTime(first->certificate.not_after),
               files.cert);

  std::shared_ptr<grpc::experimental::CertificateProviderInterface> provider;
  if (files.client_ca.empty()) {
    provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
        tls->mirror_->key_path(), tls->mirror_->cert_path(), kProviderRefreshSeconds);
  } else {
    provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
        tls->mirror_->key_path(), tls->mirror_->cert_path(), tls->mirror_->client_ca_path(),
        kProviderRefreshSeconds);
  }
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  if (!files.client_ca.empty()) {
    options.watch_root_certs();
    options.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  } else {
    options.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  }
  tls->credentials_ = grpc::experimental::TlsServerCredentials(options);

  // The operator's files, not the copy: a change to them (or SIGHUP) is checked, then published.
  std::vector<std::string> watched = {files.cert, files.key};
  if (!files.client_ca.empty()) watched.push_back(files.client_ca);
  ListenerTls* self = tls.get();
  watcher.Watch(std::move(watched), [self] { self->Refresh(); });
  return tls;
}

bool ListenerTls::client_certificates_required() const {
  return mirror_ != nullptr && !mirror_->sources().client_ca.empty();
}

std::string ListenerTls::Describe() const {
  if (!enabled()) return "in plaintext";
  return absl::StrCat("with TLS (client certificates required: ",
                      client_certificates_required() ? "yes" : "no", ")");
}

void ListenerTls::Refresh() {
  if (mirror_ == nullptr) return;
  absl::StatusOr<CertificateMirror::Update> update = mirror_->Refresh();
  if (!update.ok()) {
    spdlog::error("refused new TLS certificate from {}: {}; the previous one keeps serving",
                  mirror_->sources().cert, update.status().message());
    return;
  }
  if (!update->changed) {
    spdlog::info("TLS certificate files re-read: '{}' unchanged", update->certificate.subject);
    return;
  }
  spdlog::info("new TLS certificate '{}' (serial {}, expires {}) in use",
               update->certificate.subject, update->certificate.serial,
               FormatCertificateTime(update->certificate.not_after));
}

}  // namespace neuronserve
