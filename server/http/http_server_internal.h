// The insides of HttpServer (http_server.h), shared by the files that implement it:
// http_server.cc (listening and libmicrohttpd's callbacks), http_server_screen.cc (the answers the
// server gives before a handler runs) and http_server_answers.cc (responses handed to
// libmicrohttpd). Nothing outside server/http/ includes this.
//
// Thread safety: Impl's options and routes are read-only after Start; `owed_` is guarded by its
// mutex. An Exchange is driven by libmicrohttpd's thread for its connection, except Respond,
// which any thread may call once; its answer, its suspension and its hang-up watch are guarded
// by its own mutex, taken before the HangupWatcher's (Watch runs under it) and never held while
// an `on_gone` runs. Ownership: HttpServer owns the Impl, which owns the HangupWatcher;
// libmicrohttpd holds each Exchange (con_cls) from the first access call until Completed deletes
// it. An `on_gone` moves into the watcher when the connection is suspended, so it never lives in
// an exchange that its own Respond may free.
#ifndef NEURON_SERVE_SERVER_HTTP_HTTP_SERVER_INTERNAL_H_
#define NEURON_SERVE_SERVER_HTTP_HTTP_SERVER_INTERNAL_H_

#include <microhttpd.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdarg>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "server/http/body_inflater.h"
#include "server/http/hangup_watcher.h"
#include "server/http/http_exchange.h"
#include "server/http/http_route_table.h"
#include "server/http/http_server.h"

namespace neuronserve {
namespace mhd {

// "ipv4:127.0.0.1:5000" / "ipv6:[::1]:5000", as gRPC names peers; "unknown" without an address.
std::string PeerString(const sockaddr* address);
// 503 "the server is shutting down", closing the connection.
HttpResponse ShuttingDown();
// 413 for a body of `given` ("N bytes (Content-Length)") past `limit`, closing the connection.
HttpResponse TooLarge(std::string_view path, size_t limit, std::string_view given);
// Queues `response` on `connection`: MHD sends its parts without copying them.
MHD_Result Queue(MHD_Connection* connection, HttpResponse response);

}  // namespace mhd

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
  // The suspended connections whose handler asked OnClientGone; its thread starts with the
  // first such request and stops in the destructor, after the last exchange was paid.
  HangupWatcher hangups_;
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
    peer_ = mhd::PeerString(info != nullptr ? info->client_addr : nullptr);
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

  void OnClientGone(std::function<void()> on_gone) override {
    MutexLock lock(&mutex_);
    on_gone_ = std::move(on_gone);
  }

  void Respond(HttpResponse response) override {
    MHD_Connection* connection = connection_;
    HangupWatcher& hangups = server_->hangups_;
    bool resume = false;
    HangupWatcher::Id watch = 0;
    {
      MutexLock lock(&mutex_);
      answer_ = std::move(response);
      resume = suspended_;
      suspended_ = false;
      watch = std::exchange(watch_, 0);
    }
    // The watch goes before the resume: once resumed, MHD may close the socket and the kernel
    // give its number to another connection. Unwatch waits for an `on_gone` running on the
    // watcher's thread, unless this is that `on_gone` answering.
    if (watch != 0) hangups.Unwatch(watch);
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
      return mhd::Queue(connection_, mhd::ShuttingDown());
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
        // MHD does not watch a suspended connection: a handler that asked OnClientGone has its
        // socket watched for the client's hang-up (not for bytes: a pipelined request is not
        // one) until Respond. Under this lock, so that a Respond on another thread finds the
        // watch to remove.
        if (on_gone_) WatchForHangup();
        return MHD_YES;
      }
      answer = std::move(answer_);
      answer_.reset();
    }
    answered_ = true;
    return mhd::Queue(connection_, std::move(*answer));
  }

  Impl* const server_;
  MHD_Connection* const connection_;
  const std::string method_;
  std::string raw_path_;
  std::string path_;
  std::vector<std::string> decoded_;
  HttpRouteTable::Match match_;
  std::string body_;
  // Set when the body comes with Content-Encoding gzip or deflate: its bytes are inflated into
  // body_ as they arrive, on the server's thread that reads the connection.
  std::unique_ptr<BodyInflater> inflater_;
  // A compressed body that is not valid: answered 400 with it once the body is read.
  std::string bad_body_;
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
  // Hands `on_gone_` to the server's HangupWatcher for this connection's socket. A socket that
  // cannot be watched (epoll refused it) only loses the early notice: the answer still goes out.
  void WatchForHangup() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  Mutex mutex_;
  std::optional<HttpResponse> answer_ ABSL_GUARDED_BY(mutex_);
  bool suspended_ ABSL_GUARDED_BY(mutex_) = false;
  // From OnClientGone until the connection is suspended, then the watcher's.
  std::function<void()> on_gone_ ABSL_GUARDED_BY(mutex_);
  // The hang-up watch while suspended with an `on_gone` (0: none).
  HangupWatcher::Id watch_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace neuronserve

#endif  // NEURON_SERVE_SERVER_HTTP_HTTP_SERVER_INTERNAL_H_
