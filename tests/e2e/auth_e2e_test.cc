// Issue 17's bearer tokens on the real daemon: every RPC of each scope with no token, a wrong
// one, one of the wrong scope and one of the right scope (exact codes); token files re-read
// after a change; health without a token; the audit log's lines and the caller's identity (the
// token's label, the client certificate's name) in the audit and access logs; no token and no
// private key in any line the daemon writes at any level; neuronctl --token-file.
#include <signal.h>

#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/lib/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certificates.h"
#include "tests/support/build_paths.h"

namespace neuronserve::testing {
namespace auth_e2e_test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kAuthInferToken[] = "e2e-infer-token-5f0c9a1d2b7e4c33";
constexpr char kAuthAdminToken[] = "e2e-admin-token-0a9b8c7d6e5f4a3b";
constexpr char kWrongToken[] = "e2e-wrong-token-1111222233334444";

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

// Who calls: the token it sends.
enum class Caller { kNoToken, kWrongToken, kAuthInferToken, kAuthAdminToken };

std::string CallerName(Caller caller) {
  switch (caller) {
    case Caller::kNoToken:
      return "no token";
    case Caller::kWrongToken:
      return "an unknown token";
    case Caller::kAuthInferToken:
      return "the infer token";
    case Caller::kAuthAdminToken:
      return "the admin token";
  }
  return "";
}

// A daemon with both token files, the access and audit logs, at --log-level=trace, and the
// identity model "id" loaded by the admin token; `extra` flags added.
class AuthE2ETest : public ::testing::Test {
 protected:
  void StartWith(std::vector<std::string> extra, client::ConnectOptions base = {}) {
    infer_file_ = dir_.Write("infer-tokens", absl::StrCat("# readers\n\napp:", kAuthInferToken, "\n"));
    admin_file_ = dir_.Write("admin-tokens", absl::StrCat("ops:", kAuthAdminToken, "\n"));
    model_file_ = dir_.Write("id.neff", EncodeNeff(IdentityModel({1, 4})));
    std::vector<std::string> flags = {"--infer-token-file=" + infer_file_,
                                      "--admin-token-file=" + admin_file_,
                                      "--audit-log=" + dir_.Join("audit.log"),
                                      "--access-log=" + dir_.Join("access.log"),
                                      "--log-level=trace"};
    flags.insert(flags.end(), extra.begin(), extra.end());
    std::string log;
    daemon_ = StartDaemon(SimDaemonArgs(flags), &log);
    ASSERT_NE(daemon_, nullptr) << log;
    base_ = std::move(base);
    absl::StatusOr<v1::LoadModelResponse> loaded =
        ClientAs(Caller::kAuthAdminToken)->LoadModelFromFile(Config("id"), model_file_);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
  }

  std::unique_ptr<client::Client> ClientAs(Caller caller) {
    client::ConnectOptions options = base_;
    options.target = daemon_->address;
    options.timeout = absl::Seconds(30);
    switch (caller) {
      case Caller::kNoToken:
        break;
      case Caller::kWrongToken:
        options.token = kWrongToken;
        break;
      case Caller::kAuthInferToken:
        options.token = kAuthInferToken;
        break;
      case Caller::kAuthAdminToken:
        options.token = kAuthAdminToken;
        break;
    }
    absl::StatusOr<std::unique_ptr<client::Client>> client = client::Client::Connect(options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? *std::move(client) : nullptr;
  }

  // Every line the daemon wrote: its stderr, the access log and the audit log.
  std::string EverythingLogged() {
    return absl::StrCat(daemon_->process->Stderr(), ReadWhole(dir_.Join("access.log")),
                        ReadWhole(dir_.Join("audit.log")));
  }

  TempDir dir_;
  std::string infer_file_;
  std::string admin_file_;
  std::string model_file_;
  std::unique_ptr<RunningDaemon> daemon_;
  client::ConnectOptions base_;
};

const std::vector<float> kValues = {1, 2, 3, 4};

absl::Status StreamOnce(client::Client& client) {
  absl::StatusOr<std::unique_ptr<client::InferSession>> session = client.OpenStream();
  if (!session.ok()) return session.status();
  (void)(*session)->Send("id", {{"input", {1, 4}, kValues}});
  (void)(*session)->CloseSend();
  while (true) {
    absl::StatusOr<std::optional<client::InferStreamResult>> result = (*session)->Receive();
    if (!result.ok() || !result->has_value()) break;
  }
  return (*session)->Finish();
}

TEST_F(AuthE2ETest, EveryRpcAnswersEachCallerWithItsScopesCode) {
  ASSERT_NO_FATAL_FAILURE(StartWith({}));
  struct Rpc {
    std::string name;
    bool admin;
    std::function<absl::Status(client::Client&)> call;
  };
  const std::vector<Rpc> rpcs = {
      {"Enumerate", false, [](client::Client& c) { return c.Enumerate().status(); }},
      {"ListModels", false, [](client::Client& c) { return c.ListModels().status(); }},
      {"GetModel", false, [](client::Client& c) { return c.GetModel("id").status(); }},
      {"Infer", false,
       [](client::Client& c) { return c.Infer("id", {{"input", {1, 4}, kValues}}).status(); }},
      {"InferStream", false, [](client::Client& c) { return StreamOnce(c); }},
      // Load, then unload, "id2": the admin caller's unload finds it loaded.
      {"LoadModel", true,
       [this](client::Client& c) {
         return c.LoadModelFromFile(Config("id2"), model_file_).status();
       }},
      {"UnloadModel", true, [](client::Client& c) { return c.Unload("id2").status(); }},
  };
  for (Caller caller :
       {Caller::kNoToken, Caller::kWrongToken, Caller::kAuthInferToken, Caller::kAuthAdminToken}) {
    std::unique_ptr<client::Client> client = ClientAs(caller);
    ASSERT_NE(client, nullptr);
    for (const Rpc& rpc : rpcs) {
      SCOPED_TRACE(absl::StrCat(rpc.name, " with ", CallerName(caller)));
      const absl::Status status = rpc.call(*client);
      switch (caller) {
        case Caller::kNoToken:
        case Caller::kWrongToken:
          EXPECT_EQ(status.code(), absl::StatusCode::kUnauthenticated) << status;
          EXPECT_THAT(std::string(status.message()), HasSubstr(rpc.name));
          break;
        case Caller::kAuthInferToken:
          if (rpc.admin) {
            EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied) << status;
            EXPECT_THAT(std::string(status.message()),
                        AllOf(HasSubstr(rpc.name), HasSubstr("admin"), HasSubstr("app")));
          } else {
            EXPECT_TRUE(status.ok()) << status;
          }
          break;
        case Caller::kAuthAdminToken:  // admin implies infer
          EXPECT_TRUE(status.ok()) << status;
          break;
      }
      EXPECT_THAT(std::string(status.message()),
                  AllOf(Not(HasSubstr(kAuthInferToken)), Not(HasSubstr(kAuthAdminToken)),
                                 Not(HasSubstr(kWrongToken))));
    }
  }
  // Health is a probe's: no token needed, for the daemon and for a model.
  std::unique_ptr<client::Client> anonymous = ClientAs(Caller::kNoToken);
  absl::StatusOr<client::HealthStatus> health = anonymous->CheckHealth("");
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, client::HealthStatus::kServing);
  health = anonymous->CheckHealth("id");
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, client::HealthStatus::kServing);

  // The audit log: the admin calls with the caller's label and model, and each refusal.
  std::string audit;
  // Waits for the unload's own line (the last call): "rpc=UnloadModel" alone also matches the
  // refusals; the load before it says bytes= after the model.
  ASSERT_TRUE(WaitUntil([&] {
    audit = ReadWhole(dir_.Join("audit.log"));
    for (absl::string_view line : absl::StrSplit(audit, '\n', absl::SkipEmpty())) {
      if (absl::StrContains(line, "rpc=UnloadModel") &&
          absl::StrContains(line, "identity=ops model=id2 code=OK")) {
        return true;
      }
    }
    return false;
  })) << audit;
  int refusals = 0;
  int admin_calls_ok = 0;
  for (absl::string_view line : absl::StrSplit(audit, '\n', absl::SkipEmpty())) {
    if (absl::StrContains(line, "code=UNAUTHENTICATED")) ++refusals;
    if (absl::StrContains(line, "code=PERMISSION_DENIED")) {
      EXPECT_TRUE(absl::StrContains(line, "identity=app")) << line;
      ++refusals;
    }
    if (absl::StrContains(line, "identity=ops") && absl::StrContains(line, "code=OK")) {
      ++admin_calls_ok;
    }
  }
  // 7 RPCs x 2 unauthenticated callers, and the infer token's 2 admin calls.
  EXPECT_EQ(refusals, 7 * 2 + 2) << audit;
  // The upload's line says how many bytes it carried: the NEFF's.
  const std::string uploaded =
      absl::StrCat("identity=ops model=id2 bytes=", ReadWhole(model_file_).size(), " code=OK");
  EXPECT_TRUE(absl::StrContains(audit, uploaded)) << uploaded << " in\n" << audit;
  // The setup's load, and this test's load and unload.
  EXPECT_EQ(admin_calls_ok, 3) << audit;
  // The access log names the caller of each inference by its token's label.
  std::string access;
  ASSERT_TRUE(WaitUntil([&] {
    access = ReadWhole(dir_.Join("access.log"));
    return absl::StrContains(access, "identity=app") && absl::StrContains(access, "identity=ops");
  })) << access;
}

TEST_F(AuthE2ETest, TokenFilesAreReadAgainAfterAChange) {
  ASSERT_NO_FATAL_FAILURE(StartWith({"--credential-poll-interval=100ms"}));
  const std::string rotated = "e2e-rotated-infer-token-77665544";
  std::ofstream(infer_file_, std::ios::trunc) << "app:" << rotated << "\n";
  client::ConnectOptions options;
  options.target = daemon_->address;
  options.token = rotated;
  absl::StatusOr<std::unique_ptr<client::Client>> with_new = client::Client::Connect(options);
  ASSERT_TRUE(with_new.ok()) << with_new.status();
  EXPECT_TRUE(WaitUntil([&] { return (*with_new)->ListModels().ok(); }))
      << daemon_->process->Stderr();
  EXPECT_EQ(ClientAs(Caller::kAuthInferToken)->ListModels().status().code(),
            absl::StatusCode::kUnauthenticated);
  // A file that no longer parses keeps the tokens it had, and says so naming file and line.
  std::ofstream(infer_file_, std::ios::trunc) << "app:short\n";
  EXPECT_TRUE(WaitUntil([&] {
    return absl::StrContains(daemon_->process->Stderr(), infer_file_ + ":1");
  })) << daemon_->process->Stderr();
  EXPECT_TRUE((*with_new)->ListModels().ok());
  EXPECT_THAT(EverythingLogged(), Not(HasSubstr(rotated)));
}

TEST_F(AuthE2ETest, NoTokenAndNoPrivateKeyInAnyLineAtAnyLevelAndTheCertificateNamesTheCaller) {
  const TestCertificates certificates = TestCertificates::Make(dir_.Join("pki"));
  client::ConnectOptions tls;
  tls.tls = true;
  tls.tls_ca_file = certificates.ca.cert;
  tls.tls_cert_file = certificates.client.cert;
  tls.tls_key_file = certificates.client.key;
  const std::string cert = dir_.Write("tls.crt", certificates.server.CertPem());
  const std::string key = dir_.Write("tls.key", certificates.server.KeyPem());
  ASSERT_NO_FATAL_FAILURE(StartWith({"--tls-cert=" + cert, "--tls-key=" + key,
                                     "--tls-client-ca=" + certificates.ca.cert},
                                    tls));
  // Good and bad calls of every kind, a rotation of the certificate, a bad one refused.
  for (Caller caller :
       {Caller::kNoToken, Caller::kWrongToken, Caller::kAuthInferToken, Caller::kAuthAdminToken}) {
    std::unique_ptr<client::Client> client = ClientAs(caller);
    ASSERT_NE(client, nullptr);
    (void)client->Infer("id", {{"input", {1, 4}, kValues}});
    (void)StreamOnce(*client);
    (void)client->LoadModelFromFile(Config("id2"), model_file_);
    (void)client->Unload("id2");
  }
  // A new certificate whose key does not match (refused and logged), then SIGHUP.
  dir_.Write("tls.crt", certificates.server_rotated.CertPem());
  kill(daemon_->process->pid(), SIGHUP);
  std::unique_ptr<client::Client> reader = ClientAs(Caller::kAuthInferToken);
  ASSERT_TRUE(reader->ListModels().ok());

  // The caller's name is its certificate's (the first subject alternative name), in both logs.
  std::string logged;
  ASSERT_TRUE(WaitUntil([&] {
    logged = EverythingLogged();
    return absl::StrContains(logged, "SIGHUP") &&
           absl::StrContains(logged, "refused new TLS certificate") &&
           absl::StrContains(ReadWhole(dir_.Join("access.log")), "identity=client-a") &&
           absl::StrContains(ReadWhole(dir_.Join("audit.log")), "identity=client-a");
  })) << logged;
  for (const char* token : {kAuthInferToken, kAuthAdminToken, kWrongToken}) {
    EXPECT_THAT(logged, Not(HasSubstr(token)));
  }
  // Not one line of any private key's body (the base64 between the PEM markers).
  for (const CertificateFiles* files :
       {&certificates.server, &certificates.client, &certificates.server_rotated}) {
    for (absl::string_view line : absl::StrSplit(files->KeyPem(), '\n', absl::SkipEmpty())) {
      if (absl::StartsWith(line, "-----")) continue;
      EXPECT_THAT(logged, Not(HasSubstr(std::string(line)))) << files->key;
    }
  }
  EXPECT_THAT(logged, Not(HasSubstr("PRIVATE KEY")));
}

TEST_F(AuthE2ETest, NeuronctlSendsItsTokenFile) {
  ASSERT_NO_FATAL_FAILURE(StartWith({}));
  const std::string token_file = dir_.Write("my-token", absl::StrCat(kAuthInferToken, "\n"));
  ProcessResult listed =
      RunProcess({NEURONCTL_PATH, "models", "--server=" + daemon_->address,
                  "--token-file=" + token_file});
  EXPECT_EQ(listed.exit_code, 0) << listed.out << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("id"));
  ProcessResult refused = RunProcess({NEURONCTL_PATH, "models", "--server=" + daemon_->address});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err, HasSubstr("UNAUTHENTICATED"));
  ProcessResult unload = RunProcess({NEURONCTL_PATH, "unload", "id", "--server=" + daemon_->address,
                                     "--token-file=" + token_file});
  EXPECT_NE(unload.exit_code, 0);
  EXPECT_THAT(unload.err, HasSubstr("PERMISSION_DENIED"));
}

}  // namespace
}  // namespace auth_e2e_test
}  // namespace neuronserve::testing
