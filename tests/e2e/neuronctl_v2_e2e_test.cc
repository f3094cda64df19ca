// `neuronctl infer` and `neuronctl bench` with --protocol=v2 (the real binary against the real
// daemon on the simulator): the Open Inference Protocol's ModelInfer and ModelStreamInfer give
// the same outputs as the native Infer, byte for byte in every dtype and in both tensor forms,
// the MLP's against a reference computed here, and bench measures both front ends alike. A
// server error through v2 comes back with its code, as through the native API.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/simmodel/sim_model.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/neuronctl_runner.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/build_paths.h"

namespace neuronserve::testing {
namespace neuronctl_v2_e2e_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;





// A daemon with an MLP, the example classifier (int64 in, float32 and float16 out) and identity
// models of int8, uint16 and bfloat16, all loaded with `neuronctl load`.
class NeuronctlV2E2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_ = StartDaemon(SimDaemonArgs({}, {{"NRTSIM_CORES", "8"}}), &log_);
    ASSERT_NE(daemon_, nullptr) << log_;
    simmodel::MlpOptions options;
    options.layer_sizes = {16, 32, 8};
    options.softmax = true;
    options.seed = 9;
    mlp_ = MlpModel(options);
    Load("mlp", EncodeNeff(mlp_));
    Load("classifier", EncodeNeff(ExampleClassifier()));
    for (const std::string dtype : {"int8", "uint16", "bfloat16"}) {
      const std::string path = dir_.Join("id_" + dtype + ".neff");
      const ProcessResult made =
          Neuronctl({"sim-model", "--identity", "2,3", "--dtype", dtype, "--out", path});
      ASSERT_EQ(made.exit_code, 0) << made.err;
      const ProcessResult load = NeuronctlAt(daemon_->address, {"load", path, "--name=id_" + dtype});
      ASSERT_EQ(load.exit_code, 0) << load.err;
    }
  }

  void Load(const std::string& name, const std::string& neff) {
    const std::string path = dir_.Join(name + ".neff");
    WriteFile(path, neff);
    const ProcessResult load = NeuronctlAt(daemon_->address, {"load", path, "--name=" + name});
    ASSERT_EQ(load.exit_code, 0) << load.err;
  }

  std::string address() const { return daemon_->address; }

  std::string log_;
  std::unique_ptr<RunningDaemon> daemon_;
  TempDir dir_;
  simmodel::SimModel mlp_;
};

TEST_F(NeuronctlV2E2ETest, InferV2WritesTheSameNpyFilesAsNative) {
  struct Model {
    std::string name;
    std::vector<std::string> outputs;
  };
  const std::vector<Model> models = {{"mlp", {"output"}},
                                     {"classifier", {"logits", "logits_fp16"}},
                                     {"id_int8", {"output"}},
                                     {"id_uint16", {"output"}},
                                     {"id_bfloat16", {"output"}}};
  for (const Model& model : models) {
    for (const std::string form : {"raw", "typed"}) {
      SCOPED_TRACE(model.name + " --form=" + form);
      const std::string native_dir = dir_.Join(model.name + "-" + form + "-native");
      const std::string v2_dir = dir_.Join(model.name + "-" + form + "-v2");
      const std::vector<std::string> common = {"infer",    model.name,         "--random",
                                               "--seed=3", "--random-max=100", "--form=" + form};
      std::vector<std::string> native = common;
      native.push_back("--output-dir=" + native_dir);
      std::vector<std::string> v2 = common;
      v2.insert(v2.end(), {"--protocol=v2", "--output-dir=" + v2_dir});
      const ProcessResult native_run = NeuronctlAt(address(), native);
      ASSERT_EQ(native_run.exit_code, 0) << native_run.err;
      const ProcessResult v2_run = NeuronctlAt(address(), v2);
      ASSERT_EQ(v2_run.exit_code, 0) << v2_run.err;
      // Past the first line (queue and device times), the summary names each output with its
      // dtype, shape and file, as natively.
      const std::string v2_out = absl::StrReplaceAll(v2_run.out, {{v2_dir, native_dir}});
      EXPECT_EQ(v2_out.substr(v2_out.find('\n') + 1),
                native_run.out.substr(native_run.out.find('\n') + 1));
      for (const std::string& output : model.outputs) {
        const std::string native_file = ReadFileContents(native_dir + "/" + output + ".npy");
        EXPECT_FALSE(native_file.empty()) << output;
        EXPECT_EQ(ReadFileContents(v2_dir + "/" + output + ".npy"), native_file) << output;
      }
    }
  }
}

TEST_F(NeuronctlV2E2ETest, InferV2JsonValuesMatchTheReference) {
  // A .npy input written here byte by byte as numpy.save lays it out.
  std::vector<float> row(16);
  for (int i = 0; i < 16; ++i) row[i] = 0.1f * static_cast<float>(i) - 0.7f;
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 16), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string npy = std::string("\x93NUMPY\x01\x00", 8);
  npy += static_cast<char>(header.size());
  npy += '\0';
  npy += header;
  npy.append(reinterpret_cast<const char*>(row.data()), row.size() * sizeof(float));
  const std::string input = dir_.Join("x.npy");
  WriteFile(input, npy);

  std::vector<double> expected = MlpReference(mlp_, row, 2);
  double largest = expected[0], sum = 0;
  for (double value : expected) largest = std::max(largest, value);
  for (double& value : expected) sum += value = std::exp(value - largest);
  for (double& value : expected) value /= sum;

  for (const std::string form : {"raw", "typed"}) {
    const ProcessResult run = NeuronctlAt(address(), {"infer", "mlp", "--input=input=" + input,
                                             "--protocol=v2", "--form=" + form, "--output=json"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const nlohmann::json result = JsonOutput(run);
    EXPECT_EQ(result["model"], "mlp");
    EXPECT_EQ(result["outputs"]["output"]["dtype"], "float32");
    const std::vector<float> values = result["outputs"]["output"]["values"];
    ASSERT_EQ(values.size(), expected.size()) << form;
    for (size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(values[i], expected[i], 1e-5) << i;
  }
}

TEST_F(NeuronctlV2E2ETest, InferV2ErrorsComeBackWithTheirCode) {
  const ProcessResult unknown_output =
      NeuronctlAt(address(), {"infer", "mlp", "--random", "--protocol=v2", "--outputs=nope"});
  EXPECT_EQ(unknown_output.exit_code, 1);
  EXPECT_THAT(unknown_output.err, StartsWith("neuronctl infer: INVALID_ARGUMENT"));
  EXPECT_THAT(unknown_output.err, HasSubstr("nope"));

  const ProcessResult bad_protocol = NeuronctlAt(address(), {"infer", "mlp", "--random", "--protocol=v3"});
  EXPECT_EQ(bad_protocol.exit_code, 2);
  EXPECT_THAT(bad_protocol.err, HasSubstr("--protocol must be native or v2, got 'v3'"));
}

// Requests the report counted, and the executions the server made for them.
void ExpectV2Report(const ProcessResult& run, const std::string& api) {
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json report = JsonOutput(run);
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["protocol"], "v2");
  EXPECT_EQ(report["api"], api);
  ASSERT_EQ(report["levels"].size(), 2u);
  for (const nlohmann::json& level : report["levels"]) {
    SCOPED_TRACE(level.dump());
    EXPECT_EQ(level["requests"], 40);
    EXPECT_EQ(level["error_count"], 0);
    EXPECT_GT(level["throughput_rps"].get<double>(), 0.0);
  }
  EXPECT_THAT(run.err, HasSubstr("v2 protocol"));
}

TEST_F(NeuronctlV2E2ETest, BenchV2UnaryAndStream) {
  for (const std::string model : {"mlp", "classifier"}) {
    SCOPED_TRACE(model);
    ExpectV2Report(NeuronctlAt(address(), {"bench", model, "--protocol=v2", "--concurrency-range=1:2",
                                  "--requests=40", "--warmup=0", "--output=json"}),
                   "unary");
    ExpectV2Report(
        NeuronctlAt(address(), {"bench", model, "--protocol=v2", "--stream", "--concurrency-range=1:2",
                       "--requests=40", "--warmup=0", "--form=typed", "--output=json"}),
        "stream");
  }
  // The server ran them: 2 levels x 40 requests x 2 runs on the MLP.
  v1::ModelStatus status;
  ASSERT_TRUE(GetModel(*daemon_->stub, "mlp", &status).ok());
  int64_t executions = 0;
  for (const v1::ModelReplica& replica : status.replicas()) executions += replica.executions();
  EXPECT_GE(executions, 160);
}

}  // namespace
}  // namespace neuronctl_v2_e2e_test
}  // namespace neuronserve::testing
