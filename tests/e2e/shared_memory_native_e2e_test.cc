// Shared memory through the real daemon on the native API (neuronserve.v1): every dtype through
// a region, one registry behind both APIs (a region registered on one is used on the other), and
// the infer scope registering needs with tokens on.
#include <cstring>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "client/simmodel/identity_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "tests/e2e/dtype_samples.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/shared_memory_e2e_support.h"
#include "tests/support/shm_object.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing {
// Named, not anonymous: the e2e target compiles its files in unity batches.
namespace shared_memory_e2e {

grpc::Status NativeRegister(v1::NeuronServing::Stub& stub, const std::string& name,
                            const std::string& key, uint64_t offset, uint64_t byte_size,
                            const std::string& token = "") {
  v1::RegisterSharedMemoryRequest request;
  request.set_name(name);
  request.set_key(key);
  request.set_offset(offset);
  request.set_byte_size(byte_size);
  v1::RegisterSharedMemoryResponse response;
  grpc::ClientContext context;
  if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
  return stub.RegisterSharedMemory(WithDeadline(context), request, &response);
}

v1::SharedMemoryRef Ref(const std::string& region, uint64_t offset, uint64_t byte_size) {
  v1::SharedMemoryRef ref;
  ref.set_region(region);
  ref.set_offset(offset);
  ref.set_byte_size(byte_size);
  return ref;
}

grpc::Status NativeInfer(v1::NeuronServing::Stub& stub, const v1::InferRequest& request,
                         v1::InferResponse* response) {
  grpc::ClientContext context;
  return stub.Infer(WithDeadline(context), request, response);
}

TEST(SharedMemoryE2ETest, NativeApiEveryDtypeThroughSharedMemoryAndOneRegistryForBothApis) {
  START_DAEMON(daemon, SimDaemonArgs({kAllow}));
  auto v2 = V2Stub(*daemon);
  ShmObject object(64 * 1024);
  ASSERT_TRUE(object.ok());
  ASSERT_TRUE(NativeRegister(*daemon->stub, "in", object.key(), 1, 16 * 1024).ok());
  // Registered over the v2 service, used over the native API: one registry.
  ASSERT_TRUE(Register(*v2, "out", object.key(), 32 * 1024, 16 * 1024).ok());
  {
    v1::SharedMemoryStatusRequest request;
    v1::SharedMemoryStatusResponse response;
    grpc::ClientContext context;
    ASSERT_TRUE(daemon->stub->SharedMemoryStatus(WithDeadline(context), request, &response).ok());
    ASSERT_EQ(response.regions_size(), 2);
    EXPECT_EQ(response.regions(0).name(), "in");
    EXPECT_EQ(response.regions(0).key(), object.key());
    EXPECT_EQ(response.regions(0).offset(), 1u);
    EXPECT_EQ(response.regions(1).name(), "out");
  }
  uint64_t at = 0;
  for (DataType dtype : kEveryDtype) {  // the native-only dtypes (fp8, fp32r) included
    LoadIdentity(*daemon->stub, dtype, {2, 3});
    const std::string bytes = ElementBytes(dtype, SampleValues(dtype));
    std::memcpy(object.bytes() + 1 + at, bytes.data(), bytes.size());
    v1::InferRequest request;
    request.set_model(ModelNameFor(dtype));
    v1::InputTensor* input = request.add_inputs();
    input->set_name("input");
    *input->mutable_shared_memory() = Ref("in", at, bytes.size());
    v1::OutputSharedMemory* output = request.add_output_shared_memory();
    output->set_name("output");
    *output->mutable_shared_memory() = Ref("out", at, bytes.size() + 8);  // room to spare
    v1::InferResponse response;
    const grpc::Status status = NativeInfer(*daemon->stub, request, &response);
    ASSERT_TRUE(status.ok()) << DataTypeName(dtype) << ": " << status.error_message();
    ASSERT_EQ(response.outputs_size(), 1);
    const v1::OutputTensor& answered = response.outputs(0);
    EXPECT_EQ(answered.name(), "output");
    EXPECT_TRUE(answered.raw_data().empty());
    EXPECT_EQ(answered.float_data_size() + answered.int32_data_size() + answered.int64_data_size() +
                  answered.uint32_data_size() + answered.uint64_data_size(),
              0);
    EXPECT_EQ(answered.shared_memory().region(), "out");
    const std::string written(reinterpret_cast<const char*>(object.bytes() + 32 * 1024 + at),
                              bytes.size());
    EXPECT_EQ(written, bytes) << DataTypeName(dtype);

    // The byte path gives the same bytes.
    v1::InferRequest direct;
    direct.set_model(ModelNameFor(dtype));
    direct.add_inputs()->set_name("input");
    direct.mutable_inputs(0)->set_raw_data(bytes);
    direct.set_response_form(v1::TENSOR_FORM_RAW);
    v1::InferResponse direct_response;
    ASSERT_TRUE(NativeInfer(*daemon->stub, direct, &direct_response).ok());
    EXPECT_EQ(direct_response.outputs(0).raw_data(), written) << DataTypeName(dtype);
    at += 64;
  }

  // Refusals name the model, the tensor and the region.
  const std::string model = ModelNameFor(DataType::kFloat32);
  struct Case {
    v1::InferRequest request;
    std::string says;
  };
  std::vector<Case> cases;
  v1::InferRequest base;
  base.set_model(model);
  base.add_inputs()->set_name("input");
  *base.mutable_inputs(0)->mutable_shared_memory() = Ref("in", 0, 24);
  {
    Case c{base, "shared memory region 'in': model '" + model + "' input 'input''s offset"};
    *c.request.mutable_inputs(0)->mutable_shared_memory() = Ref("in", 16 * 1024 - 8, 24);
    cases.push_back(c);
  }
  {
    Case c{base, "and also carries raw_data"};
    c.request.mutable_inputs(0)->set_raw_data(std::string(24, '\0'));
    cases.push_back(c);
  }
  {
    Case c{base, "too large for any byte count"};
    *c.request.mutable_inputs(0)->mutable_shared_memory() = Ref("in", 0, ~uint64_t{0});
    cases.push_back(c);
  }
  {
    Case c{base, "output 'output' has 24 bytes, more than the 16"};
    v1::OutputSharedMemory* output = c.request.add_output_shared_memory();
    output->set_name("output");
    *output->mutable_shared_memory() = Ref("out", 0, 16);
    cases.push_back(c);
  }
  {
    Case c{base, "no such output is returned"};
    v1::OutputSharedMemory* output = c.request.add_output_shared_memory();
    output->set_name("nope");
    *output->mutable_shared_memory() = Ref("out", 0, 64);
    cases.push_back(c);
  }
  for (const Case& c : cases) {
    v1::InferResponse response;
    const grpc::Status status = NativeInfer(*daemon->stub, c.request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.says;
    EXPECT_THAT(status.error_message(), HasSubstr(c.says));
    EXPECT_THAT(status.error_message(), HasSubstr("model '" + model + "'"));
  }

  v1::UnregisterSharedMemoryRequest unregister;
  v1::UnregisterSharedMemoryResponse unregistered;
  grpc::ClientContext context;
  ASSERT_TRUE(
      daemon->stub->UnregisterSharedMemory(WithDeadline(context), unregister, &unregistered).ok());
  inference::SystemSharedMemoryStatusResponse left;
  ASSERT_TRUE(Status(*v2, "", &left).ok());
  EXPECT_TRUE(left.regions().empty());
}

TEST(SharedMemoryE2ETest, WithTokensOnRegisteringNeedsTheInferScope) {
  TempDir dir;
  const std::string tokens = dir.Write("infer-tokens", "app:shm-infer-token-0123456789\n");
  START_DAEMON(daemon, SimDaemonArgs({kAllow, "--infer-token-file=" + tokens}));
  ShmObject object(4096);
  ASSERT_TRUE(object.ok());
  const grpc::Status anonymous = NativeRegister(*daemon->stub, "r", object.key(), 0, 4096);
  EXPECT_EQ(anonymous.error_code(), grpc::StatusCode::UNAUTHENTICATED) << anonymous.error_message();
  EXPECT_TRUE(
      NativeRegister(*daemon->stub, "r", object.key(), 0, 4096, "shm-infer-token-0123456789").ok());
}

}  // namespace shared_memory_e2e
}  // namespace neuronserve::testing
