// deploy/systemd: `systemd-analyze verify` and `systemd-analyze security` on the unit (where
// systemd-analyze exists), its keys either way, and the daemon started with the environment
// file's settings on the simulator, and the drop-in exposed.conf (mutual TLS and tokens
// through LoadCredential) run the same way.
#include <signal.h>

#include <map>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "client/lib/client.h"
#include "gtest/gtest.h"
#include "tests/deploy/deploy_tools.h"
#include "tests/deploy/pod_runner.h"
#include "tests/support/child_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/test_certificates.h"
#include "tests/support/build_paths.h"

namespace neuronserve::testing {
namespace {

const std::string kUnit = std::string(DEPLOY_DIR) + "/systemd/neuron-serve.service";
const std::string kEnvFile = std::string(DEPLOY_DIR) + "/systemd/neuron-serve.env";
constexpr char kInstalledBinary[] = "/usr/local/bin/neuron-serve";  // cmake --install's default
constexpr char kInstalledEnvFile[] = "/etc/neuron-serve/neuron-serve.env";

// section -> key -> every value it is given, in order.
using UnitFile = std::map<std::string, std::map<std::string, std::vector<std::string>>>;

UnitFile ParseUnit(const std::string& text_with_continuations) {
  // A line ending in a backslash continues on the next (systemd joins them with a space).
  const std::string text = absl::StrReplaceAll(text_with_continuations, {{"\\\n", " "}});
  UnitFile unit;
  std::string section;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = std::string(line.substr(1, line.size() - 2));
      continue;
    }
    const size_t equals = line.find('=');
    if (equals == absl::string_view::npos) continue;
    unit[section][std::string(absl::StripAsciiWhitespace(line.substr(0, equals)))].emplace_back(
        absl::StripAsciiWhitespace(line.substr(equals + 1)));
  }
  return unit;
}

std::map<std::string, std::string> ParseEnvFile(const std::string& text) {
  std::map<std::string, std::string> env;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty() || line[0] == '#') continue;
    const size_t equals = line.find('=');
    if (equals == absl::string_view::npos) continue;
    env[std::string(line.substr(0, equals))] = std::string(line.substr(equals + 1));
  }
  return env;
}

class SystemdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> unit = ReadFile(kUnit);
    ASSERT_TRUE(unit.ok()) << unit.status();
    unit_text_ = *unit;
    unit_ = ParseUnit(unit_text_);
    absl::StatusOr<std::string> env = ReadFile(kEnvFile);
    ASSERT_TRUE(env.ok()) << env.status();
    env_ = ParseEnvFile(*env);
  }

  // The one value of a key, or "" (and a failure) if it is missing or given more than once.
  std::string One(const std::string& section, const std::string& key) {
    const std::vector<std::string>& values = unit_[section][key];
    EXPECT_EQ(values.size(), 1u) << "[" << section << "] " << key;
    return values.empty() ? "" : values.front();
  }

  // A copy of the unit whose ExecStart runs this build's binary (systemd-analyze verify checks
  // that the executable exists): the only change.
  std::string CopyForVerify(const TempDir& dir) {
    std::string text = unit_text_;
    const std::string exec = absl::StrCat("\nExecStart=", kInstalledBinary);
    EXPECT_TRUE(absl::StrContains(text, exec));
    text.replace(text.find(exec), exec.size(), absl::StrCat("\nExecStart=", NEURON_SERVE_PATH));
    const std::string path = dir.path() + "/neuron-serve.service";
    EXPECT_TRUE(WriteFile(path, text).ok());
    return path;
  }

  std::string unit_text_;
  UnitFile unit_;
  std::map<std::string, std::string> env_;
};

TEST_F(SystemdTest, VerifyPasses) {
  const std::string analyze = FindProgram("systemd-analyze");
  if (analyze.empty()) GTEST_SKIP() << "no systemd-analyze here; KeysHardenTheService checks";
  TempDir dir;
  const std::string copy = CopyForVerify(dir);
  const ProcessResult verify = RunProcess({analyze, "verify", "--man=no", copy});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  // verify exits 0 even for unknown keys and bad values; it only says so.
  for (absl::string_view line : absl::StrSplit(verify.out + verify.err, '\n')) {
    EXPECT_FALSE(absl::StrContains(line, "neuron-serve.service")) << line;
  }
}

TEST_F(SystemdTest, SecurityExposureIsLow) {
  const std::string analyze = FindProgram("systemd-analyze");
  if (analyze.empty()) GTEST_SKIP() << "no systemd-analyze here";
  TempDir dir;
  const std::string copy = CopyForVerify(dir);
  // The overall exposure, 0.0 (locked down) to 10.0, printed as "1.6 OK"; the threshold is
  // in tenths. 2.0 keeps it within systemd's "OK" band.
  const ProcessResult security =
      RunProcess({analyze, "security", "--offline=yes", "--threshold=20", copy});
  EXPECT_EQ(security.exit_code, 0) << security.out << security.err;
}

TEST_F(SystemdTest, KeysHardenTheService) {
  EXPECT_EQ(One("Service", "ExecStart"), kInstalledBinary);
  EXPECT_EQ(One("Service", "EnvironmentFile"), kInstalledEnvFile);
  EXPECT_EQ(One("Service", "Type"), "exec");
  EXPECT_EQ(One("Service", "DynamicUser"), "yes");
  EXPECT_EQ(One("Service", "ProtectSystem"), "strict");
  EXPECT_EQ(One("Service", "ProtectHome"), "yes");
  EXPECT_EQ(One("Service", "PrivateTmp"), "yes");
  EXPECT_EQ(One("Service", "NoNewPrivileges"), "yes");
  EXPECT_EQ(One("Service", "CapabilityBoundingSet"), "");
  EXPECT_EQ(One("Service", "DevicePolicy"), "closed");
  // Every /dev/neuronN: the driver registers its character devices as "neuron".
  EXPECT_EQ(One("Service", "DeviceAllow"), "char-neuron rw");
  EXPECT_TRUE(unit_["Service"]["PrivateDevices"].empty()) << "it would hide /dev/neuron*";
  EXPECT_EQ(One("Service", "StateDirectory"), "neuron-serve");
  EXPECT_EQ(One("Service", "RuntimeDirectory"), "neuron-serve");  // the admin socket
  EXPECT_EQ(One("Service", "ExecReload"), "/bin/kill -HUP $MAINPID");  // certificates, tokens
  EXPECT_EQ(One("Service", "RestartPreventExitStatus"), "2");
  EXPECT_EQ(One("Install", "WantedBy"), "multi-user.target");
}

TEST_F(SystemdTest, TheStopTimeoutExceedsTheDrain) {
  const std::string drain_text = env_.contains("NEURON_SERVE_DRAIN_TIMEOUT")
                                     ? env_["NEURON_SERVE_DRAIN_TIMEOUT"]
                                     : DaemonFlagDefaults().at("drain_timeout");
  absl::StatusOr<absl::Duration> drain = ParseFlagDuration(drain_text);
  ASSERT_TRUE(drain.ok()) << drain.status();
  // TimeoutStopSec in the unit is written with a unit suffix absl also reads ("45s").
  absl::StatusOr<absl::Duration> stop = ParseFlagDuration(One("Service", "TimeoutStopSec"));
  ASSERT_TRUE(stop.ok()) << stop.status();
  EXPECT_GT(*stop, *drain);
  const std::vector<std::string>& kill = unit_["Service"]["KillSignal"];
  EXPECT_TRUE(kill.empty() || kill.front() == "SIGTERM");
}

TEST_F(SystemdTest, TheEnvFileSetsDaemonFlagsAndTheUnitsStateDirectory) {
  ASSERT_FALSE(env_.empty());
  for (const auto& [variable, value] : env_) {
    const std::string flag = FlagForEnvironmentVariable(variable);
    ASSERT_FALSE(flag.empty()) << variable << " is not a NEURON_SERVE_ variable";
    EXPECT_TRUE(DaemonFlagDefaults().contains(flag)) << variable << " names no flag";
  }
  EXPECT_EQ(env_["NEURON_SERVE_STATE_DIR"],
            absl::StrCat("/var/lib/", One("Service", "StateDirectory")));
}

TEST_F(SystemdTest, TheDaemonStartsWithTheEnvFile) {
  // The env file's settings, verbatim, except what exists only on a Neuron host: the runtime
  // library (this build's simulator), the model repository (the example one, deploy/models),
  // the state directory (a temporary one), the addresses (a free loopback port each) and the
  // admin socket (in a temporary folder for the unit's RuntimeDirectory).
  TempDir state;
  TempDir runtime_directory;
  std::map<std::string, std::string> env = env_;
  env["NEURON_SERVE_NRT_LIBRARY"] = NRTSIM_LIBRARY_PATH;
  env["NEURON_SERVE_MODEL_REPOSITORY"] = std::string(DEPLOY_DIR) + "/models";
  env["NEURON_SERVE_STATE_DIR"] = state.path();
  env["NEURON_SERVE_LISTEN"] = "127.0.0.1:0";
  env["NEURON_SERVE_HTTP_LISTEN"] = "127.0.0.1:0";
  const std::string admin_prefix =
      absl::StrCat("unix:/run/", One("Service", "RuntimeDirectory"), "/");
  ASSERT_TRUE(absl::StartsWith(env["NEURON_SERVE_ADMIN_LISTEN"], admin_prefix))
      << "the admin socket is not in the unit's RuntimeDirectory";
  const std::string admin_socket = absl::StrCat(
      runtime_directory.path(), "/", env["NEURON_SERVE_ADMIN_LISTEN"].substr(admin_prefix.size()));
  env["NEURON_SERVE_ADMIN_LISTEN"] = "unix:" + admin_socket;
  for (const auto& [name, value] : ImageEnvironment()) env[name] = value;
  ChildSpec spec;
  spec.argv = {NEURON_SERVE_PATH};  // ExecStart has no arguments
  spec.unset_prefixes = {""};
  spec.env = env;
  ChildProcess daemon(spec);
  std::optional<std::string> address = daemon.WaitUntilListening(absl::Seconds(30));
  ASSERT_TRUE(address.has_value()) << daemon.Stderr();
  EXPECT_TRUE(WaitForServing(*address, "", absl::Seconds(10))) << daemon.Stderr();
  EXPECT_TRUE(WaitForServing(*address, "mlp", absl::Seconds(10))) << daemon.Stderr();
  // `sudo neuronctl ... --server=unix:/run/neuron-serve/admin.sock` reaches the admin socket.
  EXPECT_TRUE(WaitForServing("unix:" + admin_socket, "mlp", absl::Seconds(10))) << daemon.Stderr();
  EXPECT_EQ(daemon.StopWith(SIGTERM), 0) << daemon.Stderr();
}

// deploy/systemd/exposed.conf, the drop-in that serves other hosts: its credentials come
// through LoadCredential, its ExecStart replaces the unit's, and the daemon it starts (with %d,
// the credentials directory, pointed at a folder of test credentials) requires mutual TLS and a
// token on the API while the health port answers without either.
const std::string kExposedDropIn = std::string(DEPLOY_DIR) + "/systemd/exposed.conf";

TEST_F(SystemdTest, TheExposedDropInServesOtherHostsWithMutualTlsAndTokens) {
  absl::StatusOr<std::string> text = ReadFile(kExposedDropIn);
  ASSERT_TRUE(text.ok()) << text.status();
  UnitFile drop_in = ParseUnit(*text);
  std::map<std::string, std::string> credentials;  // name -> the file systemd copies
  for (const std::string& entry : drop_in["Service"]["LoadCredential"]) {
    const size_t colon = entry.find(':');
    ASSERT_NE(colon, std::string::npos) << entry;
    credentials[entry.substr(0, colon)] = entry.substr(colon + 1);
  }
  EXPECT_EQ(credentials.size(), 5u);
  const std::vector<std::string>& exec = drop_in["Service"]["ExecStart"];
  ASSERT_EQ(exec.size(), 2u) << "ExecStart= (reset) then the new command";
  EXPECT_EQ(exec[0], "");
  std::vector<std::string> argv = absl::StrSplit(exec[1], ' ', absl::SkipEmpty());
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(argv[0], kInstalledBinary);

  if (const std::string analyze = FindProgram("systemd-analyze"); !analyze.empty()) {
    TempDir dir;
    const std::string unit = CopyForVerify(dir);
    std::string drop_in_text = absl::StrReplaceAll(*text, {{kInstalledBinary, NEURON_SERVE_PATH}});
    ASSERT_TRUE(WriteFile(unit + ".d/exposed.conf", drop_in_text).ok());
    const ProcessResult verify = RunProcess({analyze, "verify", "--man=no", unit});
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
    for (absl::string_view line : absl::StrSplit(verify.out + verify.err, '\n')) {
      EXPECT_FALSE(absl::StrContains(line, "neuron-serve.service")) << line;
    }
  }

  // The credentials directory systemd would make: the files the drop-in names, by credential.
  TempDir credentials_dir;
  TempDir certificate_dir;
  const TestCertificates certificates = TestCertificates::Make(certificate_dir.path());
  const std::string infer_token = "systemd-test-infer-token-0123456789";
  const std::map<std::string, std::string> contents = {
      {"tls.crt", certificates.server.CertPem()},
      {"tls.key", certificates.server.KeyPem()},
      {"ca.crt", certificates.ca.CertPem()},
      {"infer-tokens", "client:" + infer_token + "\n"},
      {"admin-tokens", "operator:systemd-test-admin-token-0123456789\n"}};
  for (const auto& [name, source] : credentials) {
    ASSERT_TRUE(contents.contains(name)) << "unexpected credential " << name << " from " << source;
    ASSERT_TRUE(WriteFile(credentials_dir.Join(name), contents.at(name)).ok());
  }
  // The env file's settings as in TheDaemonStartsWithTheEnvFile, the drop-in's command line
  // with %d and the addresses substituted (a free loopback port each).
  TempDir state;
  std::map<std::string, std::string> env = env_;
  env["NEURON_SERVE_NRT_LIBRARY"] = NRTSIM_LIBRARY_PATH;
  env["NEURON_SERVE_MODEL_REPOSITORY"] = std::string(DEPLOY_DIR) + "/models";
  env["NEURON_SERVE_STATE_DIR"] = state.path();
  env["NEURON_SERVE_HTTP_LISTEN"] = "127.0.0.1:0";
  env["NEURON_SERVE_ADMIN_LISTEN"] = "unix:" + state.Join("admin.sock");
  for (const auto& [name, value] : ImageEnvironment()) env[name] = value;
  ChildSpec spec;
  spec.argv = {NEURON_SERVE_PATH};
  for (size_t i = 1; i < argv.size(); ++i) {
    std::string arg = absl::StrReplaceAll(argv[i], {{"%d", credentials_dir.path()}});
    if (absl::StartsWith(arg, "--listen=")) arg = "--listen=127.0.0.1:0";
    if (absl::StartsWith(arg, "--health-listen=")) arg = "--health-listen=127.0.0.1:0";
    spec.argv.push_back(arg);
  }
  spec.unset_prefixes = {""};
  spec.env = env;
  spec.capture_stdout = true;  // --audit-log=-: the journal
  ChildProcess daemon(spec);
  std::optional<std::string> address = daemon.WaitUntilListening(absl::Seconds(30));
  ASSERT_TRUE(address.has_value()) << daemon.Stderr();
  std::smatch health;
  const std::string log = daemon.Stderr();
  ASSERT_TRUE(std::regex_search(log, health, std::regex("health listener on ([0-9.]+:[0-9]+)")))
      << log;
  EXPECT_TRUE(WaitForServing(health[1], "mlp", absl::Seconds(10))) << log;

  client::ConnectOptions options;
  options.target = *address;
  options.timeout = absl::Seconds(10);
  options.tls = true;
  options.tls_ca_file = certificates.ca.cert;
  options.tls_cert_file = certificates.client.cert;
  options.tls_key_file = certificates.client.key;
  options.token = infer_token;
  absl::StatusOr<std::unique_ptr<client::Client>> client = client::Client::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  absl::StatusOr<std::vector<v1::ModelStatus>> models = (*client)->ListModels();
  EXPECT_TRUE(models.ok()) << models.status() << daemon.Stderr();
  options.token.clear();
  client = client::Client::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ((*client)->ListModels().status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(daemon.StopWith(SIGTERM), 0) << daemon.Stderr();
}

}  // namespace
}  // namespace neuronserve::testing
