// The HTTP endpoint of the real daemon on libmicrohttpd: HTTPS with certificates made by openssl
// (tests/support/test_certificates.h) and curl --cacert as the client, its rotation by the file
// watcher and by SIGHUP, a bad new pair refused while the old one serves; bearer tokens on the
// paths that name models (/metrics, /v1/models) while the probes stay open.
#include <signal.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/daemon_process.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/http_get.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certificates.h"

namespace neuronserve::testing {
namespace http_e2e_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

namespace fs = std::filesystem;

constexpr char kHttpInferToken[] = "e2e-http-infer-token-7c1d0e9a";
constexpr char kHttpAdminToken[] = "e2e-http-admin-token-4b6f2a8c";
constexpr absl::Duration kHttpRotationDeadline = absl::Seconds(10);

class HttpE2ETest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { certs_ = &SharedTestCertificates(); }

  // GET over HTTPS trusting the test CA, with curl -v so that `error` shows the certificate.
  static HttpResult HttpsGet(const std::string& address, const std::string& path) {
    return HttpFetch({.url = absl::StrCat("https://", address, path),
                      .cacert = certs_->ca.cert,
                      .verbose = true});
  }

  // Waits until a new connection is served the certificate "CN=<common_name>" on /readyz.
  static bool WaitForServed(const std::string& address, const std::string& common_name) {
    return WaitUntil(
        [&] {
          const HttpResult result = HttpsGet(address, "/readyz");
          return result.status == 200 &&
                 result.error.find("subject: CN=" + common_name) != std::string::npos;
        },
        kHttpRotationDeadline);
  }

  static const TestCertificates* certs_;
};
const TestCertificates* HttpE2ETest::certs_ = nullptr;

TEST_F(HttpE2ETest, HttpsServesTheProbesAndPlainHttpToItFailsCleanly) {
  START_DAEMON(daemon,
               SimDaemonArgs({"--http-listen=127.0.0.1:0", "--http-tls-cert=" + certs_->server.cert,
                              "--http-tls-key=" + certs_->server.key}));
  const std::optional<std::string> http =
      WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+) \\(HTTPS");
  ASSERT_TRUE(http.has_value()) << daemon->process->Stderr();
  EXPECT_TRUE(WaitForServed(*http, "server-1"));
  const HttpResult livez = HttpsGet(*http, "/livez");
  EXPECT_EQ(livez.status, 200) << livez.error;
  EXPECT_EQ(livez.body, "ok\n");

  // Plain HTTP to the HTTPS port gets no HTTP answer; the daemon goes on serving HTTPS.
  const HttpResult plain = HttpGet(absl::StrCat("http://", *http, "/readyz"));
  EXPECT_NE(plain.status, 200);
  EXPECT_EQ(HttpsGet(*http, "/readyz").status, 200);
}

TEST_F(HttpE2ETest, ARewrittenPairIsServedToNewConnectionsAndABadOneIsRefused) {
  TempDir dir;
  const std::string cert = dir.Join("http.crt");
  const std::string key = dir.Join("http.key");
  InstallCertificatePair(certs_->server, cert, key);
  START_DAEMON(daemon, SimDaemonArgs({"--http-listen=127.0.0.1:0", "--http-tls-cert=" + cert,
                                      "--http-tls-key=" + key}));
  const std::optional<std::string> http = WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+)");
  ASSERT_TRUE(http.has_value());
  ASSERT_TRUE(WaitForServed(*http, "server-1"));

  // The key of another certificate: refused, logged, and the old pair keeps serving.
  WriteFile(key + ".new", certs_->server_rotated.KeyPem());
  fs::rename(key + ".new", key);
  const std::string refused = "refused new HTTP TLS certificate from " + cert + ": ";
  EXPECT_TRUE(
      WaitUntil([&] { return daemon->process->Stderr().find(refused) != std::string::npos; },
                kHttpRotationDeadline))
      << daemon->process->Stderr();
  EXPECT_THAT(daemon->process->Stderr(), HasSubstr("the previous one keeps serving"));
  EXPECT_THAT(daemon->process->Stderr(), Not(HasSubstr("PRIVATE KEY")));
  const HttpResult still = HttpsGet(*http, "/readyz");
  EXPECT_EQ(still.status, 200) << still.error;
  EXPECT_THAT(still.error, HasSubstr("subject: CN=server-1"));

  InstallCertificatePair(certs_->server_rotated, cert, key);
  EXPECT_TRUE(WaitForServed(*http, "server-2"));
  EXPECT_THAT(daemon->process->Stderr(), HasSubstr("new HTTP TLS certificate 'CN=server-2'"));
}

// With a poll interval of an hour, only SIGHUP can make the daemon read the new files.
TEST_F(HttpE2ETest, SighupReloadsTheHttpsCertificate) {
  TempDir dir;
  const std::string cert = dir.Join("http.crt");
  const std::string key = dir.Join("http.key");
  InstallCertificatePair(certs_->server, cert, key);
  START_DAEMON(daemon, SimDaemonArgs({"--http-listen=127.0.0.1:0", "--http-tls-cert=" + cert,
                                      "--http-tls-key=" + key, "--credential-poll-interval=1h"}));
  const std::optional<std::string> http = WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+)");
  ASSERT_TRUE(http.has_value());
  ASSERT_TRUE(WaitForServed(*http, "server-1"));
  InstallCertificatePair(certs_->server_rotated, cert, key);
  ASSERT_EQ(::kill(daemon->process->pid(), SIGHUP), 0);
  EXPECT_TRUE(WaitForServed(*http, "server-2"));
}

TEST_F(HttpE2ETest, HttpsFlagMistakesStopTheStart) {
  struct Case {
    std::vector<std::string> flags;
    std::string message;
  };
  const TempDir empty;
  const std::string missing = empty.Join("missing.pem");
  for (const Case& bad : {
           Case{{"--http-listen=127.0.0.1:0", "--http-tls-key=" + certs_->server.key},
                "--http-tls-key needs --http-tls-cert"},
           Case{{"--http-listen=127.0.0.1:0", "--http-tls-cert=" + certs_->server.cert},
                "--http-tls-cert needs --http-tls-key"},
           Case{{"--http-tls-cert=" + certs_->server.cert, "--http-tls-key=" + certs_->server.key},
                "--http-tls-cert needs --http-listen"},
           Case{{"--http-listen=127.0.0.1:0", "--http-tls-cert=" + missing,
                 "--http-tls-key=" + certs_->server.key},
                "--http-tls-cert: cannot open " + missing},
           Case{{"--http-listen=127.0.0.1:0", "--http-tls-cert=" + certs_->server.cert,
                 "--http-tls-key=" + certs_->client.key},
                "the private key does not belong to certificate 'CN=server-1'"},
       }) {
    SCOPED_TRACE(bad.message);
    DaemonProcess daemon(SimDaemonArgs(bad.flags));
    EXPECT_NE(daemon.WaitForExit(absl::Seconds(30)), 0);
    EXPECT_THAT(daemon.Stderr(), HasSubstr(bad.message));
  }
}

TEST_F(HttpE2ETest, TokensGuardThePathsThatNameModelsAndNotTheProbes) {
  TempDir dir;
  const std::string infer = dir.Write("infer-tokens", absl::StrCat("app:", kHttpInferToken, "\n"));
  const std::string admin = dir.Write("admin-tokens", absl::StrCat("ops:", kHttpAdminToken, "\n"));
  START_DAEMON(daemon, SimDaemonArgs({"--http-listen=127.0.0.1:0", "--infer-token-file=" + infer,
                                      "--admin-token-file=" + admin}));
  const std::optional<std::string> http = WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+)");
  ASSERT_TRUE(http.has_value());
  const std::string base = "http://" + *http;
  EXPECT_TRUE(WaitUntil([&] { return HttpGet(base + "/readyz").status == 200; }));
  EXPECT_EQ(HttpGet(base + "/livez").status, 200);

  for (const char* path : {"/metrics", "/v1/models"}) {
    SCOPED_TRACE(path);
    const HttpResult none = HttpGet(base + path);
    EXPECT_EQ(none.status, 401);
    EXPECT_EQ(none.Header("WWW-Authenticate"), "Bearer");
    EXPECT_THAT(none.body, HasSubstr("\"error\""));
    const HttpResult wrong = HttpFetch(
        {.url = base + path, .headers = {"Authorization: Bearer e2e-not-a-token-0000000000"}});
    EXPECT_EQ(wrong.status, 401);
    for (const char* token : {kHttpInferToken, kHttpAdminToken}) {
      const HttpResult ok = HttpFetch(
          {.url = base + path, .headers = {absl::StrCat("Authorization: Bearer ", token)}});
      EXPECT_EQ(ok.status, 200) << ok.body;
    }
  }
  const std::string log = daemon->process->Stderr();
  EXPECT_THAT(log, Not(HasSubstr(kHttpInferToken)));
  EXPECT_THAT(log, Not(HasSubstr(kHttpAdminToken)));
  EXPECT_THAT(log, Not(HasSubstr("e2e-not-a-token")));
}

}  // namespace
}  // namespace http_e2e_test
}  // namespace neuronserve::testing
