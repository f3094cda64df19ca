// The end-to-end check of `neuronctl sim-model`: an MLP the tool writes is loaded into the
// simulated runtime (libnrtsim.so, through its C ABI) and executed on random inputs, and the
// outputs are compared with a forward pass this test computes itself, in double precision, from
// the weights in the file. Agreement means the tool, the file format and the simulator tell
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

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/client/nrt_api.h"
#include "tests/client/subprocess.h"

namespace neuronserve {
namespace {

namespace fs = std::filesystem;
using ::neuronserve::testing::NrtApi;
using ::neuronserve::testing::NrtLibrary;
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

// ---- RAII over the runtime's handles. ----

class Tensor {
 public:
  Tensor(const NrtApi& api, size_t bytes, const std::string& name) : api_(api) {
    status_ = api_.tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, bytes, name.c_str(), &tensor_);
  }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  ~Tensor() {
    if (tensor_ != nullptr) api_.tensor_free(&tensor_);
  }
  NRT_STATUS status() const { return status_; }
  nrt_tensor_t* get() const { return tensor_; }

 private:
  const NrtApi& api_;
  nrt_tensor_t* tensor_ = nullptr;
  NRT_STATUS status_;
};

class TensorSet {
 public:
  explicit TensorSet(const NrtApi& api) : api_(api) { status_ = api_.allocate_tensor_set(&set_); }
  TensorSet(const TensorSet&) = delete;
  TensorSet& operator=(const TensorSet&) = delete;
  ~TensorSet() {
    if (set_ != nullptr) api_.destroy_tensor_set(&set_);
  }
  NRT_STATUS status() const { return status_; }
  nrt_tensor_set_t* get() const { return set_; }

 private:
  const NrtApi& api_;
  nrt_tensor_set_t* set_ = nullptr;
  NRT_STATUS status_;
};

class Model {
 public:
  Model(const NrtApi& api, const std::string& bytes) : api_(api) {
    status_ = api_.load(bytes.data(), bytes.size(), 0, -1, &model_);
  }
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  ~Model() {
    if (model_ != nullptr) api_.unload(model_);
  }
  NRT_STATUS status() const { return status_; }
  nrt_model_t* get() const { return model_; }

 private:
  const NrtApi& api_;
  nrt_model_t* model_ = nullptr;
  NRT_STATUS status_;
};

// ---- The fixture: the runtime, initialised once for the process. ----

class MlpOnNrtsimTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // A plain simulated machine: the developer's environment must not reshape it.
    ::unsetenv("NEURON_RT_VISIBLE_CORES");
    ::unsetenv("NEURON_RT_NUM_CORES");
    ::setenv("NRTSIM_CORES", "2", /*overwrite=*/1);
    std::string error;
    library_ = NrtLibrary::Open(NRTSIM_PATH, &error).release();
    ASSERT_NE(library_, nullptr) << "cannot open " << NRTSIM_PATH << ": " << error;
    ASSERT_EQ(library_->api().init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  }
  static void TearDownTestSuite() {
    if (library_ == nullptr) return;
    library_->api().close();
    delete library_;
    library_ = nullptr;
  }

  void SetUp() override {
    ASSERT_NE(library_, nullptr);
    dir_ = fs::temp_directory_path() /
           (std::string("mlp_on_nrtsim_") + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  const NrtApi& api() const { return library_->api(); }

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

  // Executes `model` on `input` (row-major float32) and returns the output.
  NRT_STATUS Execute(const Model& model, const Tensor& input, const Tensor& output,
                     const TensorSet& inputs, const TensorSet& outputs,
                     const std::vector<float>& input_values, std::vector<float>& output_values) {
    NRT_STATUS status = api().tensor_write(input.get(), input_values.data(), 0,
                                           input_values.size() * sizeof(float));
    if (status != NRT_SUCCESS) return status;
    status = api().execute(model.get(), inputs.get(), outputs.get());
    if (status != NRT_SUCCESS) return status;
    return api().tensor_read(output.get(), output_values.data(), 0,
                             output_values.size() * sizeof(float));
  }

  static NrtLibrary* library_;
  fs::path dir_;
};

NrtLibrary* MlpOnNrtsimTest::library_ = nullptr;

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

  Model model(api(), bytes);
  ASSERT_EQ(model.status(), NRT_SUCCESS);

  // The runtime reports the tensors the tool declared.
  nrt_tensor_info_array_t* info = nullptr;
  ASSERT_EQ(api().get_model_tensor_info(model.get(), &info), NRT_SUCCESS);
  ASSERT_EQ(info->tensor_count, 2u);
  for (uint64_t i = 0; i < info->tensor_count; ++i) {
    const nrt_tensor_info_t& tensor = info->tensor_array[i];
    const bool is_input = tensor.usage == NRT_TENSOR_USAGE_INPUT;
    EXPECT_EQ(std::string(tensor.name), is_input ? input_name : output_name);
    EXPECT_EQ(tensor.size, param.batch * (is_input ? in_features : out_features) * sizeof(float));
  }
  api().free_model_tensor_info(info);

  Tensor input(api(), param.batch * in_features * sizeof(float), input_name);
  Tensor output(api(), param.batch * out_features * sizeof(float), output_name);
  ASSERT_EQ(input.status(), NRT_SUCCESS);
  ASSERT_EQ(output.status(), NRT_SUCCESS);
  TensorSet inputs(api()), outputs(api());
  ASSERT_EQ(inputs.status(), NRT_SUCCESS);
  ASSERT_EQ(outputs.status(), NRT_SUCCESS);
  ASSERT_EQ(api().add_tensor_to_tensor_set(inputs.get(), input_name.c_str(), input.get()),
            NRT_SUCCESS);
  ASSERT_EQ(api().add_tensor_to_tensor_set(outputs.get(), output_name.c_str(), output.get()),
            NRT_SUCCESS);

  std::mt19937_64 rng(20240601);
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  std::vector<float> input_values(param.batch * in_features);
  std::vector<float> output_values(param.batch * out_features);
  constexpr int kExecutions = 300;
  for (int execution = 0; execution < kExecutions; ++execution) {
    for (float& value : input_values) value = uniform(rng);
    ASSERT_EQ(Execute(model, input, output, inputs, outputs, input_values, output_values),
              NRT_SUCCESS)
        << "execution " << execution;

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
  Model model(api(), bytes);
  ASSERT_EQ(model.status(), NRT_SUCCESS);
  Tensor input(api(), 4 * sizeof(float), "input");
  Tensor output(api(), 4 * sizeof(float), "output");
  TensorSet inputs(api()), outputs(api());
  ASSERT_EQ(api().add_tensor_to_tensor_set(inputs.get(), "input", input.get()), NRT_SUCCESS);
  ASSERT_EQ(api().add_tensor_to_tensor_set(outputs.get(), "output", output.get()), NRT_SUCCESS);

  const std::vector<float> values = {1.5f, -2.0f, 0.0f, 3.25f};
  std::vector<float> result(4);
  EXPECT_EQ(Execute(model, input, output, inputs, outputs, values, result), NRT_SUCCESS);
  EXPECT_EQ(result, values);
  EXPECT_EQ(Execute(model, input, output, inputs, outputs, values, result), NRT_EXEC_HW_ERR_NC_UE);
  EXPECT_EQ(Execute(model, input, output, inputs, outputs, values, result), NRT_SUCCESS);
}

}  // namespace
}  // namespace neuronserve
