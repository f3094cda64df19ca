// The errors and exit codes a user of the real neuronctl binary meets (unreachable server,
// unknown model, bad input files, bad command lines, unreadable token and TLS files), and its
// help.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/neuronctl_fixture.h"
#include "tests/e2e/neuronctl_runner.h"
#include "tests/support/subprocess.h"

namespace neuronserve::testing {
namespace neuronctl_e2e_test {
namespace {

// A loopback port nothing listens on: bound once to get a free number, then closed.
std::string ClosedAddress() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ADD_FAILURE() << "cannot bind a loopback port: " << std::strerror(errno);
  }
  ::close(fd);
  return absl::StrCat("127.0.0.1:", ntohs(address.sin_port));
}

TEST_F(NeuronctlE2ETest, AnUnreachableServerIsExitOneNamingIt) {
  const std::string closed = ClosedAddress();
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{{"devices"},
                                             {"models"},
                                             {"model", "mlp"},
                                             {"load", model_path_},
                                             {"unload", "mlp"},
                                             {"infer", "mlp", "--random"},
                                             {"health"}}) {
    ProcessResult result = NeuronctlAt(closed, command);
    EXPECT_EQ(result.exit_code, 1) << command[0] << ": " << result.err;
    EXPECT_THAT(result.err, HasSubstr("neuronctl " + command[0] + ": UNAVAILABLE: cannot reach "
                                      "neuron-serve at " + closed))
        << command[0];
  }
  // --wait keeps asking, then gives the same answer.
  ProcessResult waited = NeuronctlAt(closed, {"health", "--wait=600ms"});
  EXPECT_EQ(waited.exit_code, 1);
  EXPECT_THAT(waited.err, HasSubstr("cannot reach neuron-serve at " + closed));
}

TEST_F(NeuronctlE2ETest, UnknownModelAndBadInputFilesAreExitOneWithTheReason) {
  LoadMlp();
  const std::string good = dir_.Join("good.npy");
  WriteFile(good, NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 16), }",
                           InputRow()));

  ProcessResult unknown = NeuronctlAt(address(), {"infer", "nosuch", "--input=input=" + good});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("neuronctl infer: NOT_FOUND: "));
  EXPECT_THAT(unknown.err, HasSubstr("'nosuch'"));
  EXPECT_EQ(NeuronctlAt(address(), {"infer", "nosuch", "--random"}).exit_code, 1);

  const std::string missing = dir_.Join("missing.npy");
  ProcessResult no_file = NeuronctlAt(address(), {"infer", "mlp", "--input=input=" + missing});
  EXPECT_EQ(no_file.exit_code, 1);
  EXPECT_THAT(no_file.err, HasSubstr("cannot open " + missing + ": No such file or directory"));

  const std::string doubles = dir_.Join("doubles.npy");
  WriteFile(doubles, NpyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 8), }",
                              std::vector<float>(16)));
  ProcessResult wrong_dtype = NeuronctlAt(address(), {"infer", "mlp", "--input=input=" + doubles});
  EXPECT_EQ(wrong_dtype.exit_code, 1);
  EXPECT_THAT(wrong_dtype.err, HasSubstr(doubles + ": dtype '<f8' is not one neuronctl reads"));

  const std::string garbage = dir_.Join("garbage.npy");
  WriteFile(garbage, "not a numpy file");
  ProcessResult not_npy = NeuronctlAt(address(), {"infer", "mlp", "--input=input=" + garbage});
  EXPECT_EQ(not_npy.exit_code, 1);
  EXPECT_THAT(not_npy.err, HasSubstr(garbage + ": not a valid .npy file"));

  // A well-formed file of the wrong shape reaches the daemon, which names model, tensor,
  // expected and given; the daemon goes on serving.
  const std::string wide = dir_.Join("wide.npy");
  WriteFile(wide, NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 17), }",
                           std::vector<float>(17, 0.5f)));
  ProcessResult wrong_shape = NeuronctlAt(address(), {"infer", "mlp", "--input=input=" + wide});
  EXPECT_EQ(wrong_shape.exit_code, 1);
  EXPECT_THAT(wrong_shape.err, HasSubstr("neuronctl infer: INVALID_ARGUMENT: "));
  EXPECT_THAT(wrong_shape.err, AllOf(HasSubstr("mlp"), HasSubstr("input"), HasSubstr("17"),
                                     HasSubstr("16")));
  EXPECT_THAT(NeuronctlAt(address(), {"infer", "mlp", "--input=input=" + good}).exit_code, 0);

  ProcessResult no_neff = NeuronctlAt(address(), {"load", dir_.Join("none.neff")});
  EXPECT_EQ(no_neff.exit_code, 1);
  EXPECT_THAT(no_neff.err, HasSubstr(dir_.Join("none.neff")));
}

TEST_F(NeuronctlE2ETest, BadCommandLinesAreExitTwoAndNeverReachTheServer) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"infer", "mlp"}, "give --input NAME=FILE for each input of the model, or --random"},
      {{"infer", "mlp", "--input=input"}, "--input: 'input' is not NAME=FILE"},
      {{"infer", "mlp", "--input=a=x.npy", "--input=a=y.npy"}, "input 'a' is given twice"},
      {{"infer", "mlp", "--random", "--form=bf16"}, "--form must be raw or typed, got 'bf16'"},
      {{"infer"}, "missing NAME"},
      {{"load"}, "missing FILE"},
      {{"load", "m.neff", "--replicas=2", "--cores=0"}, "give --replicas or --cores, not both"},
      {{"load", "m.neff", "--cores=0,x"}, "--cores: '0,x' is not a comma-separated list"},
      {{"load", "m.neff", "--replicas=0"}, "--replicas: '0' is not a positive integer"},
      {{"health", "a", "b"}, "unexpected argument 'b'"},
      {{"health", "--wait=soon"}, "--wait: 'soon' is not a positive duration"},
      {{"models", "--timeout=0s"}, "--timeout: '0s' is not a positive duration"},
      {{"devices", "--output=yaml"}, "--output must be text or json, got 'yaml'"},
      {{"devices", "--tls-cert=c.pem"}, "--tls-cert and --tls-key go together"},
      {{"models", "extra"}, "unexpected argument 'extra'"},
  };
  for (const Case& c : cases) {
    ProcessResult result = NeuronctlAt(address(), c.args);
    EXPECT_EQ(result.exit_code, 2) << c.args[0] << ": " << result.err;
    EXPECT_THAT(result.err, HasSubstr(c.message)) << c.args[0];
    EXPECT_THAT(result.err, HasSubstr("Run 'neuronctl " + c.args[0] + " --help' for usage."));
  }
  // The daemon saw none of it.
  ProcessResult models = NeuronctlAt(address(), {"models"});
  EXPECT_EQ(models.out, "no models loaded\n");
}

TEST_F(NeuronctlE2ETest, TokenAndTlsFilesThatCannotBeReadAreNamed) {
  const std::string token = dir_.Join("no-token");
  ProcessResult no_token = NeuronctlAt(address(), {"models", "--token-file=" + token});
  EXPECT_EQ(no_token.exit_code, 1);
  EXPECT_THAT(no_token.err, HasSubstr(token));
  const std::string ca = dir_.Join("no-ca.pem");
  ProcessResult no_ca = NeuronctlAt(address(), {"models", "--tls-ca=" + ca});
  EXPECT_EQ(no_ca.exit_code, 1);
  EXPECT_THAT(no_ca.err, HasSubstr(ca));
}

TEST(NeuronctlHelpE2ETest, HelpListsEveryCommandTheSharedFlagsAndTheExitCodes) {
  ProcessResult help = Neuronctl({"--help"});
  ASSERT_EQ(help.exit_code, 0);
  for (const char* command :
       {"devices", "models", "model", "load", "unload", "infer", "health", "sim-model", "bench"}) {
    EXPECT_THAT(help.out, HasSubstr(absl::StrCat("\n  ", command, " "))) << command;
  }
  EXPECT_THAT(help.out, HasSubstr("3  health: the server answered, but the service is not"));
  for (const char* command : {"devices", "models", "model", "load", "unload", "infer", "health"}) {
    ProcessResult own = Neuronctl({command, "--help"});
    EXPECT_EQ(own.exit_code, 0) << command;
    for (const char* flag : {"--server=HOST:PORT", "--tls-ca=FILE", "--token-file=FILE",
                             "--timeout=DURATION", "--output=text|json"}) {
      EXPECT_THAT(own.out, HasSubstr(flag)) << command;
    }
  }
  EXPECT_THAT(Neuronctl({"infer", "--help"}).out, HasSubstr("Usage: neuronctl infer NAME [FLAGS]"));
}

}  // namespace
}  // namespace neuronctl_e2e_test
}  // namespace neuronserve::testing
