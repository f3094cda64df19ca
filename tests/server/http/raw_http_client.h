// RawHttpClient: the HTTP server tests' own client (tests/server/http).
#ifndef NEURON_SERVE_TESTS_SERVER_HTTP_RAW_HTTP_CLIENT_H_
#define NEURON_SERVE_TESTS_SERVER_HTTP_RAW_HTTP_CLIENT_H_

#include <arpa/inet.h>
#include <gnutls/gnutls.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"

namespace neuronserve::testing {

// A raw HTTP/1.1 client connection, for what curl will not send and for a client that leaves at
// any moment: plain TCP, or TLS with GnuTLS trusting `ca_file` (empty: plain). Reads time out
// after 10 s. Nothing is sent on close (no TLS close_notify): the client just goes.
//
// Thread safety: one thread at a time. Ownership: owns its socket and TLS session.
class RawHttpClient {
 public:
  RawHttpClient(const std::string& address, const std::string& ca_file = "") {
    const size_t colon = address.rfind(':');
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(std::stoi(address.substr(colon + 1))));
    inet_pton(AF_INET, address.substr(0, colon).c_str(), &to.sin_addr);
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval timeout{10, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    if (connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0) return;
    if (ca_file.empty()) {
      ready_ = true;
      return;
    }
    gnutls_certificate_allocate_credentials(&credentials_);
    gnutls_certificate_set_x509_trust_file(credentials_, ca_file.c_str(), GNUTLS_X509_FMT_PEM);
    gnutls_init(&session_, GNUTLS_CLIENT);
    gnutls_set_default_priority(session_);
    gnutls_credentials_set(session_, GNUTLS_CRD_CERTIFICATE, credentials_);
    gnutls_server_name_set(session_, GNUTLS_NAME_DNS, "localhost", 9);
    gnutls_session_set_verify_cert(session_, "localhost", 0);
    gnutls_transport_set_int(session_, fd_);
    int handshake;
    do {
      handshake = gnutls_handshake(session_);
    } while (handshake < 0 && gnutls_error_is_fatal(handshake) == 0);
    if (handshake < 0) {
      error_ = absl::StrCat("TLS handshake: ", gnutls_strerror(handshake));
      return;
    }
    ready_ = true;
  }
  ~RawHttpClient() { Close(); }
  RawHttpClient(const RawHttpClient&) = delete;
  RawHttpClient& operator=(const RawHttpClient&) = delete;

  bool ready() const { return ready_; }
  const std::string& error() const { return error_; }

  bool Send(const std::string& text) {
    size_t sent = 0;
    while (sent < text.size()) {
      const ssize_t wrote =
          session_ != nullptr ? gnutls_record_send(session_, text.data() + sent, text.size() - sent)
                              : write(fd_, text.data() + sent, text.size() - sent);
      if (wrote == GNUTLS_E_AGAIN || wrote == GNUTLS_E_INTERRUPTED) continue;
      if (wrote <= 0) return false;
      sent += static_cast<size_t>(wrote);
    }
    return true;
  }

  // Reads one response (headers, then Content-Length bytes); empty when the server closed.
  std::string ReadResponse() {
    while (true) {
      const size_t end = buffer_.find("\r\n\r\n");
      if (end != std::string::npos) {
        size_t length = 0;
        const size_t at = buffer_.find("Content-Length: ");
        if (at != std::string::npos && at < end) length = std::stoul(buffer_.substr(at + 16));
        if (buffer_.size() >= end + 4 + length) {
          std::string response = buffer_.substr(0, end + 4 + length);
          buffer_.erase(0, end + 4 + length);
          return response;
        }
      }
      char chunk[4096];
      ssize_t got;
      do {
        got = session_ != nullptr ? gnutls_record_recv(session_, chunk, sizeof(chunk))
                                  : read(fd_, chunk, sizeof(chunk));
      } while (session_ != nullptr && (got == GNUTLS_E_AGAIN || got == GNUTLS_E_INTERRUPTED));
      if (got <= 0) return "";
      buffer_.append(chunk, static_cast<size_t>(got));
    }
  }

  // Leaves: closes the socket; returns when.
  std::chrono::steady_clock::time_point Close() {
    const std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    if (session_ != nullptr) gnutls_deinit(session_);
    session_ = nullptr;
    if (credentials_ != nullptr) gnutls_certificate_free_credentials(credentials_);
    credentials_ = nullptr;
    return now;
  }

 private:
  int fd_ = -1;
  gnutls_certificate_credentials_t credentials_ = nullptr;
  gnutls_session_t session_ = nullptr;
  bool ready_ = false;
  std::string error_;
  std::string buffer_;
};

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_SERVER_HTTP_RAW_HTTP_CLIENT_H_
