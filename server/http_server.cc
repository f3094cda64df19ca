#include "server/http_server.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "civetweb.h"
#include "server/host_port.h"

namespace neuronserve {
namespace {

const char* ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

void Send(mg_connection* connection, const HttpResponse& response, bool with_body,
          const char* extra_headers = "") {
  const std::string head = absl::StrCat(
      "HTTP/1.1 ", response.status, " ", ReasonPhrase(response.status), "\r\n",
      "Content-Type: ", response.content_type, "\r\n", "Content-Length: ", response.body.size(),
      "\r\n", "Cache-Control: no-store\r\n", extra_headers, "\r\n");
  mg_write(connection, head.data(), head.size());
  if (with_body && !response.body.empty()) {
    mg_write(connection, response.body.data(), response.body.size());
  }
}

// Connects to HOST:PORT and closes at once (IPv4 or IPv6, numeric or by name).
void PokeListener(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return;
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  const std::string port = address.substr(colon + 1);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) return;
  for (addrinfo* entry = found; entry != nullptr; entry = entry->ai_next) {
    const int fd = socket(entry->ai_family, entry->ai_socktype | SOCK_CLOEXEC, entry->ai_protocol);
    if (fd < 0) continue;
    const bool connected = connect(fd, entry->ai_addr, entry->ai_addrlen) == 0;
    close(fd);
    if (connected) break;
  }
  freeaddrinfo(found);
}

}  // namespace

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(
    const std::string& address, std::map<std::string, Handler> routes) {
  // Once per process; civetweb keeps its own count, the flag only avoids re-running it.
  static std::once_flag library_initialized;
  std::call_once(library_initialized, [] { mg_init_library(0); });

  std::unique_ptr<HttpServer> server(new HttpServer());
  server->routes_ = std::move(routes);
  // No document_root: civetweb serves no files, only the handler below.
  const char* options[] = {"listening_ports",    address.c_str(),
                           "num_threads",        "4",
                           "request_timeout_ms", "10000",
                           "enable_keep_alive",  "yes",
                           nullptr};
  mg_callbacks callbacks;
  std::memset(&callbacks, 0, sizeof(callbacks));
  char error_text[256] = "";
  unsigned error_code = 0;
  mg_error_data error{&error_code, error_text, sizeof(error_text)};
  mg_init_data init{&callbacks, server.get(), options};
  server->context_ = mg_start2(&init, &error);
  if (server->context_ == nullptr) {
    return absl::UnavailableError(absl::StrCat("cannot serve HTTP on '", address, "': ",
                                               error_text[0] != '\0' ? error_text : "mg_start failed",
                                               " (address in use, or not a HOST:PORT?)"));
  }
  mg_set_request_handler(server->context_, "/", &HttpServer::Dispatch, server.get());
  mg_server_port ports[4];
  std::memset(ports, 0, sizeof(ports));
  const int count = mg_get_server_ports(server->context_, 4, ports);
  server->address_ = count > 0 ? WithPort(address, ports[0].port) : address;
  return server;
}

HttpServer::~HttpServer() {
  if (context_ == nullptr) return;
  // civetweb's listening thread notices the stop only when its poll() returns, which without a
  // connection takes up to 2 s (its poll timeout). Connections to our own port while mg_stop
  // waits wake it at once, so a shutdown is not held up by an idle HTTP endpoint.
  std::atomic<bool> stopped{false};
  std::thread stopper([this, &stopped] {
    mg_stop(context_);
    stopped.store(true);
  });
  while (!stopped.load()) {
    PokeListener(address_);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stopper.join();
}

int HttpServer::Dispatch(mg_connection* connection, void* self) {
  auto* server = static_cast<HttpServer*>(self);
  const mg_request_info* request = mg_get_request_info(connection);
  const std::string path = request->local_uri != nullptr ? request->local_uri : "";
  const bool head = std::strcmp(request->request_method, "HEAD") == 0;
  auto route = server->routes_.find(path);
  if (route == server->routes_.end()) {
    HttpResponse missing{404, "text/plain; charset=utf-8",
                         absl::StrCat("no such path: ", path, "\n")};
    Send(connection, missing, !head);
    return 404;
  }
  if (!head && std::strcmp(request->request_method, "GET") != 0) {
    HttpResponse wrong{405, "text/plain; charset=utf-8",
                       absl::StrCat(request->request_method, " ", path, ": only GET and HEAD\n")};
    Send(connection, wrong, true, "Allow: GET, HEAD\r\n");
    return 405;
  }
  const HttpResponse response = route->second();
  Send(connection, response, !head);
  return response.status;
}

}  // namespace neuronserve
