#include "tests/bench/http_echo_server.h"

#include <microhttpd.h>
#include <netdb.h>
#include <signal.h>
#include <sys/socket.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tests/bench/payload.h"

namespace neuronserve::bench {
namespace {

// As the daemon's HTTP server: HttpServerOptions::threads (its default; the daemon has no flag
// for it), kConnectionLimit and kIdleTimeoutSeconds of server/http/http_server.cc.
constexpr unsigned kThreads = 4;
constexpr unsigned kConnectionLimit = 512;
constexpr unsigned kIdleTimeoutSeconds = 10;

// One request on a connection, from its headers to its answer.
struct EchoExchange {
  std::string body;
  bool too_large = false;
};

MHD_Result Queue(MHD_Connection* connection, unsigned status, std::string body,
                 const char* content_type, const char* header_length) {
  // The body is handed over without a copy, as the daemon hands its answers (an iovec whose
  // owner MHD frees after sending).
  auto* owned = new std::string(std::move(body));
  const MHD_IoVec part = {owned->data(), owned->size()};
  MHD_Response* response = MHD_create_response_from_iovec(
      &part, owned->empty() ? 0 : 1, [](void* cls) { delete static_cast<std::string*>(cls); },
      owned);
  if (response == nullptr) {
    delete owned;
    return MHD_NO;
  }
  MHD_add_response_header(response, "Content-Type", content_type);
  MHD_add_response_header(response, "Cache-Control", "no-store");
  if (header_length != nullptr) {
    MHD_add_response_header(response, kInferenceHeaderLength, header_length);
  }
  const MHD_Result result = MHD_queue_response(connection, status, response);
  MHD_destroy_response(response);
  return result;
}

MHD_Result Access(void* cls, MHD_Connection* connection, const char* /*url*/,
                  const char* /*method*/, const char* /*version*/, const char* upload_data,
                  size_t* upload_data_size, void** con_cls) {
  const uint64_t max_body_bytes = *static_cast<const uint64_t*>(cls);
  auto* exchange = static_cast<EchoExchange*>(*con_cls);
  if (exchange == nullptr) {
    // Headers only so far. The body's buffer is sized once from Content-Length, as the
    // daemon's server does, so neither side pays for growing it.
    exchange = new EchoExchange;
    *con_cls = exchange;
    const char* length = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Content-Length");
    uint64_t declared = 0;
    if (length != nullptr && absl::SimpleAtoi(length, &declared) && declared <= max_body_bytes) {
      exchange->body.reserve(declared);
    }
    return MHD_YES;
  }
  if (*upload_data_size != 0) {
    if (exchange->body.size() + *upload_data_size > max_body_bytes) {
      exchange->too_large = true;
      std::string().swap(exchange->body);
    }
    if (!exchange->too_large) exchange->body.append(upload_data, *upload_data_size);
    *upload_data_size = 0;
    return MHD_YES;
  }
  // The whole body is in: answer at once, on this polling thread (there is no device to wait
  // for).
  if (exchange->too_large) {
    return Queue(connection, MHD_HTTP_CONTENT_TOO_LARGE,
                 absl::StrCat("the body is over ", max_body_bytes, " bytes\n"), "text/plain",
                 nullptr);
  }
  const char* header_length =
      MHD_lookup_connection_value(connection, MHD_HEADER_KIND, kInferenceHeaderLength);
  return Queue(connection, MHD_HTTP_OK, std::move(exchange->body), "application/octet-stream",
               header_length != nullptr ? header_length : "0");
}

void Completed(void* /*cls*/, MHD_Connection* /*connection*/, void** con_cls,
               MHD_RequestTerminationCode /*code*/) {
  delete static_cast<EchoExchange*>(*con_cls);
  *con_cls = nullptr;
}

}  // namespace

int RunHttpEchoServer(const std::string& listen_address, uint64_t max_body_bytes) {
  // Block the stop signals before libmicrohttpd starts its threads (they inherit the mask), so
  // that only sigwait below ever sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  const size_t colon = listen_address.rfind(':');
  const std::string host = colon == std::string::npos ? "" : listen_address.substr(0, colon);
  const std::string port = colon == std::string::npos ? "" : listen_address.substr(colon + 1);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (port.empty() ||
      getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found) != 0 ||
      found == nullptr) {
    std::fprintf(stderr, "bench HTTP echo server: cannot resolve '%s'\n", listen_address.c_str());
    return 1;
  }
  sockaddr_storage bind_address{};
  std::memcpy(&bind_address, found->ai_addr, found->ai_addrlen);
  const bool ipv6 = found->ai_family == AF_INET6;
  freeaddrinfo(found);

  // The daemon's flags (suspend/resume included: it changes how MHD's threads are woken).
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                   MHD_USE_ERROR_LOG;
  if (ipv6) flags |= MHD_USE_IPv6;
  MHD_Daemon* daemon =
      MHD_start_daemon(flags, 0, nullptr, nullptr, &Access, &max_body_bytes,              //
                       MHD_OPTION_SOCK_ADDR, reinterpret_cast<sockaddr*>(&bind_address),  //
                       MHD_OPTION_THREAD_POOL_SIZE, kThreads,                             //
                       MHD_OPTION_CONNECTION_LIMIT, kConnectionLimit,                     //
                       MHD_OPTION_CONNECTION_TIMEOUT, kIdleTimeoutSeconds,                //
                       MHD_OPTION_NOTIFY_COMPLETED, &Completed, nullptr,                  //
                       MHD_OPTION_END);
  const MHD_DaemonInfo* info =
      daemon != nullptr ? MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT) : nullptr;
  if (info == nullptr || info->port == 0) {
    std::fprintf(stderr, "bench HTTP echo server: cannot listen on '%s'\n", listen_address.c_str());
    if (daemon != nullptr) MHD_stop_daemon(daemon);
    return 1;
  }
  std::fprintf(stderr, "bench HTTP echo server listening on %s:%u\n", host.c_str(),
               static_cast<unsigned>(info->port));
  std::fflush(stderr);

  int received = 0;
  sigwait(&stop_signals, &received);
  MHD_stop_daemon(daemon);
  return 0;
}

}  // namespace neuronserve::bench
