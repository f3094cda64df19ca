// TLS and mutual TLS on the real daemon (issue 17): certificates made by openssl in the test
// (tests/support/test_certificates.h); the client library, raw gRPC channels (to read the
// certificate a new connection gets) and neuronctl as clients. Rotation by rewriting the files,
// by a Kubernetes-style `..data` symlink swap and by SIGHUP, with a stream opened before the
// rotation still answering after it; broken new certificates refused while the old one serves.
#include <signal.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "client/lib/client.h"
#include "client/simmodel/identity_model.h"
#include "gmock/gmock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "tests/e2e/daemon_process.h"
#include "tests/e2e/grpc_blocking_shutdown.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certificates.h"
#include "tests/support/build_paths.h"

namespace neuronserve::testing {
namespace tls_e2e_test {
namespace {

using client::Client;
using client::ConnectOptions;
using client::InferSession;
using client::InferStreamResult;
using client::NamedTensor;
using ::testing::HasSubstr;

namespace fs = std::filesystem;

// Within the provider's 1 s refresh, with a margin for a loaded machine.
constexpr absl::Duration kTlsRotationDeadline = absl::Seconds(5);

class TlsE2ETest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    GrpcBlockingShutdown::Begin();  // the TLS channels' cleanup ends before the exit
    certs_ = &SharedTestCertificates();
  }
  static void TearDownTestSuite() { GrpcBlockingShutdown::End(); }

  // Client options for `address` trusting the test CA, with `identity` as client certificate
  // when given.
  static ConnectOptions TlsTo(const std::string& address,
                              const CertificateFiles* identity = nullptr) {
    ConnectOptions options;
    options.target = address;
    options.timeout = absl::Seconds(10);
    options.tls = true;
    options.tls_ca_file = certs_->ca.cert;
    if (identity != nullptr) {
      options.tls_cert_file = identity->cert;
      options.tls_key_file = identity->key;
    }
    return options;
  }

  // Enumerate through the client library: OK, or the error the connection ended with.
  static absl::Status TryEnumerate(const ConnectOptions& options) {
    absl::StatusOr<std::unique_ptr<Client>> client = Client::Connect(options);
    if (!client.ok()) return client.status();
    return (*client)->Enumerate().status();
  }

  // The common name of the certificate the daemon presents to a new connection (a channel of
  // its own, so no connection of an earlier channel is reused), read from the call's
  // AuthContext; the call's error when the handshake or the call fails.
  static absl::StatusOr<std::string> ServedCommonName(const std::string& address,
                                                      const CertificateFiles* identity = nullptr) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = certs_->ca.CertPem();
    if (identity != nullptr) {
      ssl.pem_cert_chain = identity->CertPem();
      ssl.pem_private_key = identity->KeyPem();
    }
    grpc::ChannelArguments arguments;
    arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    std::shared_ptr<grpc::Channel> channel =
        grpc::CreateCustomChannel(address, grpc::SslCredentials(ssl), arguments);
    auto stub = grpc::health::v1::Health::NewStub(channel);
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
    grpc::health::v1::HealthCheckRequest request;
    grpc::health::v1::HealthCheckResponse response;
    grpc::Status status = stub->Check(&context, request, &response);
    if (!status.ok()) {
      return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                          status.error_message());
    }
    std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
    if (auth == nullptr) return absl::InternalError("no auth context");
    std::vector<grpc::string_ref> names = auth->FindPropertyValues("x509_common_name");
    if (names.empty()) return absl::InternalError("no x509_common_name");
    return std::string(names.front().data(), names.front().size());
  }

  // Waits until new connections get the certificate `common_name`; the last answer otherwise.
  static absl::StatusOr<std::string> WaitForServed(const std::string& address,
                                                   const std::string& common_name,
                                                   const CertificateFiles* identity = nullptr) {
    absl::StatusOr<std::string> served;
    WaitUntil(
        [&] {
          served = ServedCommonName(address, identity);
          return served.ok() && *served == common_name;
        },
        kTlsRotationDeadline);
    return served;
  }

  static int Count(const std::string& text, const std::string& needle) {
    int count = 0;
    for (size_t at = text.find(needle); at != std::string::npos;
         at = text.find(needle, at + needle.size())) {
      ++count;
    }
    return count;
  }

  // Waits until the daemon's log holds `needle` more than `before` times.
  static bool WaitForLog(DaemonProcess& daemon, const std::string& needle, int before) {
    return WaitUntil([&] { return Count(daemon.Stderr(), needle) > before; }, kTlsRotationDeadline);
  }

  // The daemon on the simulator with `flags`, its TMPDIR in the test's own folder: the daemon
  // keeps its private certificate copy there, and a daemon killed at the end of a test (the
  // ChildProcess destructor) cannot remove it itself.
  DaemonArgs Args(std::vector<std::string> flags) {
    return SimDaemonArgs(std::move(flags), {{"TMPDIR", daemon_tmp_.path()}});
  }

  static const TestCertificates* certs_;
  TempDir daemon_tmp_;
};
const TestCertificates* TlsE2ETest::certs_ = nullptr;

absl::Span<const uint8_t> Bytes(const std::string& bytes) {
  return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

// One identity-model request on `session`, answered.
void ExpectStreamAnswers(InferSession& session, float value) {
  const std::vector<float> input = {value, value + 1, value + 2, value + 3};
  absl::StatusOr<std::string> id =
      session.Send("id", {NamedTensor{.name = "input", .shape = {1, 4}, .values = input}});
  ASSERT_TRUE(id.ok()) << id.status();
  absl::StatusOr<std::optional<InferStreamResult>> answer = session.Receive();
  ASSERT_TRUE(answer.ok()) << answer.status();
  ASSERT_TRUE(answer->has_value()) << session.Finish();
  ASSERT_TRUE((*answer)->status.ok()) << (*answer)->status;
  EXPECT_EQ((*answer)->id, *id);
  EXPECT_EQ((*answer)->result.outputs.at("output").values, input);
}

TEST_F(TlsE2ETest, TlsServesTheCertificateAndAPlaintextClientFails) {
  START_DAEMON(daemon,
               Args({"--tls-cert=" + certs_->server.cert, "--tls-key=" + certs_->server.key}));
  EXPECT_THAT(daemon->process->Stderr(), HasSubstr("with TLS (client certificates required: no)"));
  EXPECT_TRUE(TryEnumerate(TlsTo(daemon->address)).ok());
  absl::StatusOr<std::string> served = ServedCommonName(daemon->address);
  ASSERT_TRUE(served.ok()) << served.status();
  EXPECT_EQ(*served, "server-1");

  ConnectOptions plaintext;
  plaintext.target = daemon->address;
  plaintext.timeout = absl::Seconds(10);
  absl::Status refused = TryEnumerate(plaintext);
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable) << refused;

  // The private copy of the key lives only as long as the daemon.
  auto copies = [&] {
    int found = 0;
    for (const fs::directory_entry& entry : fs::directory_iterator(daemon_tmp_.path())) {
      found += absl::StartsWith(entry.path().filename().string(), "neuron-serve-tls-") ? 1 : 0;
    }
    return found;
  };
  EXPECT_EQ(copies(), 1);
  EXPECT_EQ(daemon->process->StopWith(SIGTERM), 0);
  EXPECT_EQ(copies(), 0);
}

TEST_F(TlsE2ETest, MutualTlsNeedsAClientCertificateOfTheConfiguredCa) {
  START_DAEMON(daemon, Args({"--tls-cert=" + certs_->server.cert, "--tls-key=" + certs_->server.key,
                             "--tls-client-ca=" + certs_->ca.cert}));
  EXPECT_THAT(daemon->process->Stderr(), HasSubstr("with TLS (client certificates required: yes)"));
  EXPECT_TRUE(TryEnumerate(TlsTo(daemon->address, &certs_->client)).ok());

  absl::Status without = TryEnumerate(TlsTo(daemon->address));
  EXPECT_EQ(without.code(), absl::StatusCode::kUnavailable) << without;
  absl::Status other_ca = TryEnumerate(TlsTo(daemon->address, &certs_->other_client));
  EXPECT_EQ(other_ca.code(), absl::StatusCode::kUnavailable) << other_ca;
  // At the handshake: not even health, which needs no token, is answered.
  EXPECT_FALSE(ServedCommonName(daemon->address).ok());
  absl::StatusOr<std::string> served = ServedCommonName(daemon->address, &certs_->client);
  ASSERT_TRUE(served.ok()) << served.status();
  EXPECT_EQ(*served, "server-1");
}

TEST_F(TlsE2ETest, FlagMistakesAndABadFirstCertificateStopTheStart) {
  struct Case {
    std::vector<std::string> flags;
    std::string message;
  };
  const TempDir empty;
  const std::string missing = empty.Join("missing.pem");
  for (const Case& bad : {
           Case{{"--tls-key=" + certs_->server.key}, "--tls-key needs --tls-cert"},
           Case{{"--tls-cert=" + certs_->server.cert}, "--tls-cert needs --tls-key"},
           Case{{"--tls-client-ca=" + certs_->ca.cert}, "--tls-client-ca needs --tls-cert"},
           Case{{"--tls-cert=" + missing, "--tls-key=" + certs_->server.key},
                "--tls-cert: cannot open " + missing},
           Case{{"--tls-cert=" + certs_->expired_server.cert,
                 "--tls-key=" + certs_->expired_server.key},
                "certificate 'CN=server-expired' expired at"},
           Case{{"--tls-cert=" + certs_->server.cert, "--tls-key=" + certs_->client.key},
                "the private key does not belong to certificate 'CN=server-1'"},
       }) {
    SCOPED_TRACE(bad.message);
    DaemonProcess daemon(Args(bad.flags));
    EXPECT_NE(daemon.WaitForExit(absl::Seconds(30)), 0);
    EXPECT_THAT(daemon.Stderr(), HasSubstr(bad.message));
  }
}

// The files are rewritten in place; the daemon's watcher notices within its poll interval.
TEST_F(TlsE2ETest, ARewrittenCertificateIsServedToNewConnectionsWhileAnOpenStreamRuns) {
  TempDir dir;
  const std::string cert = dir.Join("tls.crt");
  const std::string key = dir.Join("tls.key");
  InstallCertificatePair(certs_->server, cert, key);
  START_DAEMON(daemon, Args({"--tls-cert=" + cert, "--tls-key=" + key,
                             "--tls-client-ca=" + certs_->ca.cert}));
  absl::StatusOr<std::unique_ptr<Client>> client =
      Client::Connect(TlsTo(daemon->address, &certs_->client));
  ASSERT_TRUE(client.ok()) << client.status();
  const std::string neff = EncodeNeff(IdentityModel({1, 4}));
  ASSERT_TRUE((*client)->LoadModel(Config("id"), Bytes(neff)).ok());
  absl::StatusOr<std::unique_ptr<InferSession>> session = (*client)->OpenStream();
  ASSERT_TRUE(session.ok()) << session.status();
  ExpectStreamAnswers(**session, 1);

  InstallCertificatePair(certs_->server_rotated, cert, key);
  absl::StatusOr<std::string> served = WaitForServed(daemon->address, "server-2", &certs_->client);
  EXPECT_EQ(served.value_or(served.status().ToString()), "server-2");
  EXPECT_THAT(daemon->process->Stderr(), HasSubstr("new TLS certificate 'CN=server-2'"));

  // The stream's connection keeps the certificate of its handshake and goes on answering.
  ExpectStreamAnswers(**session, 2);
  ASSERT_TRUE((*session)->CloseSend().ok());
  EXPECT_TRUE((*session)->Finish().ok());
}

// How Kubernetes updates a mounted Secret: the files are symlinks through `..data`, a symlink
// to a timestamped directory, and an update swaps `..data` to a new directory in one rename.
TEST_F(TlsE2ETest, AKubernetesSymlinkSwapIsServedToNewConnections) {
  TempDir dir;
  auto write_version = [&](const std::string& version, const CertificateFiles& pair) {
    WriteFile(dir.Join(version + "/tls.crt"), pair.CertPem());
    WriteFile(dir.Join(version + "/tls.key"), pair.KeyPem());
    fs::create_directory_symlink(version, dir.Join("..data_tmp"));
    fs::rename(dir.Join("..data_tmp"), dir.Join("..data"));
  };
  write_version("..2026_01_01_00_00_00.1", certs_->server);
  fs::create_symlink("..data/tls.crt", dir.Join("tls.crt"));
  fs::create_symlink("..data/tls.key", dir.Join("tls.key"));
  START_DAEMON(daemon,
               Args({"--tls-cert=" + dir.Join("tls.crt"), "--tls-key=" + dir.Join("tls.key")}));
  absl::StatusOr<std::string> before = ServedCommonName(daemon->address);
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_EQ(*before, "server-1");

  write_version("..2026_01_01_00_00_00.2", certs_->server_rotated);
  fs::remove_all(dir.Join("..2026_01_01_00_00_00.1"));
  absl::StatusOr<std::string> served = WaitForServed(daemon->address, "server-2");
  EXPECT_EQ(served.value_or(served.status().ToString()), "server-2");
}

// With a poll interval of an hour, only SIGHUP can make the daemon read the new files.
TEST_F(TlsE2ETest, SighupReloadsAtOnce) {
  TempDir dir;
  const std::string cert = dir.Join("tls.crt");
  const std::string key = dir.Join("tls.key");
  InstallCertificatePair(certs_->server, cert, key);
  START_DAEMON(daemon,
               Args({"--tls-cert=" + cert, "--tls-key=" + key, "--credential-poll-interval=1h"}));
  InstallCertificatePair(certs_->server_rotated, cert, key);
  ASSERT_EQ(::kill(daemon->process->pid(), SIGHUP), 0);
  absl::StatusOr<std::string> served = WaitForServed(daemon->address, "server-2");
  EXPECT_EQ(served.value_or(served.status().ToString()), "server-2");
  EXPECT_THAT(daemon->process->Stderr(), HasSubstr("new TLS certificate 'CN=server-2'"));
}

TEST_F(TlsE2ETest, ABrokenNewCertificateIsRefusedAndTheOldOneKeepsServing) {
  TempDir dir;
  const std::string cert = dir.Join("tls.crt");
  const std::string key = dir.Join("tls.key");
  InstallCertificatePair(certs_->server, cert, key);
  // SIGHUP makes each attempt's refusal come at a known moment (the watcher would find it too).
  START_DAEMON(daemon,
               Args({"--tls-cert=" + cert, "--tls-key=" + key, "--credential-poll-interval=1h"}));
  const std::string refused = "refused new TLS certificate from " + cert + ": ";
  struct Case {
    std::string what;
    std::string cert;
    std::string key;
    std::string reason;
  };
  for (const Case& bad : {
           Case{"mismatched key", certs_->server_rotated.CertPem(), certs_->server.KeyPem(),
                "the private key does not belong to certificate 'CN=server-2'"},
           Case{"garbage", "garbage\n", "garbage\n",
                "the certificate file holds no PEM certificate"},
           Case{"expired", certs_->expired_server.CertPem(), certs_->expired_server.KeyPem(),
                "certificate 'CN=server-expired' expired at"},
       }) {
    SCOPED_TRACE(bad.what);
    const int before = Count(daemon->process->Stderr(), refused);
    WriteFile(cert, bad.cert);
    WriteFile(key, bad.key);
    ASSERT_EQ(::kill(daemon->process->pid(), SIGHUP), 0);
    ASSERT_TRUE(WaitForLog(*daemon->process, refused, before)) << daemon->process->Stderr();
    EXPECT_THAT(daemon->process->Stderr(), HasSubstr(refused + bad.reason));
    EXPECT_THAT(daemon->process->Stderr(), HasSubstr("the previous one keeps serving"));
    absl::StatusOr<std::string> served = ServedCommonName(daemon->address);
    EXPECT_EQ(served.value_or(served.status().ToString()), "server-1");
  }
  // The private key never reaches the log.
  const std::string log = daemon->process->Stderr();
  for (const CertificateFiles* pair : {&certs_->server, &certs_->expired_server}) {
    const std::string pem = pair->KeyPem();
    const std::string body = pem.substr(pem.find('\n') + 1, 40);
    EXPECT_FALSE(absl::StrContains(log, body));
  }

  // Good files again: served.
  InstallCertificatePair(certs_->server_rotated, cert, key);
  ASSERT_EQ(::kill(daemon->process->pid(), SIGHUP), 0);
  absl::StatusOr<std::string> served = WaitForServed(daemon->address, "server-2");
  EXPECT_EQ(served.value_or(served.status().ToString()), "server-2");
}

TEST_F(TlsE2ETest, NeuronctlReachesAMutualTlsDaemon) {
  START_DAEMON(daemon, Args({"--tls-cert=" + certs_->server.cert, "--tls-key=" + certs_->server.key,
                             "--tls-client-ca=" + certs_->ca.cert}));
  auto neuronctl = [&](std::vector<std::string> flags) {
    std::vector<std::string> argv = {NEURONCTL_PATH, "devices", "--server=" + daemon->address,
                                     "--tls-ca=" + certs_->ca.cert};
    argv.insert(argv.end(), flags.begin(), flags.end());
    return RunProcess(argv);
  };
  ProcessResult with_identity =
      neuronctl({"--tls-cert=" + certs_->client.cert, "--tls-key=" + certs_->client.key});
  EXPECT_EQ(with_identity.exit_code, 0) << with_identity.out << with_identity.err;
  ProcessResult without = neuronctl({});
  EXPECT_NE(without.exit_code, 0) << without.out << without.err;
  EXPECT_NE(without.exit_code, -1);
}

}  // namespace
}  // namespace tls_e2e_test
}  // namespace neuronserve::testing
