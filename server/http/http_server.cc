// HttpServer (http_server.h): starting libmicrohttpd and its callbacks (a request's access
// calls, its completion, connection events, its log). What the server answers before a handler
// runs is in http_server_screen.cc, what it hands libmicrohttpd in http_server_answers.cc, and
// the Impl and Exchange they share in http_server_internal.h.
#include "server/http/http_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/mutex.h"
#include "server/http/http_server_internal.h"
#include "server/http/http_status.h"
#include "server/http/http_tls.h"
#include "spdlog/spdlog.h"

namespace neuronserve {
namespace {

// Connections at once (all threads together): enough for a scraper, probes and many inference
// clients; a flood beyond it waits in the listen backlog instead of exhausting descriptors.
constexpr unsigned kConnectionLimit = 512;
// Seconds a connection may stay idle (between requests, or mid-request) before it is closed.
constexpr unsigned kIdleTimeoutSeconds = 10;

}  // namespace

MHD_Result HttpServer::Impl::Access(void* cls, MHD_Connection* connection, const char* url,
                                    const char* method, const char* /*version*/,
                                    const char* upload_data, size_t* upload_data_size,
                                    void** con_cls) {
  Impl* server = static_cast<Impl*>(cls);
  auto* exchange = static_cast<Exchange*>(*con_cls);
  if (exchange == nullptr) {
    // Headers only so far: answer what the server can before any body is read.
    exchange = new Exchange(server, connection, method, url);
    *con_cls = exchange;
    std::optional<HttpResponse> refusal = server->Screen(*exchange, connection);
    if (refusal.has_value()) {
      exchange->screened_out_ = true;
      return mhd::Queue(connection, std::move(*refusal));
    }
    return MHD_YES;
  }
  if (exchange->screened_out_) {
    *upload_data_size = 0;  // a refused request's body is dropped
    return MHD_YES;
  }
  const size_t limit = server->options_.max_body_bytes;
  if (*upload_data_size != 0) {
    const std::string_view data(upload_data, *upload_data_size);
    *upload_data_size = 0;
    if (exchange->too_large_ || !exchange->bad_body_.empty()) return MHD_YES;  // dropped
    if (exchange->inflater_ != nullptr) {
      // Inflated as it streams in: the limit is on the decoded bytes, and a bomb stops at it.
      const absl::Status inflated = exchange->inflater_->Append(data, exchange->body_, limit);
      if (absl::IsResourceExhausted(inflated)) {
        exchange->too_large_ = true;
      } else if (!inflated.ok()) {
        exchange->bad_body_ = std::string(inflated.message());
      }
    } else if (exchange->body_.size() + data.size() > limit) {
      exchange->too_large_ = true;
    } else {
      exchange->body_.append(data);
    }
    // A body past the limit (chunked, or inflated) or undecodable: its bytes are dropped from
    // now on. MHD only lets an answer be queued once the body is read, so the answer goes out
    // at its end.
    if (exchange->too_large_ || !exchange->bad_body_.empty()) std::string().swap(exchange->body_);
    return MHD_YES;
  }
  if (exchange->too_large_) {
    exchange->screened_out_ = true;
    return mhd::Queue(connection,
                      mhd::TooLarge(exchange->raw_path_, limit,
                                    exchange->inflater_ != nullptr ? "more than that (inflated)"
                                                                   : "more than that (chunked)"));
  }
  if (!exchange->handler_ran_) {
    // The whole body is in: once, before the handler, a compressed one must have ended.
    if (exchange->inflater_ != nullptr && exchange->bad_body_.empty()) {
      if (absl::Status finished = exchange->inflater_->Finish(); !finished.ok()) {
        exchange->bad_body_ = std::string(finished.message());
      }
    }
    if (!exchange->bad_body_.empty()) {
      exchange->screened_out_ = true;
      return mhd::Queue(connection, HttpErrorResponse(400, absl::StrCat(exchange->raw_path_, ": ",
                                                                        exchange->bad_body_)));
    }
    return exchange->RunHandler();
  }
  if (!exchange->answered_) return exchange->SendOrSuspend();
  return MHD_YES;
}

void HttpServer::Impl::Exchange::WatchForHangup() {
  std::function<void()> on_gone = std::move(on_gone_);
  on_gone_ = nullptr;
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection_, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (info == nullptr) return;
  absl::StatusOr<HangupWatcher::Id> watch =
      server_->hangups_.Watch(info->connect_fd, std::move(on_gone));
  if (watch.ok()) {
    watch_ = *watch;
  } else {
    // Per request, so not at the default level; the request is answered all the same.
    spdlog::debug("HTTP server: {} {}: {}", method_, raw_path_,
                  std::string(watch.status().message()));
  }
}

void HttpServer::Impl::Completed(void* cls, MHD_Connection* /*connection*/, void** con_cls,
                                 MHD_RequestTerminationCode /*code*/) {
  // An exchange whose handler ran is freed here only after its answer was queued (a suspended
  // connection is never completed), so no handler can still hold it. Its answer has been sent
  // (or the client went away): only now may the destructor stop MHD.
  auto* exchange = static_cast<Exchange*>(*con_cls);
  *con_cls = nullptr;
  if (exchange == nullptr) return;
  const bool owed = exchange->counted_as_owed_;
  delete exchange;
  if (owed) static_cast<Impl*>(cls)->Paid();
}

void HttpServer::Impl::ConnectionEvent(void* cls, MHD_Connection* connection,
                                       void** /*socket_context*/,
                                       MHD_ConnectionNotificationCode code) {
  Impl* server = static_cast<Impl*>(cls);
  if (code != MHD_CONNECTION_NOTIFY_STARTED || server->options_.tls == nullptr) return;
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
  if (info != nullptr && info->tls_session != nullptr) {
    server->options_.tls->Attach(static_cast<gnutls_session_t>(info->tls_session));
  }
}

void HttpServer::Impl::Log(void* cls, const char* format, va_list args) {
  Impl* server = static_cast<Impl*>(cls);
  char text[512];
  std::vsnprintf(text, sizeof(text), format, args);
  std::string line(text);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (server->starting_.load()) {
    if (!server->start_error_.empty()) server->start_error_ += "; ";
    server->start_error_ += line;
    return;
  }
  // A client that goes away mid-request or sends garbage is routine for a server.
  spdlog::debug("HTTP server: {}", line);
}

absl::Status HttpServer::Impl::Listen() {
  const std::string& address = options_.address;
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve HTTP on '", address, "': not a HOST:PORT"));
  }
  std::string host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const int resolved =
      getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found);
  if (resolved != 0 || found == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve HTTP on '", address, "': ", gai_strerror(resolved)));
  }
  sockaddr_storage bind_address{};
  std::memcpy(&bind_address, found->ai_addr, found->ai_addrlen);
  const bool ipv6 = found->ai_family == AF_INET6;
  freeaddrinfo(found);

  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                   MHD_USE_ERROR_LOG;
  if (ipv6) flags |= MHD_USE_IPv6;
  if (options_.tls != nullptr) flags |= MHD_USE_TLS;
  const int threads = options_.threads > 0 ? options_.threads : 1;
  // MHD reads a variadic option list; the TLS option is added only with TLS, so the list
  // ends at the first MHD_OPTION_END either way.
  daemon_ =
      MHD_start_daemon(flags, 0, nullptr, nullptr, &Impl::Access, this,                   //
                       MHD_OPTION_SOCK_ADDR, reinterpret_cast<sockaddr*>(&bind_address),  //
                       MHD_OPTION_THREAD_POOL_SIZE, static_cast<unsigned>(threads),       //
                       MHD_OPTION_CONNECTION_LIMIT, kConnectionLimit,                     //
                       MHD_OPTION_CONNECTION_TIMEOUT, kIdleTimeoutSeconds,                //
                       MHD_OPTION_NOTIFY_COMPLETED, &Impl::Completed, this,               //
                       MHD_OPTION_NOTIFY_CONNECTION, &Impl::ConnectionEvent, this,        //
                       MHD_OPTION_UNESCAPE_CALLBACK, &Impl::KeepEscapes, this,            //
                       MHD_OPTION_EXTERNAL_LOGGER, &Impl::Log, this,                      //
                       options_.tls != nullptr ? MHD_OPTION_HTTPS_CERT_CALLBACK : MHD_OPTION_END,
                       &HttpTls::CertificateCallback, MHD_OPTION_END);
  starting_.store(false);
  if (daemon_ == nullptr) {
    return absl::UnavailableError(absl::StrCat(
        "cannot serve HTTP on '", address,
        "': ", start_error_.empty() ? std::string("MHD_start_daemon failed") : start_error_,
        " (address in use, or not a HOST:PORT?)"));
  }
  const MHD_DaemonInfo* info = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
  address_ = info != nullptr ? absl::StrCat(address.substr(0, colon + 1), info->port) : address;
  return absl::OkStatus();
}

HttpServer::Impl::~Impl() {
  if (daemon_ == nullptr) return;
  // New requests get 503 from here on; the exchanges already handed to handlers are answered
  // (the daemon drained inference first), then MHD stops. A suspended connection must be
  // resumed before MHD_stop_daemon, which waiting for every answer guarantees.
  //
  // The hang-up watcher runs through that wait, since a client leaving is what lets its request
  // be cancelled and answered early. Once nothing is owed it watches nothing (every Respond
  // unwatched its connection before resuming it), and no handler runs any more to add a watch;
  // stopping it then joins the one `on_gone` that may still be running after answering from
  // inside itself. Before MHD_stop_daemon, so that no `on_gone` outlives the server.
  {
    MutexLock lock(&mutex_);
    stopping_.store(true);
    all_paid_.Wait(&mutex_, [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return owed_ == 0; });
  }
  hangups_.Stop();
  MHD_stop_daemon(daemon_);
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(HttpServerOptions options,
                                                              HttpRouteTable routes) {
  auto impl = std::make_unique<Impl>(std::move(options), std::move(routes));
  if (absl::Status listening = impl->Listen(); !listening.ok()) return listening;
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() = default;

const std::string& HttpServer::address() const { return impl_->address_; }
bool HttpServer::tls() const { return impl_->options_.tls != nullptr; }

}  // namespace neuronserve
