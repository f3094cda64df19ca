// The end-to-end check of `neuronctl sim-model`: an MLP the tool writes is loaded into the
// simulated runtime (libnrtsim.so, through core's libnrt binding) and executed on random inputs,
// and the outputs are compared with a forward pass this test computes itself, in double precision,
// from the weights in the file. Agreement means the tool, the file format and the simulator tell
// the same story about what the model computes.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/nrt/nrt_library.h"
#include "core/nrt/nrt_runtime.h"
#include "core/nrt/nrt_status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/subprocess.h"
#include "tests/support/build_paths.h"

namespace neuronserve {
namespace {

namespace fs = std::filesystem;
using Matrix = std::vector<std::vector<double>>;  // [rows][columns]

// ---- The reference: an independent forward pass over the file's JSON. ----

struct Layer {
  Matrix weight;             // [fan_in][fan_out]
  std::vector<double> bias;  // [fan_out]
};

std::vector<Layer> LayersFromJson(const nlohmann::json& constants) {
  std::vector<Layer> layers;
  for (size_t i = 0; constants.contains("w" + std::to_string(i)); ++i) {
    const nlohmann::json& w = constants["w" + std::to_string(i)];
    const size_t rows = w["shape"][0], columns = w["shape"][1];
    Layer layer;
    layer.weight.assign(rows, std::vector<double>(columns));
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < columns; ++c) layer.weight[r][c] = w["data"][r * columns + c];
    }
    layer.bias = constants["b" + std::to_string(i)]["data"].get<std::vector<double>>();
    layers.push_back(std::move(layer));
  }
  return layers;
}

Matrix ForwardPass(const std::vector<Layer>& layers, bool softmax, Matrix activation) {
  for (size_t l = 0; l < layers.size(); ++l) {
    const Layer& layer = layers[l];
    Matrix next(activation.size(), layer.bias);
    for (size_t row = 0; row < activation.size(); ++row) {
      for (size_t k = 0; k < layer.weight.size(); ++k) {
        for (size_t c = 0; c < layer.bias.size(); ++c) {
          next[row][c] += activation[row][k] * layer.weight[k][c];
        }
      }
      if (l + 1 < layers.size()) {
        for (double& value : next[row]) value = std::max(value, 0.0);
      }
    }
    activation = std::move(next);
  }
  if (softmax) {
    for (std::vector<double>& row : activation) {
      const double peak = *std::max_element(row.begin(), row.end());
      double sum = 0;
      for (double& value : row) sum += (value = std::exp(value - peak));
      for (double& value : row) value /= sum;
    }
  }
  return activation;
}

// ---- The fixture: the simulated runtime through core's binding, as the daemon loads it. ----

absl::Span<const uint8_t> AsBytes(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// A model bound to one device tensor per input and output, on core 0.
struct BoundModel {
  NrtModel model;
  std::vector<TensorSpec> specs;
  NrtTensor input;
  NrtTensor output;
  NrtTensorSet inputs;
  NrtTensorSet outputs;
};

class MlpOnNrtsimTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // A plain simulated machine: the developer's environment must not reshape it.
    // (NRTSIM_LOCK_DIR stays: it is this test's private lock directory, tests/sim_lock_dir.)
    for (const char* name :
         {"NEURON_RT_VISIBLE_CORES", "NEURON_RT_NUM_CORES", "NEURON_LOGICAL_NC_CONFIG",
          "NEURON_RT_EXEC_TIMEOUT", "NRTSIM_INSTANCE", "NRTSIM_HBM_BYTES", "NRTSIM_VERSION",
          "NRTSIM_VOID_DTYPE_TENSORS"}) {
      ::unsetenv(name);
    }
    ::setenv("NRTSIM_CORES", "2", /*overwrite=*/1);
    absl::StatusOr<std::unique_ptr<NrtLibrary>> library = NrtLibrary::Open(NRTSIM_PATH);
    ASSERT_TRUE(library.ok()) << library.status();
    absl::StatusOr<std::unique_ptr<NrtRuntime>> runtime = NrtRuntime::Start(*std::move(library));
    ASSERT_TRUE(runtime.ok()) << runtime.status();
    runtime_ = runtime->release();
  }
  static void TearDownTestSuite() {
    delete runtime_;  // nrt_close
    runtime_ = nullptr;
  }

  void SetUp() override {
    ASSERT_NE(runtime_, nullptr);
    dir_ = fs::temp_directory_path() /
           (std::string("mlp_on_nrtsim_") + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `neuronctl sim-model ARGS --out=FILE` and returns the file's bytes.
  std::string WriteModel(std::vector<std::string> args) {
    const std::string path = (dir_ / "model.neff").string();
    args.insert(args.begin(), {NEURONCTL_PATH, "sim-model"});
    args.push_back("--out=" + path);
    const testing::ProcessResult result = testing::RunProcess(args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }

  // Loads a one-input, one-output model and binds a device tensor to each.
  absl::StatusOr<BoundModel> LoadAndBind(const std::string& bytes) {
    BoundModel bound;
    absl::StatusOr<NrtModel> model = runtime_->LoadModel(AsBytes(bytes), 0);
    if (!model.ok()) return model.status();
    bound.model = *std::move(model);
    absl::StatusOr<std::vector<TensorSpec>> specs = bound.model.Tensors();
    if (!specs.ok()) return specs.status();
    bound.specs = *std::move(specs);
    if (bound.specs.size() != 2) return absl::InternalError("expected one input, one output");
    for (const TensorSpec& spec : bound.specs) {
      absl::StatusOr<NrtTensor> tensor =
          runtime_->AllocateTensor(NRT_TENSOR_PLACEMENT_DEVICE, 0, spec.byte_size, spec.name);
      if (!tensor.ok()) return tensor.status();
      (spec.usage == TensorUsage::kInput ? bound.input : bound.output) = *std::move(tensor);
    }
    absl::StatusOr<NrtTensorSet> inputs = runtime_->AllocateTensorSet();
    absl::StatusOr<NrtTensorSet> outputs = runtime_->AllocateTensorSet();
    if (!inputs.ok()) return inputs.status();
    if (!outputs.ok()) return outputs.status();
    bound.inputs = *std::move(inputs);
    bound.outputs = *std::move(outputs);
    if (absl::Status status = bound.inputs.Add(bound.specs[0].name, bound.input); !status.ok()) {
      return status;
    }
    if (absl::Status status = bound.outputs.Add(bound.specs[1].name, bound.output); !status.ok()) {
      return status;
    }
    return bound;
  }

  // Writes `input_values`, executes and reads the output into `output_values`.
  static absl::Status Execute(BoundModel& bound, const std::vector<float>& input_values,
                              std::vector<float>& output_values) {
    absl::Status status = bound.input.Write(
        {reinterpret_cast<const uint8_t*>(input_values.data()), input_values.size() * 4});
    if (status.ok()) status = bound.model.Execute(bound.inputs, bound.outputs);
    if (status.ok()) {
      status = bound.output.Read(
          {reinterpret_cast<uint8_t*>(output_values.data()), output_values.size() * 4});
    }
    return status;
  }

  static NrtRuntime* runtime_;
  fs::path dir_;
};

NrtRuntime* MlpOnNrtsimTest::runtime_ = nullptr;

struct MlpCase {
  std::string name;
  std::vector<std::string> args;  // for sim-model, without --out
  bool softmax;
  size_t batch;
};

// Names the case in test output instead of dumping its bytes.
void PrintTo(const MlpCase& mlp_case, std::ostream* os) { *os << mlp_case.name; }

class MlpForwardPassTest : public MlpOnNrtsimTest, public ::testing::WithParamInterface<MlpCase> {};

TEST_P(MlpForwardPassTest, SimulatorMatchesAnIndependentForwardPass) {
  const MlpCase& param = GetParam();
  const std::string bytes = WriteModel(param.args);
  ASSERT_GT(bytes.size(), 8u);
  const nlohmann::json description = nlohmann::json::parse(bytes.substr(8));
  const std::vector<Layer> layers = LayersFromJson(description["constants"]);
  ASSERT_GE(layers.size(), 1u);
  const size_t in_features = layers.front().weight.size();
  const size_t out_features = layers.back().bias.size();
  const std::string input_name = description["inputs"][0]["name"];
  const std::string output_name = description["outputs"][0]["name"];

  absl::StatusOr<BoundModel> bound = LoadAndBind(bytes);
  ASSERT_TRUE(bound.ok()) << bound.status();

  // The runtime reports the tensors the tool declared.
  const TensorSpec& input_spec = bound->specs[0];
  const TensorSpec& output_spec = bound->specs[1];
  EXPECT_EQ(input_spec.usage, TensorUsage::kInput);
  EXPECT_EQ(input_spec.name, input_name);
  EXPECT_EQ(input_spec.dtype, DataType::kFloat32);
  EXPECT_EQ(input_spec.byte_size, param.batch * in_features * sizeof(float));
  EXPECT_EQ(output_spec.usage, TensorUsage::kOutput);
  EXPECT_EQ(output_spec.name, output_name);
  EXPECT_EQ(output_spec.byte_size, param.batch * out_features * sizeof(float));

  std::mt19937_64 rng(20240601);
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  std::vector<float> input_values(param.batch * in_features);
  std::vector<float> output_values(param.batch * out_features);
  constexpr int kExecutions = 300;
  for (int execution = 0; execution < kExecutions; ++execution) {
    for (float& value : input_values) value = uniform(rng);
    absl::Status status = Execute(*bound, input_values, output_values);
    ASSERT_TRUE(status.ok()) << "execution " << execution << ": " << status;

    Matrix reference_input(param.batch, std::vector<double>(in_features));
    for (size_t row = 0; row < param.batch; ++row) {
      for (size_t k = 0; k < in_features; ++k) {
        reference_input[row][k] = input_values[row * in_features + k];
      }
    }
    const Matrix expected = ForwardPass(layers, param.softmax, reference_input);
    for (size_t row = 0; row < param.batch; ++row) {
      for (size_t c = 0; c < out_features; ++c) {
        const double want = expected[row][c];
        const double got = output_values[row * out_features + c];
        // float32 arithmetic against double: relative 1e-5, measured against at least 1 so
        // that outputs near zero are not held to an impossible standard.
        ASSERT_NEAR(got, want, 1e-5 * std::max(1.0, std::fabs(want)))
            << "execution " << execution << ", row " << row << ", column " << c;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Models, MlpForwardPassTest,
    ::testing::Values(MlpCase{"ExampleModel", {"--mlp=16,32,8", "--softmax", "--seed=1"}, true, 1},
                      MlpCase{
                          "BatchedLogits", {"--mlp=16,32,8", "--batch=4", "--seed=7"}, false, 4},
                      MlpCase{"DeepRenamed",
                              {"--mlp=12,40,24,5", "--softmax", "--batch=3", "--seed=12345",
                               "--input-name=features", "--output-name=probabilities"},
                              true,
                              3}),
    [](const ::testing::TestParamInfo<MlpCase>& info) { return info.param.name; });

TEST_F(MlpOnNrtsimTest, FaultWrittenByTheToolFailsTheChosenExecution) {
  const std::string bytes =
      WriteModel({"--identity=1,4", "--fault=on_execution=2:NRT_EXEC_HW_ERR_NC_UE"});
  absl::StatusOr<BoundModel> bound = LoadAndBind(bytes);
  ASSERT_TRUE(bound.ok()) << bound.status();

  const std::vector<float> values = {1.5f, -2.0f, 0.0f, 3.25f};
  std::vector<float> result(4);
  EXPECT_TRUE(Execute(*bound, values, result).ok());
  EXPECT_EQ(result, values);
  absl::Status fault = Execute(*bound, values, result);
  EXPECT_EQ(NrtStatusOf(fault), NRT_EXEC_HW_ERR_NC_UE) << fault;
  EXPECT_EQ(fault.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(Execute(*bound, values, result).ok());
}

}  // namespace
}  // namespace neuronserve
