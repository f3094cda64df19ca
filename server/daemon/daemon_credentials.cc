// Daemon's credentials (daemon.h): the watcher of the certificate and token files, the main
// listener's TLS, the HTTP endpoint's HTTPS and the bearer tokens, each re-read when its files
// change. Called by Daemon::Start on its one thread, before any listener starts.
#include <string>

#include "server/daemon/daemon.h"
#include "server/daemon/tls_credentials.h"
#include "server/http/http_tls.h"
#include "server/security/token_authority.h"
#include "spdlog/spdlog.h"
#include "util/file_watcher.h"

namespace neuronserve {

absl::Status Daemon::OpenCredentials(const DaemonOptions& options) {
  if (options.credential_poll_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--credential-poll-interval must be positive");
  }
  credential_files_ = std::make_unique<FileWatcher>(options.credential_poll_interval);
  // TLS of the main listener (plaintext without --tls-cert): its certificate files are watched
  // from here on, so that a rotation is picked up.
  absl::StatusOr<std::unique_ptr<ListenerTls>> listener_tls = ListenerTls::Create(
      {options.tls_cert, options.tls_key, options.tls_client_ca}, *credential_files_);
  if (!listener_tls.ok()) return listener_tls.status();
  listener_tls_ = *std::move(listener_tls);
  // HTTPS of the HTTP endpoint: both files or neither, and only with an endpoint to serve.
  if (options.http_tls_cert.empty() != options.http_tls_key.empty()) {
    return absl::InvalidArgumentError(options.http_tls_cert.empty()
                                          ? "--http-tls-key needs --http-tls-cert"
                                          : "--http-tls-cert needs --http-tls-key");
  }
  if (!options.http_tls_cert.empty()) {
    if (options.http_listen.empty()) {
      return absl::InvalidArgumentError("--http-tls-cert needs --http-listen");
    }
    absl::StatusOr<std::unique_ptr<HttpTls>> http_tls =
        HttpTls::Create(options.http_tls_cert, options.http_tls_key, credential_files_.get());
    if (!http_tls.ok()) return http_tls.status();
    http_tls_ = *std::move(http_tls);
  }
  // Bearer tokens (issue 17). A bad token file at start is a startup error
  // naming the file and line; later, a bad rewrite keeps the previous tokens (and is logged).
  absl::StatusOr<std::unique_ptr<TokenAuthority>> tokens =
      TokenAuthority::Load(options.infer_token_file, options.admin_token_file);
  if (!tokens.ok()) return tokens.status();
  tokens_ = *std::move(tokens);
  tokens_->Watch(*credential_files_, [](const absl::Status& reloaded) {
    if (reloaded.ok()) {
      spdlog::info("token files re-read");
    } else {
      spdlog::error("token files: {}", std::string(reloaded.message()));
    }
  });
  if (tokens_->enabled()) {
    spdlog::info("bearer tokens required (infer: '{}', admin: '{}')", options.infer_token_file,
                 options.admin_token_file);
  }
  return absl::OkStatus();
}

}  // namespace neuronserve
