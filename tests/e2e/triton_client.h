// What the TritonRepositoryE2ETest files share: TritonClient, the Open Inference Protocol's RPCs
// as Triton's clients use them on a running daemon; the shipped MLP written as a Triton model
// folder; its input; and a model of a repository index.
//
// The shipped example models (deploy/models/mlp and deploy/models/classifier) are written here
// with the builders their README names (neuronctl sim-model --mlp 16,32,8 --softmax --seed 1, and
// --classifier 512,16,32,4 --seed 1): the client tests
// client.neuronctl_example_{mlp,classifier}_model_is_current keep those files byte-identical to
// what the builders produce, so these are the shipped NEFFs.
//
// Thread safety: a TritonClient is used by one test thread at a time.
#ifndef NEURON_SERVE_TESTS_E2E_TRITON_CLIENT_H_
#define NEURON_SERVE_TESTS_E2E_TRITON_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing::triton_repository_e2e {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using TritonStub = inference::GRPCInferenceService::Stub;

// The shipped example MLP (deploy/models/mlp/model.neff): float32 "input" [1,16] -> softmax
// "output" [1,8].
inline std::string ShippedMlpNeff() {
  simmodel::MlpOptions options;
  options.layer_sizes = {16, 32, 8};
  options.softmax = true;
  options.seed = 1;
  return EncodeNeff(MlpModel(options));
}

// The mlp's input as a Triton configuration declares it.
inline constexpr char kMlpInput[] = R"(name: "input" data_type: TYPE_FP32 dims: [ 1, 16 ])";

// The shipped mlp's folder as Triton lays it out: the NEFF in each of `versions`, and the
// config.pbtxt Triton's documentation would have for it, with `input` as the input's fields,
// `backend`, and `more` appended.
inline void WriteTritonMlp(const TempDir& repo, const std::string& name,
                           const std::vector<std::string>& versions, const std::string& more = "",
                           const std::string& input = kMlpInput,
                           const std::string& backend = "neuron") {
  for (const std::string& version : versions) {
    WriteFile(repo.Join(absl::StrCat(name, "/", version, "/model.neff")), ShippedMlpNeff());
  }
  WriteFile(
      repo.Join(name + "/config.pbtxt"),
      absl::StrCat(
          "name: \"", name, "\"\nbackend: \"", backend, "\"\nmax_batch_size: 0\ninput [ { ", input,
          " } ]\noutput [ { name: \"output\" data_type: TYPE_FP32 dims: [ 1, 8 ] } ]\n", more));
}

// A client of the daemon's inference.GRPCInferenceService, each call with a deadline.
class TritonClient {
 public:
  explicit TritonClient(const std::shared_ptr<grpc::Channel>& channel)
      : stub_(inference::GRPCInferenceService::NewStub(channel)) {}

  template <typename Request, typename Response>
  grpc::Status Call(grpc::Status (TritonStub::*method)(grpc::ClientContext*, const Request&,
                                                       Response*),
                    const Request& request, Response* response) const {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(kRpcDeadlineSeconds));
    return (stub_.get()->*method)(&context, request, response);
  }

  // RepositoryModelLoad of `model`, with parameter `config` (a string_param) when given.
  grpc::Status Load(const std::string& model,
                    const std::optional<std::string>& config = std::nullopt) const {
    inference::RepositoryModelLoadRequest request;
    request.set_model_name(model);
    if (config.has_value()) (*request.mutable_parameters())["config"].set_string_param(*config);
    inference::RepositoryModelLoadResponse response;
    return Call(&TritonStub::RepositoryModelLoad, request, &response);
  }

  grpc::Status Unload(const std::string& model) const {
    inference::RepositoryModelUnloadRequest request;
    request.set_model_name(model);
    inference::RepositoryModelUnloadResponse response;
    return Call(&TritonStub::RepositoryModelUnload, request, &response);
  }

  inference::RepositoryIndexResponse Index() const {
    inference::RepositoryIndexResponse response;
    const grpc::Status status = Call(&TritonStub::RepositoryIndex, {}, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  // The model's configuration (ModelConfig); a test failure and an empty one when the call fails.
  inference::ModelConfig Config(const std::string& model) const {
    inference::ModelConfigRequest request;
    request.set_name(model);
    inference::ModelConfigResponse response;
    const grpc::Status status = Call(&TritonStub::ModelConfig, request, &response);
    EXPECT_TRUE(status.ok()) << model << ": " << status.error_message();
    return response.config();
  }

  inference::ModelMetadataResponse Metadata(const std::string& model) const {
    inference::ModelMetadataRequest request;
    request.set_name(model);
    inference::ModelMetadataResponse response;
    const grpc::Status status = Call(&TritonStub::ModelMetadata, request, &response);
    EXPECT_TRUE(status.ok()) << model << ": " << status.error_message();
    return response;
  }

  std::optional<bool> Ready(const std::string& model) const {
    inference::ModelReadyRequest request;
    request.set_name(model);
    inference::ModelReadyResponse response;
    if (!Call(&TritonStub::ModelReady, request, &response).ok()) return std::nullopt;
    return response.ready();
  }

  // A ModelInfer of one float32 input `input` of `shape` holding `values`: the status, and the
  // first output's shape and values.
  struct FloatAnswer {
    grpc::Status status;
    std::vector<int64_t> shape;
    std::vector<float> values;
  };
  FloatAnswer InferFloats(const std::string& model, const std::vector<int64_t>& shape,
                          const std::vector<float>& values) const {
    inference::ModelInferRequest request;
    request.set_model_name(model);
    inference::ModelInferRequest::InferInputTensor* input = request.add_inputs();
    input->set_name("input");
    input->set_datatype("FP32");
    for (int64_t dim : shape) input->add_shape(dim);
    for (float value : values) input->mutable_contents()->add_fp32_contents(value);
    inference::ModelInferResponse response;
    FloatAnswer answer{
        .status = Call(&TritonStub::ModelInfer, request, &response), .shape = {}, .values = {}};
    if (!answer.status.ok()) return answer;
    if (response.outputs_size() < 1 || response.raw_output_contents_size() < 1) {
      ADD_FAILURE() << model << ": the answer has no output";
      return answer;
    }
    answer.shape.assign(response.outputs(0).shape().begin(), response.outputs(0).shape().end());
    const std::string& bytes = response.raw_output_contents(0);
    answer.values.resize(bytes.size() / sizeof(float));
    std::memcpy(answer.values.data(), bytes.data(), answer.values.size() * sizeof(float));
    return answer;
  }

 private:
  std::unique_ptr<TritonStub> stub_;
};

inline const inference::RepositoryIndexResponse::ModelIndex* FindInIndex(
    const inference::RepositoryIndexResponse& index, const std::string& name) {
  for (const auto& model : index.models()) {
    if (model.name() == name) return &model;
  }
  return nullptr;
}

// 16 float32 values for the mlp's input.
inline std::vector<float> MlpInput() {
  std::vector<float> values;
  for (int i = 0; i < 16; ++i) values.push_back(0.125f * static_cast<float>(i - 8));
  return values;
}

}  // namespace neuronserve::testing::triton_repository_e2e

#endif  // NEURON_SERVE_TESTS_E2E_TRITON_CLIENT_H_
