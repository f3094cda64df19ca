// The HTTP server in-process on loopback, driven by curl (tests/support/http_get.h) and, for what
// curl cannot send (a malformed request line, two requests on one connection), a raw socket.
#include "server/http/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/http/http_tls.h"
#include "server/security/token_authority.h"
#include "tests/server/http/raw_http_client.h"
#include "tests/support/http_get.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certificates.h"
#include "tests/support/zlib_compress.h"

namespace neuronserve {
namespace {

using ::neuronserve::testing::HttpFetch;
using ::neuronserve::testing::HttpGet;
using ::neuronserve::testing::HttpRequest;
using ::neuronserve::testing::HttpResult;
using ::neuronserve::testing::RawHttpClient;
using ::neuronserve::testing::TempDir;
using ::testing::HasSubstr;

constexpr char kInferToken[] = "infer-token-0123456789abcdef";
constexpr char kAdminToken[] = "admin-token-0123456789abcdef";

std::string WriteFile(const TempDir& dir, const std::string& name, const std::string& contents) {
  const std::string path = dir.Join(name);
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

// Holds exchanges handed over by handlers, for a test thread to answer later.
class Parked {
 public:
  void Park(HttpExchange* exchange) {
    MutexLock lock(&mutex_);
    parked_.push_back(exchange);
    changed_.NotifyAll();
  }
  // Waits (up to 10 s) until `count` exchanges are parked, then takes them.
  std::vector<HttpExchange*> Take(size_t count) {
    MutexLock lock(&mutex_);
    changed_.WaitWithTimeout(
        &mutex_, absl::Seconds(10),
        [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return parked_.size() >= count; });
    std::vector<HttpExchange*> taken;
    taken.swap(parked_);
    return taken;
  }

 private:
  Mutex mutex_;
  CondVar changed_;
  std::vector<HttpExchange*> parked_ ABSL_GUARDED_BY(mutex_);
};

class HttpServerTest : public ::testing::Test {
 protected:
  HttpRouteTable Routes() {
    HttpRouteTable routes;
    routes.Add({"GET", "/hello/{name}", Scope::kNone, "hello", [](HttpExchange& exchange) {
                  HttpResponse response;
                  response.body = absl::StrCat("hello ", std::string(exchange.param("name")),
                                               " from ", std::string(exchange.header("x-test")),
                                               " at ", std::string(exchange.path()), " by ",
                                               std::string(exchange.peer()));
                  response.headers.push_back({"X-Reply", "yes"});
                  exchange.Respond(std::move(response));
                }});
    routes.Add({"POST", "/echo", Scope::kNone, "echo", [](HttpExchange& exchange) {
                  HttpResponse response;
                  response.content_type = "application/octet-stream";
                  response.body = std::string(exchange.body().substr(0, 3));
                  // The rest in parts, as a binary tensor would go.
                  std::string_view rest =
                      exchange.body().substr(std::min<size_t>(3, exchange.body().size()));
                  while (!rest.empty()) {
                    const size_t take = std::min<size_t>(rest.size(), 1000);
                    response.more_body.emplace_back(rest.substr(0, take));
                    rest.remove_prefix(take);
                  }
                  exchange.Respond(std::move(response));
                }});
    routes.Add({"GET", "/secret", Scope::kInfer, "secret", [](HttpExchange& exchange) {
                  exchange.Respond(
                      {200, "text/plain", absl::StrCat("hi ", std::string(exchange.identity()))});
                }});
    routes.Add({"POST", "/admin", Scope::kAdmin, "admin", [](HttpExchange& exchange) {
                  exchange.Respond({200, "text/plain", "done"});
                }});
    routes.Add({"GET", "/later/{n}", Scope::kNone, "later",
                [this](HttpExchange& exchange) { parked_.Park(&exchange); }});
    return routes;
  }

  void StartServer(HttpServerOptions options = {}) {
    options.address = "127.0.0.1:0";
    if (options.max_body_bytes == HttpServerOptions{}.max_body_bytes) options.max_body_bytes = 4096;
    absl::StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Start(options, Routes());
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  std::string Url(const std::string& path) const {
    return absl::StrCat(server_->tls() ? "https://" : "http://", server_->address(), path);
  }

  TempDir dir_;
  Parked parked_;
  std::unique_ptr<HttpServer> server_;
};

// The JSON error body the server writes itself.
void ExpectError(const HttpResult& result, int status, const std::string& message_part) {
  EXPECT_EQ(result.status, status) << result.body << result.error;
  EXPECT_EQ(result.Header("Content-Type"), "application/json");
  EXPECT_THAT(result.body, ::testing::StartsWith("{\"error\":\""));
  EXPECT_THAT(result.body, HasSubstr(message_part));
}

TEST_F(HttpServerTest, GetAnswersWithParamsHeadersAndPeer) {
  StartServer();
  const HttpResult result = HttpFetch({.url = Url("/hello/a%2Fb"), .headers = {"X-Test: curl"}});
  EXPECT_EQ(result.status, 200) << result.error;
  EXPECT_THAT(result.body, ::testing::MatchesRegex(
                               "hello a/b from curl at /hello/a/b by ipv4:127\\.0\\.0\\.1:[0-9]+"));
  EXPECT_EQ(result.Header("X-Reply"), "yes");
  EXPECT_EQ(result.Header("Cache-Control"), "no-store");
  EXPECT_EQ(result.Header("Content-Type"), "text/plain; charset=utf-8");
}

TEST_F(HttpServerTest, HeadAnswersTheGetRouteWithoutABody) {
  StartServer();
  const HttpResult get = HttpGet(Url("/hello/x"));
  const HttpResult head = HttpFetch({.url = Url("/hello/x"), .method = "HEAD"});
  EXPECT_EQ(head.status, 200) << head.error;
  EXPECT_EQ(head.body, "");
  EXPECT_EQ(head.Header("Content-Length"), std::to_string(get.body.size()));
}

TEST_F(HttpServerTest, PostBodyArrivesWholeAndPartsGoOutInOrder) {
  StartServer();
  std::string body;
  for (int i = 0; i < 4000; ++i) body += static_cast<char>('a' + i % 26);
  const std::string file = WriteFile(dir_, "body", body);
  for (bool chunked : {false, true}) {
    const HttpResult result =
        HttpFetch({.url = Url("/echo"), .method = "POST", .body_file = file, .chunked = chunked});
    EXPECT_EQ(result.status, 200) << result.error;
    EXPECT_EQ(result.body, body) << "chunked " << chunked;
    EXPECT_EQ(result.Header("Content-Length"), "4000");
  }
}

TEST_F(HttpServerTest, UnknownPathAndWrongMethodAreAnsweredByTheServer) {
  StartServer();
  ExpectError(HttpGet(Url("/nope")), 404, "no such path: /nope");
  const HttpResult wrong = HttpFetch({.url = Url("/echo"), .method = "GET"});
  ExpectError(wrong, 405, "GET is not allowed on /echo; allowed: POST");
  EXPECT_EQ(wrong.Header("Allow"), "POST");
  const HttpResult put = HttpFetch({.url = Url("/hello/x"), .method = "PUT"});
  ExpectError(put, 405, "PUT is not allowed on /hello/x");
  EXPECT_EQ(put.Header("Allow"), "GET, HEAD");
}

TEST_F(HttpServerTest, TokensAreCheckedBeforeTheHandler) {
  const std::string infer = WriteFile(dir_, "infer", absl::StrCat("alice:", kInferToken, "\n"));
  const std::string admin = WriteFile(dir_, "admin", absl::StrCat("root:", kAdminToken, "\n"));
  absl::StatusOr<std::unique_ptr<TokenAuthority>> tokens = TokenAuthority::Load(infer, admin);
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  StartServer({.tokens = tokens->get()});

  const HttpResult none = HttpGet(Url("/secret"));
  ExpectError(none, 401, "secret");
  EXPECT_EQ(none.Header("WWW-Authenticate"), "Bearer");
  const HttpResult wrong = HttpFetch(
      {.url = Url("/secret"), .headers = {"Authorization: Bearer not-a-known-token-123456"}});
  ExpectError(wrong, 401, "secret");
  EXPECT_THAT(wrong.body, ::testing::Not(HasSubstr("not-a-known-token")));
  const HttpResult low =
      HttpFetch({.url = Url("/admin"),
                 .method = "POST",
                 .headers = {absl::StrCat("Authorization: Bearer ", kInferToken)}});
  ExpectError(low, 403, "admin");
  EXPECT_THAT(low.body, HasSubstr("alice"));
  EXPECT_THAT(low.body, ::testing::Not(HasSubstr(kInferToken)));

  const HttpResult ok = HttpFetch(
      {.url = Url("/secret"), .headers = {absl::StrCat("Authorization: Bearer ", kInferToken)}});
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "hi alice");
  const HttpResult by_admin = HttpFetch(
      {.url = Url("/secret"), .headers = {absl::StrCat("Authorization: Bearer ", kAdminToken)}});
  EXPECT_EQ(by_admin.status, 200);
  EXPECT_EQ(by_admin.body, "hi root");
  // A probe-like route needs none.
  EXPECT_EQ(HttpGet(Url("/hello/x")).status, 200);
}

TEST_F(HttpServerTest, ABodyPastTheLimitIs413AndTheServerKeepsServing) {
  StartServer({.max_body_bytes = 1000});
  const std::string file = WriteFile(dir_, "big", std::string(5000, 'x'));
  ExpectError(HttpFetch({.url = Url("/echo"), .method = "POST", .body_file = file}), 413,
              "the body of /echo is 5000 bytes (Content-Length); the limit is 1000 bytes");
  ExpectError(
      HttpFetch({.url = Url("/echo"), .method = "POST", .body_file = file, .chunked = true}), 413,
      "the limit is 1000 bytes");
  const std::string small = WriteFile(dir_, "small", "abcdef");
  const HttpResult after = HttpFetch({.url = Url("/echo"), .method = "POST", .body_file = small});
  EXPECT_EQ(after.status, 200);
  EXPECT_EQ(after.body, "abcdef");
}

// A gzip or deflate body reaches the handler inflated; the limit holds on the inflated bytes; a
// body that is not its encoding is 400 and an unknown coding 415, each naming what is wrong.
TEST_F(HttpServerTest, CompressedBodiesArriveInflatedWithinTheLimit) {
  StartServer({.max_body_bytes = 100000});
  std::string text;
  for (int i = 0; i < 50000; ++i) text += static_cast<char>('a' + i % 26);
  for (const char* coding : {"gzip", "deflate"}) {
    const std::string file =
        WriteFile(dir_, coding, testing::ZlibCompress(text, std::string(coding) == "gzip"));
    for (bool chunked : {false, true}) {
      const HttpResult result = HttpFetch({.url = Url("/echo"),
                                           .method = "POST",
                                           .headers = {absl::StrCat("Content-Encoding: ", coding)},
                                           .body_file = file,
                                           .chunked = chunked});
      EXPECT_EQ(result.status, 200) << result.error << result.body;
      EXPECT_TRUE(result.body == text) << coding << " chunked " << chunked;
    }
  }
  // 16 MiB in about 16 KiB: refused at the limit.
  const std::string bomb =
      WriteFile(dir_, "bomb", testing::ZlibCompress(std::string(16 << 20, 'x'), true));
  ExpectError(HttpFetch({.url = Url("/echo"),
                         .method = "POST",
                         .headers = {"Content-Encoding: gzip"},
                         .body_file = bomb}),
              413, "the limit is 100000 bytes");
  const std::string plain = WriteFile(dir_, "plain", "not compressed at all");
  ExpectError(HttpFetch({.url = Url("/echo"),
                         .method = "POST",
                         .headers = {"Content-Encoding: gzip"},
                         .body_file = plain}),
              400, "/echo: the body is not valid gzip data");
  ExpectError(HttpFetch({.url = Url("/echo"),
                         .method = "POST",
                         .headers = {"Content-Encoding: br"},
                         .body_file = plain}),
              415, "Content-Encoding 'br' is not supported");
  // And the server goes on.
  const HttpResult after = HttpFetch({.url = Url("/echo"), .method = "POST", .body_file = plain});
  EXPECT_EQ(after.status, 200);
  EXPECT_EQ(after.body, "not compressed at all");
}

TEST_F(HttpServerTest, HandlersAnswerLaterFromAnotherThreadInAnyOrder) {
  StartServer({.threads = 2});
  constexpr int kRequests = 64;
  std::vector<HttpResult> results(kRequests);
  std::vector<std::thread> clients;
  for (int i = 0; i < kRequests; ++i) {
    clients.emplace_back([&, i] { results[i] = HttpGet(Url(absl::StrCat("/later/", i))); });
  }
  std::vector<HttpExchange*> exchanges = parked_.Take(kRequests);
  ASSERT_EQ(exchanges.size(), static_cast<size_t>(kRequests));
  // A worker answers them, last parked first, each with its own number.
  std::thread worker([&exchanges] {
    for (auto it = exchanges.rbegin(); it != exchanges.rend(); ++it) {
      HttpExchange& exchange = **it;
      exchange.Respond(
          {200, "text/plain", absl::StrCat("answer ", std::string(exchange.param("n")))});
    }
  });
  worker.join();
  for (std::thread& client : clients) client.join();
  for (int i = 0; i < kRequests; ++i) {
    EXPECT_EQ(results[i].status, 200) << i << " " << results[i].error;
    EXPECT_EQ(results[i].body, absl::StrCat("answer ", i));
  }
}

TEST_F(HttpServerTest, TheDestructorWaitsForAnOwedExchange) {
  StartServer();
  HttpResult result;
  const std::string url = Url("/later/7");  // before the server goes away under the client
  std::thread client([&] { result = HttpGet(url); });
  std::vector<HttpExchange*> exchanges = parked_.Take(1);
  ASSERT_EQ(exchanges.size(), 1u);
  std::atomic<bool> destroyed{false};
  std::thread destroyer([&] {
    server_.reset();
    destroyed.store(true);
  });
  // Still owed: the destructor must not return (polled for a while: it must stay waiting).
  const absl::Time until = absl::Now() + absl::Milliseconds(300);
  while (absl::Now() < until) {
    ASSERT_FALSE(destroyed.load());
    absl::SleepFor(absl::Milliseconds(10));
  }
  exchanges[0]->Respond({200, "text/plain", "late"});
  destroyer.join();
  client.join();
  EXPECT_TRUE(destroyed.load());
  EXPECT_EQ(result.status, 200);
  EXPECT_EQ(result.body, "late");
}

TEST_F(HttpServerTest, OneConnectionServesRequestsOneAfterAnother) {
  StartServer();
  RawHttpClient connection(server_->address());
  ASSERT_TRUE(connection.ready());
  ASSERT_TRUE(connection.Send("GET /hello/one HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_THAT(connection.ReadResponse(), HasSubstr("hello one"));
  ASSERT_TRUE(connection.Send("GET /hello/two HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_THAT(connection.ReadResponse(), HasSubstr("hello two"));
}

TEST_F(HttpServerTest, AMalformedRequestIs400AndTheNextRequestIsServed) {
  StartServer();
  {
    RawHttpClient connection(server_->address());
    ASSERT_TRUE(connection.ready());
    ASSERT_TRUE(connection.Send("GET /hello/x HTTP/1.1\r\nHost x\r\nbroken header line\r\n\r\n"));
    EXPECT_THAT(connection.ReadResponse(), ::testing::StartsWith("HTTP/1.1 400"));
  }
  EXPECT_EQ(HttpGet(Url("/hello/x")).status, 200);
}

TEST_F(HttpServerTest, HttpsServesTheCertificateAndARotationServesNewConnections) {
  const testing::TestCertificates certs = testing::TestCertificates::Make(dir_.Join("certs"));
  const std::string cert = WriteFile(dir_, "cert.pem", certs.server.CertPem());
  const std::string key = WriteFile(dir_, "key.pem", certs.server.KeyPem());
  absl::StatusOr<std::unique_ptr<HttpTls>> tls = HttpTls::Create(cert, key, nullptr);
  ASSERT_TRUE(tls.ok()) << tls.status();
  StartServer({.tls = tls->get()});
  ASSERT_TRUE(server_->tls());

  HttpResult first = HttpFetch({.url = Url("/hello/x"), .cacert = certs.ca.cert, .verbose = true});
  EXPECT_EQ(first.status, 200) << first.error;
  EXPECT_THAT(first.error, HasSubstr("CN=server-1"));

  // Plain HTTP to the HTTPS port fails, and HTTPS still works after.
  const HttpResult plain = HttpGet(absl::StrCat("http://", server_->address(), "/hello/x"));
  EXPECT_NE(plain.status, 200);

  // A bad pair (the key of another certificate) is refused; the old one keeps serving.
  WriteFile(dir_, "key.pem", certs.server_rotated.KeyPem());
  (*tls)->Refresh();
  EXPECT_EQ((*tls)->subject(), "CN=server-1");
  first = HttpFetch({.url = Url("/hello/x"), .cacert = certs.ca.cert, .verbose = true});
  EXPECT_EQ(first.status, 200) << first.error;
  EXPECT_THAT(first.error, HasSubstr("CN=server-1"));

  WriteFile(dir_, "cert.pem", certs.server_rotated.CertPem());
  (*tls)->Refresh();
  EXPECT_EQ((*tls)->subject(), "CN=server-2");
  const HttpResult second =
      HttpFetch({.url = Url("/hello/x"), .cacert = certs.ca.cert, .verbose = true});
  EXPECT_EQ(second.status, 200) << second.error;
  EXPECT_THAT(second.error, HasSubstr("CN=server-2"));
  server_.reset();  // the server borrows the HttpTls, so it goes first
}

TEST_F(HttpServerTest, AnAddressInUseIsUnavailableNamingIt) {
  StartServer();
  absl::StatusOr<std::unique_ptr<HttpServer>> second =
      HttpServer::Start({.address = server_->address()}, Routes());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(second.status().message(), HasSubstr(server_->address()));
}

}  // namespace
}  // namespace neuronserve
