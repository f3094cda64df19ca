// What the NeuronctlE2ETest files share: the fixture (a daemon with the MLP loaded by
// `neuronctl load`), the MLP, and a .npy file written byte by byte as numpy.save lays it out.
//
// Thread safety: the fixture is used by its test's thread.
#ifndef NEURON_SERVE_TESTS_E2E_NEURONCTL_FIXTURE_H_
#define NEURON_SERVE_TESTS_E2E_NEURONCTL_FIXTURE_H_

#include <netinet/in.h>
#include <sys/socket.h>

#include <string>
#include <vector>

#include "client/simmodel/mlp_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/simmodel/sim_model.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/neuronctl_runner.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/subprocess.h"

namespace neuronserve::testing::neuronctl_e2e_test {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

inline constexpr int kMlpInput = 16;
inline constexpr int kMlpOutput = 8;

inline simmodel::SimModel Mlp() {
  simmodel::MlpOptions options;
  options.layer_sizes = {kMlpInput, 32, kMlpOutput};
  options.softmax = true;
  options.seed = 5;
  return MlpModel(options);
}

// A .npy file written here byte by byte as numpy.save lays it out (not with neuronctl's own
// writer, so the round trip checks the reader against the format).
inline std::string NpyBytes(const std::string& dict, const std::vector<float>& values) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes = "\x93NUMPY\x01";
  bytes += '\0';
  bytes += static_cast<char>(header.size());
  bytes += '\0';
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  return bytes;
}

inline std::vector<float> InputRow() {
  std::vector<float> row(kMlpInput);
  for (int i = 0; i < kMlpInput; ++i) row[i] = std::cos(0.3f * static_cast<float>(i)) - 0.2f;
  return row;
}

// A daemon with the MLP loaded by `neuronctl load` as "mlp" (2 replicas), and its files.
class NeuronctlE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_ = StartDaemon(SimDaemonArgs(), &log_);
    ASSERT_NE(daemon_, nullptr) << log_;
    mlp_ = Mlp();
    model_path_ = dir_.Join("mlp.neff");
    WriteFile(model_path_, EncodeNeff(mlp_));
  }

  void LoadMlp() {
    ProcessResult load = NeuronctlAt(daemon_->address, {"load", model_path_, "--replicas=2"});
    ASSERT_EQ(load.exit_code, 0) << load.err;
  }

  std::string address() const { return daemon_->address; }

  std::string log_;
  std::unique_ptr<RunningDaemon> daemon_;
  TempDir dir_;
  simmodel::SimModel mlp_;
  std::string model_path_;
};

}  // namespace neuronserve::testing::neuronctl_e2e_test

#endif  // NEURON_SERVE_TESTS_E2E_NEURONCTL_FIXTURE_H_
