// Inference results through the real daemon: an MLP sim model's outputs against a forward pass
// computed here from the model's weights, for 10,000 random requests over unary and streaming
// calls in both tensor forms; and the response's shape, form, output subset and timings.
#include <map>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "client/simmodel/mlp_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace infer_correctness_e2e_test {
namespace {

using ::testing::ElementsAre;

constexpr uint32_t kInputWidth = 16;
constexpr uint32_t kOutputWidth = 8;

simmodel::SimModel Mlp() {
  simmodel::MlpOptions options;
  options.layer_sizes = {kInputWidth, 32, kOutputWidth};
  options.seed = 20261202;
  options.input_name = "x";
  options.output_name = "y";
  return MlpModel(options);
}

std::vector<float> RandomRow(std::mt19937& random) {
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::vector<float> row(kInputWidth);
  for (float& v : row) v = value(random);
  return row;
}

// Counts the mismatches of `response` against the reference for `input`, reporting the first.
int Mismatches(const simmodel::SimModel& mlp, const std::vector<float>& input,
               const v1::InferResponse& response, TensorForm form) {
  if (response.outputs_size() != 1) {
    ADD_FAILURE() << "outputs: " << response.outputs_size();
    return 1;
  }
  const v1::OutputTensor& output = response.outputs(0);
  if ((form == TensorForm::kRaw) != !output.raw_data().empty()) {
    ADD_FAILURE() << "the response did not use the request's tensor form";
    return 1;
  }
  const std::vector<float> got = OutputValues(output);
  const std::vector<double> want = MlpReference(mlp, input, 2);
  if (got.size() != want.size()) {
    ADD_FAILURE() << "got " << got.size() << " values, want " << want.size();
    return 1;
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::abs(got[i] - want[i]) > 1e-4 + 1e-4 * std::abs(want[i])) {
      ADD_FAILURE() << "request " << response.id() << " output " << i << ": got " << got[i]
                    << ", want " << want[i];
      return 1;
    }
  }
  return 0;
}

TEST(InferCorrectnessE2ETest, MlpMatchesAnIndependentForwardPassOver10000Requests) {
  START_DAEMON(daemon, SimDaemonArgs({}, {{"NRTSIM_CORES", "2"}}));
  const simmodel::SimModel mlp = Mlp();
  v1::ModelConfig config = Config("mlp");
  config.set_replicas(2);
  LoadResult loaded = Upload(*daemon->stub, config, EncodeNeff(mlp));
  ASSERT_TRUE(loaded.status.ok()) << loaded.status.error_message();

  constexpr int kPerMode = 2500;  // 4 modes: unary/stream x float/raw
  std::atomic<int> mismatches{0};
  std::atomic<int> checked{0};

  // Unary, both forms, from 4 client threads.
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t) {
    clients.emplace_back([&, t] {
      std::mt19937 random(1000 + t);
      const TensorForm form = t % 2 == 0 ? TensorForm::kFloat : TensorForm::kRaw;
      for (int i = 0; i < kPerMode / 2; ++i) {
        const std::vector<float> input = RandomRow(random);
        v1::InferRequest request;
        request.set_model("mlp");
        request.set_id(absl::StrCat("u", t, "-", i));
        AddInput(request, "x", {1, kInputWidth}, input, form);
        v1::InferResponse response;
        grpc::Status status = Infer(*daemon->stub, request, &response);
        if (!status.ok()) {
          ADD_FAILURE() << status.error_message();
          ++mismatches;
          continue;
        }
        EXPECT_EQ(response.id(), request.id());
        mismatches += Mismatches(mlp, input, response, form);
        ++checked;
      }
    });
  }
  for (std::thread& client : clients) client.join();

  // Streaming, both forms: all requests of a stream in flight at once, answered by id.
  for (TensorForm form : {TensorForm::kFloat, TensorForm::kRaw}) {
    std::mt19937 random(form == TensorForm::kFloat ? 7 : 8);
    std::vector<v1::InferRequest> requests;
    std::map<std::string, std::vector<float>> inputs;
    for (int i = 0; i < kPerMode; ++i) {
      v1::InferRequest request;
      request.set_model("mlp");
      request.set_id(absl::StrCat("s", static_cast<int>(form), "-", i));
      inputs[request.id()] = RandomRow(random);
      AddInput(request, "x", {}, inputs[request.id()], form);  // no shape: also accepted
      requests.push_back(std::move(request));
    }
    grpc::Status status;
    std::vector<v1::InferResponse> responses = RunStream(*daemon->stub, requests, &status);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(responses.size(), requests.size());
    std::set<std::string> answered;
    for (const v1::InferResponse& response : responses) {
      ASSERT_EQ(response.error().code(), 0) << response.error().message();
      ASSERT_TRUE(answered.insert(response.id()).second) << "answered twice: " << response.id();
      ASSERT_EQ(inputs.count(response.id()), 1u) << response.id();
      mismatches += Mismatches(mlp, inputs[response.id()], response, form);
      ++checked;
    }
  }
  EXPECT_EQ(checked.load(), 4 * kPerMode);
  EXPECT_EQ(mismatches.load(), 0);

  // Both replicas served, and the counters saw every request.
  v1::ModelStatus model;
  ASSERT_TRUE(GetModel(*daemon->stub, "mlp", &model).ok());
  EXPECT_EQ(model.requests().succeeded(), static_cast<uint64_t>(4 * kPerMode));
  EXPECT_EQ(model.requests().failed(), 0u);
}

TEST(InferCorrectnessE2ETest, ResponseCarriesShapeTimingsAndTheAskedForm) {
  START_DAEMON(daemon, SimDaemonArgs());
  simmodel::SimModel identity = IdentityModel({2, 3}, /*latency_us=*/2000);
  ASSERT_TRUE(Upload(*daemon->stub, Config("id"), EncodeNeff(identity)).status.ok());

  v1::InferRequest request;
  request.set_model("id");
  request.set_id("one");
  AddInput(request, "input", {2, 3}, {1, 2, 3, 4, 5, 6}, TensorForm::kFloat);
  request.set_response_form(v1::TENSOR_FORM_RAW);
  v1::InferResponse response;
  grpc::Status status = Infer(*daemon->stub, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.id(), "one");
  EXPECT_EQ(response.model(), "id");
  ASSERT_EQ(response.outputs_size(), 1);
  EXPECT_EQ(response.outputs(0).name(), "output");
  EXPECT_THAT(response.outputs(0).shape(), ElementsAre(2u, 3u));
  EXPECT_EQ(response.outputs(0).float_data_size(), 0);
  EXPECT_THAT(OutputValues(response.outputs(0)), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_GE(response.device_us(), 2000u);  // the simulated latency is slept on the device

  request.set_response_form(v1::TENSOR_FORM_FLOAT);
  ASSERT_TRUE(Infer(*daemon->stub, request, &response).ok());
  EXPECT_TRUE(response.outputs(0).raw_data().empty());
  EXPECT_THAT(response.outputs(0).float_data(), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(InferCorrectnessE2ETest, ClientsMayAskForASubsetOfOutputs) {
  START_DAEMON(daemon, SimDaemonArgs());
  // Two outputs: y = relu(x) and z = tanh(x).
  simmodel::SimModel model;
  model.inputs = {{"x", DataType::kFloat32, {1, 4}}};
  model.outputs = {{"y", DataType::kFloat32, {1, 4}}, {"z", DataType::kFloat32, {1, 4}}};
  model.ops = {{simmodel::OpKind::kRelu, {"x"}, "y"}, {simmodel::OpKind::kTanh, {"x"}, "z"}};
  ASSERT_TRUE(Upload(*daemon->stub, Config("two"), EncodeNeff(model)).status.ok());

  v1::InferRequest request;
  request.set_model("two");
  AddInput(request, "x", {1, 4}, {-1, 0, 1, 2}, TensorForm::kFloat);
  v1::InferResponse response;
  ASSERT_TRUE(Infer(*daemon->stub, request, &response).ok());
  ASSERT_EQ(response.outputs_size(), 2);
  EXPECT_EQ(response.outputs(0).name(), "y");
  EXPECT_EQ(response.outputs(1).name(), "z");

  request.add_outputs("z");
  ASSERT_TRUE(Infer(*daemon->stub, request, &response).ok());
  ASSERT_EQ(response.outputs_size(), 1);
  EXPECT_EQ(response.outputs(0).name(), "z");
  const std::vector<float> z = OutputValues(response.outputs(0));
  ASSERT_EQ(z.size(), 4u);
  EXPECT_NEAR(z[3], std::tanh(2.0), 1e-6);
  EXPECT_NEAR(z[0], std::tanh(-1.0), 1e-6);
}

}  // namespace
}  // namespace infer_correctness_e2e_test
}  // namespace neuronserve::testing
