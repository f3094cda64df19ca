// A Triton model folder neuron-serve refuses, end to end: each refusal (a field neuron-serve does
// not implement, a declared tensor that disagrees with the NEFF) names the field or the tensor
// while the daemon keeps serving the others.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/e2e/triton_client.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing::triton_repository_e2e {

// Each refused load names what is wrong: the field when the configuration is read, the model,
// the tensor and both values when the NEFF disagrees with it; the other models keep serving.
TEST(TritonRepositoryE2ETest, RefusalsNameTheFieldOrTheTensor) {
  TempDir repo;
  WriteTritonMlp(repo, "mlp", {"1"});
  // Refused when the configuration is read.
  WriteTritonMlp(repo, "onnx", {"1"}, "", kMlpInput, "onnxruntime");
  WriteTritonMlp(repo, "sequence", {"1"}, "sequence_batching { }\n");
  WriteTritonMlp(repo, "ensemble", {"1"}, R"(ensemble_scheduling {
  step [
    {
      model_name: "mlp"
      model_version: -1
      input_map { key: "input" value: "input" }
      output_map { key: "output" value: "output" }
    }
  ]
}
)");
  WriteTritonMlp(repo, "gpu", {"1"}, "instance_group [ { kind: KIND_GPU } ]\n");
  WriteTritonMlp(repo, "every", {"1", "2"}, "version_policy { all { } }\n");
  // Refused once the NEFF is loaded and its tensors are listed.
  WriteTritonMlp(repo, "dims", {"1"}, "", R"(name: "input" data_type: TYPE_FP32 dims: [ 1, 15 ])");
  WriteTritonMlp(repo, "dtype", {"1"}, "",
                 R"(name: "input" data_type: TYPE_INT32 dims: [ 1, 16 ])");
  WriteTritonMlp(repo, "named", {"1"}, "", R"(name: "x" data_type: TYPE_FP32 dims: [ 1, 16 ])");
  START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repo.path(), "--load-models=mlp"}));
  const TritonClient triton(daemon->channel);
  ASSERT_TRUE(WaitUntil([&] { return triton.Ready("mlp") == true; })) << daemon->process->Stderr();

  struct Refusal {
    std::string model;
    std::vector<std::string> message;  // each a substring of the load's answer and the reason
  };
  const std::vector<Refusal> refusals = {
      {.model = "onnx",
       .message = {"'onnx/config.pbtxt'", "backend 'onnxruntime' is not served here"}},
      {.model = "sequence",
       .message = {"'sequence/config.pbtxt'", "sequence_batching is not supported"}},
      {.model = "ensemble",
       .message = {"'ensemble/config.pbtxt'", "ensemble_scheduling is not supported"}},
      {.model = "gpu", .message = {"'gpu/config.pbtxt'", "instance_group kind KIND_GPU"}},
      {.model = "every",
       .message = {"'every/config.pbtxt'", "version_policy all would serve the versions '1', '2'"}},
      {.model = "dims",
       .message = {"model 'dims'", "input 'input' has dims [1, 15], but the NEFF's are [1, 16]"}},
      {.model = "dtype",
       .message = {"model 'dtype'", "input 'input' is declared TYPE_INT32",
                   "the NEFF's is float32"}},
      {.model = "named",
       .message = {"model 'named'", "input 'x' is not in the NEFF, whose inputs are 'input'"}},
  };
  for (const Refusal& refusal : refusals) {
    SCOPED_TRACE(refusal.model);
    const grpc::Status status = triton.Load(refusal.model);
    EXPECT_FALSE(status.ok());
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    for (const std::string& part : refusal.message) {
      EXPECT_THAT(status.error_message(), HasSubstr(part));
    }
    EXPECT_EQ(triton.Ready(refusal.model), false);
    // The index says the same.
    const inference::RepositoryIndexResponse index = triton.Index();
    const inference::RepositoryIndexResponse::ModelIndex* entry = FindInIndex(index, refusal.model);
    ASSERT_NE(entry, nullptr);
    EXPECT_EQ(entry->state(), "UNAVAILABLE");
    for (const std::string& part : refusal.message) EXPECT_THAT(entry->reason(), HasSubstr(part));
    // The daemon keeps serving the model it has.
    const TritonClient::FloatAnswer answer = triton.InferFloats("mlp", {1, 16}, MlpInput());
    EXPECT_TRUE(answer.status.ok()) << answer.status.error_message();
  }
  EXPECT_EQ(triton.Ready("mlp"), true);
  const inference::RepositoryIndexResponse index = triton.Index();
  ASSERT_NE(FindInIndex(index, "mlp"), nullptr);
  EXPECT_EQ(FindInIndex(index, "mlp")->state(), "READY");
}

}  // namespace neuronserve::testing::triton_repository_e2e
