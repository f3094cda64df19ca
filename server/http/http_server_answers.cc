// What HttpServer hands libmicrohttpd: its responses (the HttpResponse's parts, not copied) and
// the answers the server itself gives (503 while stopping, 413), and the peer's name.
#include <arpa/inet.h>
#include <netdb.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/http/http_server_internal.h"
#include "server/http/http_status.h"

namespace neuronserve {
namespace mhd {
namespace {

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

}  // namespace

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

HttpResponse TooLarge(std::string_view path, size_t limit, std::string_view given) {
  HttpResponse response = HttpErrorResponse(
      413, absl::StrCat("the body of ", std::string(path), " is ", std::string(given),
                        "; the limit is ", limit, " bytes (--max-message-bytes)"));
  response.headers.push_back({"Connection", "close"});
  return response;
}

MHD_Result Queue(MHD_Connection* connection, HttpResponse response) {
  const unsigned status = static_cast<unsigned>(response.status);
  MHD_Response* mhd = ToMhdResponse(std::move(response));
  if (mhd == nullptr) return MHD_NO;
  const MHD_Result result = MHD_queue_response(connection, status, mhd);
  MHD_destroy_response(mhd);
  return result;
}

}  // namespace mhd
}  // namespace neuronserve
