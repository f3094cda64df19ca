// Requests bigger than gRPC's 4 MiB default: the daemon accepts up to --max-message-bytes
// (64 MiB unless set), answers RESOURCE_EXHAUSTED past it, and keeps serving.
#include <numeric>
#include <vector>

#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace infer_message_size_e2e_test {
namespace {

using ::testing::HasSubstr;

// gRPC clients accept 4 MiB responses by default; these tests receive bigger ones.
std::unique_ptr<v1::NeuronServing::Stub> UnlimitedReceiveStub(const std::string& address) {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(-1);
  return v1::NeuronServing::NewStub(
      grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), arguments));
}

void LoadIdentity(v1::NeuronServing::Stub& stub, const std::string& name, int64_t elements) {
  LoadResult loaded = Upload(stub, Config(name), EncodeNeff(IdentityModel({1, elements})));
  ASSERT_TRUE(loaded.status.ok()) << loaded.status.error_message();
}

v1::InferRequest IdentityRequest(const std::string& model, uint32_t elements, TensorForm form,
                                 std::vector<float>* values) {
  values->resize(elements);
  std::iota(values->begin(), values->end(), 0.5f);
  v1::InferRequest request;
  request.set_model(model);
  AddInput(request, "input", {1, elements}, *values, form);
  return request;
}

TEST(InferMessageSizeE2ETest, A24MiBTensorPassesByDefaultUnaryAndStreamed) {
  START_DAEMON(daemon, SimDaemonArgs());
  constexpr uint32_t kElements = 6u << 20;  // 24 MiB of float32
  ASSERT_NO_FATAL_FAILURE(LoadIdentity(*daemon->stub, "big", kElements));
  auto stub = UnlimitedReceiveStub(daemon->address);

  for (TensorForm form : {TensorForm::kRaw, TensorForm::kFloat}) {
    std::vector<float> values;
    v1::InferRequest request = IdentityRequest("big", kElements, form, &values);
    v1::InferResponse response;
    grpc::Status status = Infer(*stub, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(response.outputs_size(), 1);
    EXPECT_TRUE(OutputValues(response.outputs(0)) == values);

    grpc::Status stream_status;
    std::vector<v1::InferResponse> streamed = RunStream(*stub, {request, request}, &stream_status);
    ASSERT_TRUE(stream_status.ok()) << stream_status.error_message();
    ASSERT_EQ(streamed.size(), 2u);
    for (const v1::InferResponse& answer : streamed) {
      ASSERT_FALSE(answer.has_error()) << answer.error().message();
      EXPECT_TRUE(OutputValues(answer.outputs(0)) == values);
    }
  }
}

// The same over ModelInfer, raw: a large raw output travels outside the message, spliced into
// the answer as a slice of its own (server/grpc/detached_bytes.h), and must arrive whole.
TEST(InferMessageSizeE2ETest, A24MiBTensorPassesOverModelInferRaw) {
  START_DAEMON(daemon, SimDaemonArgs());
  constexpr uint32_t kElements = 6u << 20;  // 24 MiB of float32
  ASSERT_NO_FATAL_FAILURE(LoadIdentity(*daemon->stub, "big", kElements));
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(-1);
  auto v2 = inference::GRPCInferenceService::NewStub(
      grpc::CreateCustomChannel(daemon->address, grpc::InsecureChannelCredentials(), arguments));
  std::vector<float> values(kElements);
  std::iota(values.begin(), values.end(), 0.25f);
  inference::ModelInferRequest request;
  request.set_model_name("big");
  request.set_id("whole");
  inference::ModelInferRequest::InferInputTensor* input = request.add_inputs();
  input->set_name("input");
  input->set_datatype("FP32");
  input->add_shape(1);
  input->add_shape(kElements);
  request.add_raw_input_contents(reinterpret_cast<const char*>(values.data()),
                                 values.size() * sizeof(float));
  inference::ModelInferResponse response;
  grpc::ClientContext context;
  const grpc::Status status = v2->ModelInfer(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.id(), "whole");
  EXPECT_EQ(response.model_name(), "big");
  ASSERT_EQ(response.outputs_size(), 1);
  EXPECT_EQ(response.outputs(0).datatype(), "FP32");
  ASSERT_EQ(response.raw_output_contents_size(), 1);
  EXPECT_TRUE(response.raw_output_contents(0) == request.raw_input_contents(0));
}

TEST(InferMessageSizeE2ETest, ARequestOverTheLimitIsResourceExhaustedAndTheDaemonGoesOn) {
  START_DAEMON(daemon, SimDaemonArgs({"--max-message-bytes=1048576"}));
  ASSERT_NO_FATAL_FAILURE(LoadIdentity(*daemon->stub, "wide", 512 * 1024));  // 2 MiB
  ASSERT_NO_FATAL_FAILURE(LoadIdentity(*daemon->stub, "narrow", 1024));

  std::vector<float> values;
  grpc::Status status =
      Infer(*daemon->stub, IdentityRequest("wide", 512 * 1024, TensorForm::kRaw, &values),
            nullptr);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("larger than max"));
  EXPECT_THAT(status.error_message(), HasSubstr("1048576"));

  v1::InferResponse response;
  grpc::Status small =
      Infer(*daemon->stub, IdentityRequest("narrow", 1024, TensorForm::kRaw, &values), &response);
  ASSERT_TRUE(small.ok()) << small.error_message();
  EXPECT_TRUE(OutputValues(response.outputs(0)) == values);
}

}  // namespace
}  // namespace infer_message_size_e2e_test
}  // namespace neuronserve::testing
