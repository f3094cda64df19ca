// HttpConnection: requests on one kept-alive HTTP/1.1 connection, read back with their headers
// and a Content-Length or chunked body.
#include "tests/support/http_connection.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace neuronserve::testing {

HttpConnection::HttpConnection(std::string address) : address_(std::move(address)) {}

HttpConnection::~HttpConnection() { Close(); }

void HttpConnection::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  buffer_.clear();
}

bool HttpConnection::Connect(std::string& error) {
  const size_t colon = address_.rfind(':');
  const std::string host = address_.substr(0, colon);
  const std::string port = address_.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || found == nullptr) {
    error = "cannot resolve " + address_;
    return false;
  }
  fd_ = ::socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  const bool connected = fd_ >= 0 && ::connect(fd_, found->ai_addr, found->ai_addrlen) == 0;
  ::freeaddrinfo(found);
  if (!connected) {
    error = absl::StrCat("cannot connect to ", address_, ": ", std::strerror(errno));
    Close();
    return false;
  }
  // Small requests: do not let Nagle hold the body back behind the headers.
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (receive_timeout_ > absl::ZeroDuration()) {
    const timeval timeout = absl::ToTimeval(receive_timeout_);
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  }
  return true;
}

HttpAnswer HttpConnection::Send(const HttpPost& post) {
  HttpAnswer answer;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (fd_ < 0 && !Connect(answer.error)) return answer;
    std::string head = absl::StrCat(post.method, " ", post.path, " HTTP/1.1\r\nHost: ", address_,
                                    "\r\nContent-Length: ", post.body.size(), "\r\n");
    for (const std::string& header : post.headers) absl::StrAppend(&head, header, "\r\n");
    head += "\r\n";
    // Head and body in one write when small, so the server reads them together.
    const std::string whole = post.body.size() < 65536 ? head + post.body : head;
    bool sent =
        ::send(fd_, whole.data(), whole.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(whole.size());
    if (sent && whole.size() == head.size() && !post.body.empty()) {
      sent = ::send(fd_, post.body.data(), post.body.size(), MSG_NOSIGNAL) ==
             static_cast<ssize_t>(post.body.size());
    }
    // Reads until the head is complete, then the Content-Length bytes of the body.
    size_t head_end = std::string::npos;
    size_t length = 0;
    bool complete = false;
    char chunk[65536];
    while (sent) {
      if (head_end == std::string::npos) {
        head_end = buffer_.find("\r\n\r\n");
        if (head_end != std::string::npos) {
          const std::vector<std::string> lines =
              absl::StrSplit(buffer_.substr(0, head_end), "\r\n");
          const std::vector<std::string> status_line = absl::StrSplit(lines[0], ' ');
          if (status_line.size() < 2 || !absl::SimpleAtoi(status_line[1], &answer.status)) break;
          for (size_t i = 1; i < lines.size(); ++i) {
            const size_t colon = lines[i].find(':');
            if (colon == std::string::npos) continue;
            std::string name = lines[i].substr(0, colon);
            std::string value(absl::StripAsciiWhitespace(lines[i].substr(colon + 1)));
            if (absl::AsciiStrToLower(name) == "content-length") {
              (void)absl::SimpleAtoi(value, &length);
            }
            answer.headers.emplace_back(std::move(name), std::move(value));
          }
          head_end += 4;
        }
      }
      if (head_end != std::string::npos && buffer_.size() >= head_end + length) {
        answer.body = buffer_.substr(head_end, length);
        buffer_.erase(0, head_end + length);
        complete = true;
        break;
      }
      const ssize_t got = ::recv(fd_, chunk, sizeof(chunk), 0);
      if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        // The receive timeout: the server has the request and did not answer. Sending it again
        // would hide that, so the caller hears of it instead.
        Close();
        answer = HttpAnswer{};
        answer.timed_out = true;
        answer.error = absl::StrCat("no answer within ", absl::FormatDuration(receive_timeout_));
        return answer;
      }
      if (got <= 0) break;
      buffer_.append(chunk, static_cast<size_t>(got));
    }
    if (complete) return answer;
    // The server closed a kept-alive connection (idle timeout): once more on a new one.
    Close();
    answer = HttpAnswer{};
  }
  answer.error = "the connection closed before a whole answer";
  return answer;
}

std::string HttpAddressInLog(const std::string& log) {
  constexpr std::string_view kHttpLine = "HTTP endpoint on ";
  const size_t at = log.find(kHttpLine);
  if (at == std::string::npos) return "";
  const size_t from = at + kHttpLine.size();
  return log.substr(from, log.find(' ', from) - from);
}

}  // namespace neuronserve::testing
