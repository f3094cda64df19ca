#include "server/http/http_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/http/http_status.h"
#include "server/http/http_tls.h"
#include "server/security/token_authority.h"
#include "spdlog/spdlog.h"
#include "base/mutex.h"

namespace neuronserve {
namespace {

// Connections at once (all threads together): enough for a scraper, probes and many inference
// clients; a flood beyond it waits in the listen backlog instead of exhausting descriptors.
constexpr unsigned kConnectionLimit = 512;
// Seconds a connection may stay idle (between requests, or mid-request) before it is closed.
constexpr unsigned kIdleTimeoutSeconds = 10;


// "ipv4:127.0.0.1:5000" / "ipv6:[::1]:5000", as gRPC names peers.
std::string PeerString(const sockaddr* address) {
  if (address == nullptr) return "unknown";
  char text[INET6_ADDRSTRLEN] = "";
  if (address->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text));
    return absl::StrCat("ipv4:", text, ":", ntohs(v4->sin_port));
  }
  if (address->sa_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text));
    return absl::StrCat("ipv6:[", text, "]:", ntohs(v6->sin6_port));
  }
  return "unknown";
}

HttpResponse ShuttingDown() {
  HttpResponse response = HttpErrorResponse(503, "the server is shutting down");
  response.headers.push_back({"Connection", "close"});
  return response;
}

// The response MHD sends: the HttpResponse's parts without copying them, the HttpResponse kept
// alive until MHD frees the response.
MHD_Response* ToMhdResponse(HttpResponse response) {
  auto* owned = new HttpResponse(std::move(response));
  std::vector<MHD_IoVec> parts;
  parts.reserve(1 + owned->more_body.size());
  if (!owned->body.empty()) parts.push_back({owned->body.data(), owned->body.size()});
  for (const std::string& part : owned->more_body) {
    if (!part.empty()) parts.push_back({part.data(), part.size()});
  }
  MHD_Response* mhd = MHD_create_response_from_iovec(
      parts.data(), static_cast<unsigned>(parts.size()),
      [](void* cls) { delete static_cast<HttpResponse*>(cls); }, owned);
  if (mhd == nullptr) {
    delete owned;
    return nullptr;
  }
  MHD_add_response_header(mhd, "Content-Type", owned->content_type.c_str());
  MHD_add_response_header(mhd, "Cache-Control", "no-store");
  for (const auto& [name, value] : owned->headers) {
    MHD_add_response_header(mhd, name.c_str(), value.c_str());
  }
  return mhd;
}

MHD_Result Queue(MHD_Connection* connection, HttpResponse response) {
  const unsigned status = static_cast<unsigned>(response.status);
  MHD_Response* mhd = ToMhdResponse(std::move(response));
  if (mhd == nullptr) return MHD_NO;
  const MHD_Result result = MHD_queue_response(connection, status, mhd);
  MHD_destroy_response(mhd);
  return result;
}

}  // namespace

class HttpServer::Impl {
 public:
  class Exchange;

  explicit Impl(HttpServerOptions options, HttpRouteTable routes)
      : options_(std::move(options)), routes_(std::move(routes)) {}
  ~Impl();

  absl::Status Listen();

  static MHD_Result Access(void* cls, MHD_Connection* connection, const char* url,
                           const char* method, const char* version, const char* upload_data,
                           size_t* upload_data_size, void** con_cls);
  static void Completed(void* cls, MHD_Connection* connection, void** con_cls,
                        MHD_RequestTerminationCode code);
  static void ConnectionEvent(void* cls, MHD_Connection* connection, void** socket_context,
                              MHD_ConnectionNotificationCode code);
  static void Log(void* cls, const char* format, va_list args);
  // MHD would percent-decode the URL before the access handler sees it, turning %2F into a '/'
  // that splits a segment; leaving it as sent lets the route table split first, then decode.
  static size_t KeepEscapes(void* /*cls*/, MHD_Connection* /*connection*/, char* text) {
    return std::strlen(text);
  }

  // The first call for a request: the answer the server gives itself (404, 405, 401, 403, 413,
  // 503), or nothing when the request goes on to its handler.
  std::optional<HttpResponse> Screen(Exchange& exchange, MHD_Connection* connection);
  // False once the destructor began: the request is refused instead (503), so that no handler
  // starts after the destructor saw nothing owed.
  bool Owe() {
    MutexLock lock(&mutex_);
    if (stopping_.load()) return false;
    ++owed_;
    return true;
  }
  void Paid() {
    MutexLock lock(&mutex_);
    if (--owed_ == 0) all_paid_.NotifyAll();
  }

  const HttpServerOptions options_;
  const HttpRouteTable routes_;
  std::string address_;
  MHD_Daemon* daemon_ = nullptr;
  std::atomic<bool> stopping_{false};
  // MHD's messages while Start runs (why it cannot listen); afterwards they go to the log.
  std::atomic<bool> starting_{true};
  std::string start_error_;
  Mutex mutex_;
  CondVar all_paid_;
  int owed_ ABSL_GUARDED_BY(mutex_) = 0;
};

// One request: what the access handler learned, the body, and the answer once it is given.
class HttpServer::Impl::Exchange final : public HttpExchange {
 public:
  Exchange(Impl* server, MHD_Connection* connection, std::string method, std::string raw_url)
      : server_(server), connection_(connection), method_(std::move(method)) {
    const size_t query = raw_url.find('?');
    raw_path_ = raw_url.substr(0, query);
    if (!PercentDecodeSegment(raw_path_, path_)) path_ = raw_path_;
    const MHD_ConnectionInfo* info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    peer_ = PeerString(info != nullptr ? info->client_addr : nullptr);
  }

  std::string_view method() const override { return method_; }
  std::string_view path() const override { return path_; }
  std::string_view param(std::string_view name) const override {
    for (const auto& [key, value] : match_.params) {
      if (key == name) return value;
    }
    return {};
  }
  std::string_view header(std::string_view name) const override {
    const char* value =
        MHD_lookup_connection_value(connection_, MHD_HEADER_KIND, std::string(name).c_str());
    return value != nullptr ? std::string_view(value) : std::string_view();
  }
  std::string_view body() const override { return body_; }
  std::string_view peer() const override { return peer_; }
  std::string_view identity() const override { return identity_; }

  void Respond(HttpResponse response) override {
    Impl* server = server_;
    MHD_Connection* connection = connection_;
    bool resume = false;
    {
      MutexLock lock(&mutex_);
      answer_ = std::move(response);
      resume = suspended_;
      suspended_ = false;
    }
    // A suspended connection is not touched by MHD until resumed, so the exchange is still
    // here up to this call; after it, the access handler sends the answer and MHD may free the
    // exchange at any moment. The debt is settled in Completed, once the answer went out: a
    // destructor that stopped MHD between the resume and the send would lose it.
    if (resume) MHD_resume_connection(connection);
  }

  // Runs the handler; returns what to do on the MHD thread: queue the answer now, or wait.
  MHD_Result RunHandler() {
    handler_ran_ = true;
    if (!server_->Owe()) {
      answered_ = true;
      return Queue(connection_, ShuttingDown());
    }
    counted_as_owed_ = true;
    match_.route->handler(*this);
    return SendOrSuspend();
  }

  // Called on the MHD thread after the handler and on each resume: queues the answer when it is
  // there, else suspends the connection until Respond.
  MHD_Result SendOrSuspend() {
    std::optional<HttpResponse> answer;
    {
      MutexLock lock(&mutex_);
      if (!answer_.has_value()) {
        MHD_suspend_connection(connection_);
        suspended_ = true;
        return MHD_YES;
      }
      answer = std::move(answer_);
      answer_.reset();
    }
    answered_ = true;
    return Queue(connection_, std::move(*answer));
  }

  Impl* const server_;
  MHD_Connection* const connection_;
  const std::string method_;
  std::string raw_path_;
  std::string path_;
  std::vector<std::string> decoded_;
  HttpRouteTable::Match match_;
  std::string body_;
  std::string peer_;
  std::string identity_;
  // The server's own answer was queued (or is owed once the body is read: too_large_).
  bool screened_out_ = false;
  bool too_large_ = false;
  bool handler_ran_ = false;
  bool answered_ = false;
  // Counted in the server's owed_ (the handler ran): settled when the request completes.
  bool counted_as_owed_ = false;

 private:
  Mutex mutex_;
  std::optional<HttpResponse> answer_ ABSL_GUARDED_BY(mutex_);
  bool suspended_ ABSL_GUARDED_BY(mutex_) = false;
};

namespace {

HttpResponse TooLarge(std::string_view path, size_t limit, std::string_view given) {
  HttpResponse response =
      HttpErrorResponse(413, absl::StrCat("the body of ", std::string(path), " is ", std::string(given),
                                      "; the limit is ", limit, " bytes (--max-message-bytes)"));
  response.headers.push_back({"Connection", "close"});
  return response;
}

}  // namespace

std::optional<HttpResponse> HttpServer::Impl::Screen(Exchange& exchange,
                                                     MHD_Connection* connection) {
  if (stopping_.load()) return ShuttingDown();
  exchange.match_ = routes_.Find(exchange.method_, exchange.raw_path_, exchange.decoded_);
  const HttpRouteTable::Match& match = exchange.match_;
  if (match.route == nullptr && match.allowed.empty()) {
    return HttpErrorResponse(404, absl::StrCat("no such path: ", exchange.raw_path_));
  }
  if (match.route == nullptr) {
    HttpResponse response =
        HttpErrorResponse(405, absl::StrCat(exchange.method_, " is not allowed on ", exchange.raw_path_,
                                        "; allowed: ", match.allowed));
    response.headers.push_back({"Allow", match.allowed});
    return response;
  }
  const HttpRouteTable::Route& route = *match.route;
  if (options_.tokens != nullptr && route.scope != Scope::kNone) {
    const AuthDecision decision =
        options_.tokens->Authorize(exchange.header("Authorization"), route.scope, route.name);
    if (decision.code == absl::StatusCode::kUnauthenticated) {
      HttpResponse response = HttpErrorResponse(401, decision.message);
      response.headers.push_back({"WWW-Authenticate", "Bearer"});
      return response;
    }
    if (!decision.ok()) return HttpErrorResponse(403, decision.message);
    exchange.identity_ = std::string(decision.label);
  }
  const char* length = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Content-Length");
  if (length != nullptr) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long declared = std::strtoull(length, &end, 10);
    if (end != length && *end == '\0' && errno == 0) {
      if (declared > options_.max_body_bytes) {
        return TooLarge(exchange.raw_path_, options_.max_body_bytes,
                        absl::StrCat(declared, " bytes (Content-Length)"));
      }
      exchange.body_.reserve(declared);
    }
  }
  return std::nullopt;
}

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
      return Queue(connection, std::move(*refusal));
    }
    return MHD_YES;
  }
  if (exchange->screened_out_) {
    *upload_data_size = 0;  // a refused request's body is dropped
    return MHD_YES;
  }
  if (*upload_data_size != 0) {
    if (!exchange->too_large_ &&
        exchange->body_.size() + *upload_data_size > server->options_.max_body_bytes) {
      // A chunked body (no Content-Length) past the limit: its bytes are dropped from now on.
      // MHD only lets an answer be queued once the body is read, so 413 goes out at its end.
      exchange->too_large_ = true;
      std::string().swap(exchange->body_);
    }
    if (!exchange->too_large_) exchange->body_.append(upload_data, *upload_data_size);
    *upload_data_size = 0;
    return MHD_YES;
  }
  if (exchange->too_large_) {
    exchange->screened_out_ = true;
    return Queue(connection, TooLarge(exchange->raw_path_, server->options_.max_body_bytes,
                                      absl::StrCat("more than that (chunked)")));
  }
  if (!exchange->handler_ran_) return exchange->RunHandler();
  if (!exchange->answered_) return exchange->SendOrSuspend();
  return MHD_YES;
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
  {
    MutexLock lock(&mutex_);
    stopping_.store(true);
    all_paid_.Wait(&mutex_, [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return owed_ == 0; });
  }
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
