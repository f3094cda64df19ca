// Shared memory through the real daemon, on the Open Inference Protocol over gRPC (Triton's
// system shared memory extension): regions made as tritonclient's helpers make them (shm_open of
// a key with a leading '/', mode 0600), registered, used for inputs and outputs of every dtype
// (the same answers as the byte path), the bounds a client can get wrong, a client that
// truncates its object, unregistering while a request uses the region, the key prefix, the
// feature being off by default, the CUDA extension answered as a server without GPUs, and the
// audit log. The native API: shared_memory_native_e2e_test.cc. (REST:
// v2_rest_shared_memory_e2e_test.cc.)
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "base/v2_datatype_name.h"
#include "client/simmodel/identity_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "tests/e2e/dtype_samples.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/e2e/shared_memory_e2e_support.h"
#include "tests/support/shm_object.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing {
// Named, not anonymous: the e2e target compiles its files in unity batches.
namespace shared_memory_e2e {

TEST(SharedMemoryE2ETest, OffByDefaultTheRefusalNamesTheFlag) {
  START_DAEMON(daemon, SimDaemonArgs());
  auto v2 = V2Stub(*daemon);
  ShmObject object(4096);
  ASSERT_TRUE(object.ok());
  const grpc::Status refused = Register(*v2, "r", object.key(), 0, 4096);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(refused.error_message(), HasSubstr("--allow-client-shared-memory"));
  inference::SystemSharedMemoryStatusResponse status;
  ASSERT_TRUE(Status(*v2, "", &status).ok());
  EXPECT_TRUE(status.regions().empty());
  // A request naming a region is refused, naming the model, the input and the region.
  LoadIdentity(*daemon->stub, DataType::kFloat32, {2, 3});
  ModelInferResponse response;
  const grpc::Status infer = ModelInfer(
      *v2, SharedRequest(ModelNameFor(DataType::kFloat32), "FP32", "r", 0, 24), &response);
  EXPECT_EQ(infer.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(infer.error_message(), HasSubstr("input 'input'"));
  EXPECT_THAT(infer.error_message(), HasSubstr("'r'"));
}

TEST(SharedMemoryE2ETest, EveryDtypeThroughSharedMemoryAnswersAsTheBytePath) {
  START_DAEMON(daemon, SimDaemonArgs({kAllow}));
  auto v2 = V2Stub(*daemon);
  // One object, as a client would lay it out: inputs in the first half, outputs in the second;
  // regions at offsets that are not page-aligned.
  ShmObject object(64 * 1024);
  ASSERT_TRUE(object.ok());
  ASSERT_TRUE(Register(*v2, "in", object.key(), 100, 16 * 1024).ok());
  ASSERT_TRUE(Register(*v2, "out", object.key(), 32 * 1024 + 7, 16 * 1024).ok());
  int64_t slot = 0;
  for (DataType dtype : kEveryDtype) {
    const std::string datatype = V2DatatypeName(dtype);
    LoadIdentity(*daemon->stub, dtype, {2, 3});
    const std::string bytes = ElementBytes(dtype, SampleValues(dtype));
    const int64_t at = slot++ * 64;
    std::memcpy(object.bytes() + 100 + at, bytes.data(), bytes.size());

    // Input and output in shared memory.
    ModelInferResponse shared;
    const grpc::Status status = ModelInfer(
        *v2,
        SharedRequest(ModelNameFor(dtype), datatype, "in", at, static_cast<int64_t>(bytes.size()),
                      "out", at, static_cast<int64_t>(bytes.size())),
        &shared);
    ASSERT_TRUE(status.ok()) << datatype << ": " << status.error_message();
    ASSERT_EQ(shared.outputs_size(), 1) << datatype;
    EXPECT_EQ(shared.outputs(0).name(), "output");
    EXPECT_EQ(shared.outputs(0).datatype(), datatype);
    EXPECT_THAT(shared.outputs(0).shape(), ElementsAre(2, 3));
    // The output's place in raw_output_contents is kept, empty: indexes line up.
    ASSERT_EQ(shared.raw_output_contents_size(), 1) << datatype;
    EXPECT_TRUE(shared.raw_output_contents(0).empty()) << datatype;
    const std::string written(reinterpret_cast<const char*>(object.bytes() + 32 * 1024 + 7 + at),
                              bytes.size());
    EXPECT_EQ(written, bytes) << datatype;

    // The byte path gives the same bytes.
    ModelInferRequest byte_path;
    byte_path.set_model_name(ModelNameFor(dtype));
    auto* input = byte_path.add_inputs();
    input->set_name("input");
    input->set_datatype(datatype);
    input->add_shape(2);
    input->add_shape(3);
    byte_path.add_raw_input_contents(bytes);
    ModelInferResponse direct;
    ASSERT_TRUE(ModelInfer(*v2, byte_path, &direct).ok()) << datatype;
    ASSERT_EQ(direct.raw_output_contents_size(), 1);
    EXPECT_EQ(direct.raw_output_contents(0), written) << datatype;

    // Input in shared memory, output in the answer.
    ModelInferResponse mixed;
    ASSERT_TRUE(ModelInfer(*v2,
                           SharedRequest(ModelNameFor(dtype), datatype, "in", at,
                                         static_cast<int64_t>(bytes.size())),
                           &mixed)
                    .ok())
        << datatype;
    ASSERT_EQ(mixed.outputs_size(), 1);
    // A request with a tensor in shared memory is answered raw, as Triton answers.
    EXPECT_FALSE(mixed.outputs(0).has_contents()) << datatype;
    ASSERT_EQ(mixed.raw_output_contents_size(), 1) << datatype;
    EXPECT_EQ(mixed.raw_output_contents(0), bytes) << datatype;
  }
}

TEST(SharedMemoryE2ETest, BoundsAreCheckedAndNameTheRegionNeverTheKey) {
  START_DAEMON(daemon, SimDaemonArgs({kAllow}));
  auto v2 = V2Stub(*daemon);
  LoadIdentity(*daemon->stub, DataType::kFloat32, {2, 3});
  const std::string model = ModelNameFor(DataType::kFloat32);
  ShmObject object(8192);
  ASSERT_TRUE(object.ok());
  const std::string key_text = object.key().substr(1);

  // Registering past the object's end, or with a size that overflows.
  for (auto [offset, size] : std::vector<std::pair<uint64_t, uint64_t>>{
           {0, 8193}, {8192, 1}, {100, ~uint64_t{0}}, {~uint64_t{0}, 2}}) {
    const grpc::Status status = Register(*v2, "big", object.key(), offset, size);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << offset << " " << size;
    EXPECT_THAT(status.error_message(), HasSubstr("region 'big'"));
    EXPECT_THAT(status.error_message(), Not(HasSubstr(key_text)));
  }
  const grpc::Status missing = Register(*v2, "gone", "/no-such-object-here", 0, 16);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(missing.error_message(), Not(HasSubstr("no-such-object-here")));

  ASSERT_TRUE(Register(*v2, "r", object.key(), 0, 1000).ok());
  EXPECT_EQ(Register(*v2, "r", object.key(), 0, 10).error_code(), grpc::StatusCode::ALREADY_EXISTS);
  struct Case {
    ModelInferRequest request;
    std::string says;
  };
  std::vector<Case> cases;
  // Offset past the region's end; offset + size past it; a size that overflows the offset.
  cases.push_back({SharedRequest(model, "FP32", "r", 1001, 24), "offset 1001"});
  cases.push_back({SharedRequest(model, "FP32", "r", 990, 24), "offset 990"});
  cases.push_back(
      {SharedRequest(model, "FP32", "r", 8, std::numeric_limits<int64_t>::max()), "offset 8"});
  // A region range smaller than the tensor (24 bytes of FP32 [2, 3]).
  cases.push_back({SharedRequest(model, "FP32", "r", 0, 20), "shared memory region 'r'"});
  // An output region smaller than the output.
  cases.push_back({SharedRequest(model, "FP32", "r", 0, 24, "r", 500, 16),
                   "more than the 16 the request gives it in shared memory region 'r'"});
  // Negative and missing parameters.
  {
    ModelInferRequest request = SharedRequest(model, "FP32", "r", 0, 24);
    request.mutable_inputs(0)->mutable_parameters()->erase("shared_memory_byte_size");
    cases.push_back({request, "needs both"});
  }
  {
    ModelInferRequest request = SharedRequest(model, "FP32", "r", 0, 24);
    (*request.mutable_inputs(0)->mutable_parameters())["shared_memory_offset"].set_int64_param(-5);
    cases.push_back({request, "may not be negative"});
  }
  {
    ModelInferRequest request = SharedRequest(model, "FP32", "nope", 0, 24);
    cases.push_back({request, "no shared memory region 'nope' is registered"});
  }
  {
    // An input in shared memory that also carries values.
    ModelInferRequest request = SharedRequest(model, "FP32", "r", 0, 24);
    for (int i = 0; i < 6; ++i) request.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1);
    cases.push_back({request, "carries no values"});
  }
  for (const Case& c : cases) {
    ModelInferResponse response;
    const grpc::Status status = ModelInfer(*v2, c.request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << c.says << ": " << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr(c.says));
    EXPECT_THAT(status.error_message(), HasSubstr("model '" + model + "'"));
    EXPECT_THAT(status.error_message(), Not(HasSubstr(key_text)));
  }
  // The daemon serves on.
  ModelInferResponse ok;
  EXPECT_TRUE(ModelInfer(*v2, SharedRequest(model, "FP32", "r", 0, 24, "r", 500, 24), &ok).ok());
}

TEST(SharedMemoryE2ETest, AnObjectTruncatedByItsClientFailsItsRequestsAndTheDaemonServesOn) {
  START_DAEMON(daemon, SimDaemonArgs({kAllow}));
  auto v2 = V2Stub(*daemon);
  LoadIdentity(*daemon->stub, DataType::kFloat32, {2, 3});
  const std::string model = ModelNameFor(DataType::kFloat32);
  ShmObject object(3 * 4096);
  ASSERT_TRUE(object.ok());
  ASSERT_TRUE(Register(*v2, "r", object.key(), 0, 3 * 4096).ok());
  ASSERT_TRUE(Register(*v2, "whole", object.key(), 0, 4096).ok());
  ModelInferResponse response;
  ASSERT_TRUE(ModelInfer(*v2, SharedRequest(model, "FP32", "r", 2 * 4096, 24), &response).ok());

  // The client shrinks its object to one page: the daemon's copy from the third page faults.
  ASSERT_TRUE(object.Truncate(4096));
  const grpc::Status lost =
      ModelInfer(*v2, SharedRequest(model, "FP32", "r", 2 * 4096, 24), &response);
  EXPECT_EQ(lost.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << lost.error_message();
  EXPECT_THAT(lost.error_message(), HasSubstr("shared memory region 'r'"));
  EXPECT_THAT(lost.error_message(), HasSubstr("truncated"));
  // The region stays lost: refused when the request is bound.
  const grpc::Status again = ModelInfer(*v2, SharedRequest(model, "FP32", "r", 0, 24), &response);
  EXPECT_EQ(again.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  // Another region of the same object, on its first page, still serves, and so does the daemon.
  EXPECT_TRUE(ModelInfer(*v2, SharedRequest(model, "FP32", "whole", 0, 24), &response).ok());
  ASSERT_TRUE(Unregister(*v2, "r").ok());
  ModelInferRequest bytes;
  bytes.set_model_name(model);
  auto* input = bytes.add_inputs();
  input->set_name("input");
  input->set_datatype("FP32");
  input->add_shape(2);
  input->add_shape(3);
  bytes.add_raw_input_contents(std::string(24, '\1'));
  EXPECT_TRUE(ModelInfer(*v2, bytes, &response).ok());
}

TEST(SharedMemoryE2ETest, UnregisteringWhileARequestUsesTheRegionNeitherWaitsNorBreaksIt) {
  // The HTTP endpoint for its metrics: the test waits until the daemon holds the request.
  START_DAEMON(daemon, SimDaemonArgs({kAllow, "--http-listen=127.0.0.1:0"}));
  auto v2 = V2Stub(*daemon);
  // An identity whose execution takes 1 s: the request holds its regions meanwhile.
  simmodel::IdentityOptions options;
  options.shape = {2, 3};
  absl::StatusOr<simmodel::SimModel> slow = simmodel::BuildIdentityModel(options);
  ASSERT_TRUE(slow.ok());
  slow->latency_us = 1'000'000;
  ASSERT_TRUE(Upload(*daemon->stub, Config("slow"), EncodeNeff(*slow)).status.ok());
  ShmObject object(8192);
  ASSERT_TRUE(object.ok());
  const std::vector<float> values = {1, 2, 3, 4, 5, 6};
  std::memcpy(object.bytes(), values.data(), 24);
  ASSERT_TRUE(Register(*v2, "in", object.key(), 0, 24).ok());
  ASSERT_TRUE(Register(*v2, "out", object.key(), 4096, 24).ok());

  grpc::ClientContext context;
  WithDeadline(context);
  ModelInferResponse response;
  std::atomic<bool> answered{false};
  grpc::Status status;
  const ModelInferRequest request = SharedRequest("slow", "FP32", "in", 0, 24, "out", 0, 24);
  v2->async()->ModelInfer(&context, &request, &response, [&](grpc::Status s) {
    status = s;
    answered = true;
  });
  // Unregister both while the request waits on the device: both calls return at once, and
  // new requests no longer find the regions.
  ASSERT_TRUE(WaitUntilInFlight(*daemon->process, 1));
  ASSERT_TRUE(Unregister(*v2, "in").ok());
  ASSERT_TRUE(Unregister(*v2, "").ok());
  EXPECT_FALSE(answered.load()) << "unregister waited for the request";
  inference::SystemSharedMemoryStatusResponse regions;
  ASSERT_TRUE(Status(*v2, "", &regions).ok());
  EXPECT_TRUE(regions.regions().empty());
  ModelInferResponse refused;
  EXPECT_EQ(ModelInfer(*v2, SharedRequest("slow", "FP32", "in", 0, 24), &refused).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  // The request still completes, its output written through the mapping it held.
  ASSERT_TRUE(WaitUntil([&] { return answered.load(); }, absl::Seconds(30)));
  EXPECT_TRUE(status.ok()) << status.error_message();
  std::vector<float> out(6);
  std::memcpy(out.data(), object.bytes() + 4096, 24);
  EXPECT_EQ(out, values);
}

TEST(SharedMemoryE2ETest, AKeyOutsideThePrefixIsRefusedAndStatusShowsWhatIsRegistered) {
  START_DAEMON(daemon, SimDaemonArgs({kAllow, "--shared-memory-key-prefix=/neuron-serve-test-"}));
  auto v2 = V2Stub(*daemon);
  ShmObject inside(4096);
  ASSERT_TRUE(inside.ok());
  ASSERT_TRUE(Register(*v2, "ok", inside.key(), 16, 1024).ok());
  // An object the prefix does not cover, made as a client would.
  const std::string outside_key = absl::StrCat("/other-app-", getpid());
  const int fd = shm_open(outside_key.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  const grpc::Status refused = Register(*v2, "other", outside_key, 0, 4096);
  close(fd);
  shm_unlink(outside_key.c_str());
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(refused.error_message(), HasSubstr("--shared-memory-key-prefix"));
  EXPECT_THAT(refused.error_message(), Not(HasSubstr("other-app")));

  inference::SystemSharedMemoryStatusResponse status;
  ASSERT_TRUE(Status(*v2, "", &status).ok());
  ASSERT_EQ(status.regions_size(), 1);
  const auto& region = status.regions().at("ok");
  EXPECT_EQ(region.name(), "ok");
  EXPECT_EQ(region.key(), inside.key());
  EXPECT_EQ(region.offset(), 16u);
  EXPECT_EQ(region.byte_size(), 1024u);
  EXPECT_EQ(Status(*v2, "other", &status).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST(SharedMemoryE2ETest, CudaSharedMemoryAnswersAsAServerWithoutGpus) {
  START_DAEMON(daemon, SimDaemonArgs({kAllow}));
  auto v2 = V2Stub(*daemon);
  {
    inference::CudaSharedMemoryUnregisterRequest request;  // what tritonclient's examples do
    inference::CudaSharedMemoryUnregisterResponse response;
    grpc::ClientContext context;
    EXPECT_TRUE(v2->CudaSharedMemoryUnregister(WithDeadline(context), request, &response).ok());
  }
  {
    inference::CudaSharedMemoryStatusRequest request;
    inference::CudaSharedMemoryStatusResponse response;
    grpc::ClientContext context;
    ASSERT_TRUE(v2->CudaSharedMemoryStatus(WithDeadline(context), request, &response).ok());
    EXPECT_TRUE(response.regions().empty());
  }
  {
    inference::CudaSharedMemoryRegisterRequest request;
    request.set_name("gpu0");
    request.set_raw_handle("handle");
    request.set_byte_size(64);
    inference::CudaSharedMemoryRegisterResponse response;
    grpc::ClientContext context;
    const grpc::Status refused =
        v2->CudaSharedMemoryRegister(WithDeadline(context), request, &response);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_THAT(refused.error_message(), HasSubstr("no GPUs"));
  }
}

TEST(SharedMemoryE2ETest, RegisterAndUnregisterAreAuditedByRegionNameNeverByKey) {
  TempDir dir;
  const std::string audit = dir.path() + "/audit.log";
  START_DAEMON(daemon, SimDaemonArgs({kAllow, "--audit-log=" + audit}));
  auto v2 = V2Stub(*daemon);
  ShmObject object(4096);
  ASSERT_TRUE(object.ok());
  ASSERT_TRUE(Register(*v2, "audited", object.key(), 0, 4096).ok());
  ASSERT_TRUE(Unregister(*v2, "").ok());
  std::string text;
  WaitUntil([&] {
    std::ifstream file(audit);
    std::stringstream read;
    read << file.rdbuf();
    text = read.str();
    return text.find("rpc=SystemSharedMemoryUnregister") != std::string::npos;
  });
  EXPECT_THAT(text, HasSubstr("rpc=SystemSharedMemoryRegister"));
  EXPECT_THAT(text, HasSubstr("region=audited code=OK"));
  EXPECT_THAT(text, HasSubstr("rpc=SystemSharedMemoryUnregister"));
  EXPECT_THAT(text, HasSubstr("region=* code=OK"));
  EXPECT_THAT(text, Not(HasSubstr(object.key().substr(1))));
}

}  // namespace shared_memory_e2e
}  // namespace neuronserve::testing
