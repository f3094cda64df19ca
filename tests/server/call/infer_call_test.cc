// InferCall::Bind against a model loaded on the simulated runtime through the real registry:
// what a good request binds to, and how each kind of bad request is refused.
#include <stdlib.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "core/lifecycle/model_registry.h"
#include "core/nrt/nrt_library.h"
#include "core/nrt/nrt_runtime.h"
#include "core/serving/execution/worker_pool.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/native/native_infer_call.h"
#include "tests/support/build_paths.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve {
namespace {

using ::neuronserve::testing::SimNeffFromJson;
using ::testing::ElementsAre;

constexpr uint32_t kSimCores = 2;

// y = relu(x) over float32 [1,4], and int8 ids passed through.
const char* const kMixedModelJson =
    R"({"inputs": [{"name": "x", "dtype": "float32", "shape": [1, 4]},
            {"name": "ids", "dtype": "int8", "shape": [2]}],
 "outputs": [{"name": "y", "dtype": "float32", "shape": [1, 4]},
             {"name": "ids_out", "dtype": "int8", "shape": [2]}],
 "ops": [{"op": "relu", "inputs": ["x"], "output": "y"},
         {"op": "identity", "inputs": ["ids"], "output": "ids_out"}]})";

// Bind is all these tests run: nothing is submitted, so nothing completes (and answers).
class UnsubmittedCall final : public NativeInferCall {
 public:
  bool Cancelled() const override { return false; }
  void Answer(const absl::Status& status, bool /*final*/) override {
    ADD_FAILURE() << "a call that was never submitted completed: " << status;
  }
};

std::string FloatBytes(const std::vector<float>& values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

v1::InputTensor* AddInput(v1::InferRequest& request, const std::string& name,
                          const std::vector<uint32_t>& shape, const std::string& dtype) {
  v1::InputTensor* input = request.add_inputs();
  input->set_name(name);
  input->mutable_shape()->Add(shape.begin(), shape.end());
  input->set_dtype(dtype);
  return input;
}

// A request "mixed" accepts: both inputs in raw_data, ids first (the request's order need not
// be the model's), asking for y only.
v1::InferRequest GoodRequest() {
  v1::InferRequest request;
  request.set_id("req-1");
  request.set_model("mixed");
  AddInput(request, "ids", {2}, "int8")->set_raw_data(std::string("\x05\xfd", 2));
  AddInput(request, "x", {1, 4}, "float32")->set_raw_data(FloatBytes({1, -2, 3, -4}));
  request.add_outputs("y");
  return request;
}

// Which input of GoodRequest() is which.
v1::InputTensor& Ids(v1::InferRequest& request) { return *request.mutable_inputs(0); }
v1::InputTensor& X(v1::InferRequest& request) { return *request.mutable_inputs(1); }

class InferCallBindTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("NRTSIM_CORES", std::to_string(kSimCores).c_str(), 1);
    absl::StatusOr<std::unique_ptr<NrtLibrary>> library = NrtLibrary::Open(NRTSIM_LIBRARY_PATH);
    ASSERT_TRUE(library.ok()) << library.status();
    absl::StatusOr<std::unique_ptr<NrtRuntime>> runtime = NrtRuntime::Start(*std::move(library));
    ASSERT_TRUE(runtime.ok()) << runtime.status();
    runtime_ = *std::move(runtime);
    workers_ = std::make_unique<WorkerPool>(kSimCores);
    registry_ = std::make_unique<ModelRegistry>(*runtime_, *workers_, nullptr);

    LoadSpec spec;
    spec.identity = ModelIdentity{"mixed", "1", ModelSource::kUpload};
    spec.neff = std::make_shared<const std::string>(SimNeffFromJson(kMixedModelJson));
    registry_->Load(std::move(spec), [this](absl::StatusOr<ModelInfo> result) {
      loaded_info_ = std::move(result);
      loaded_.Notify();
    });
    ASSERT_TRUE(loaded_.WaitForNotificationWithTimeout(absl::Seconds(30)));
    ASSERT_TRUE(loaded_info_.ok()) << loaded_info_.status();
    context_.registry = registry_.get();
  }

  // Binds `request` on a fresh call and returns the status; expects a refusal to leave the
  // response without outputs.
  absl::Status BindStatus(const v1::InferRequest& request) {
    UnsubmittedCall call;
    v1::InferResponse response;
    absl::Status status = call.Bind(context_, request, response);
    if (!status.ok()) {
      EXPECT_EQ(response.outputs_size(), 0) << response.DebugString();
    }
    return status;
  }

  void ExpectRefused(const v1::InferRequest& request, const std::string& message) {
    const absl::Status status = BindStatus(request);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_EQ(status.message(), message);
  }

  // Declared in the order they are built; destroyed the other way round (the registry, whose
  // thread may still run the load's callback after a timed-out wait, before what it writes).
  Notification loaded_;
  absl::StatusOr<ModelInfo> loaded_info_;
  std::unique_ptr<NrtRuntime> runtime_;
  std::unique_ptr<WorkerPool> workers_;
  std::unique_ptr<ModelRegistry> registry_;
  InferContext context_;
};

TEST_F(InferCallBindTest, AGoodRequestPointsAtItsOwnBytesAndNamesTheWantedOutputs) {
  const v1::InferRequest request = GoodRequest();
  UnsubmittedCall call;
  v1::InferResponse response;
  ASSERT_TRUE(call.Bind(context_, request, response).ok());

  // In the model's order (x, ids), each the request's raw_data itself: no copy on this thread.
  EXPECT_EQ(call.Input(0).data(),
            reinterpret_cast<const uint8_t*>(request.inputs(1).raw_data().data()));
  EXPECT_EQ(call.Input(0).size(), 16u);
  EXPECT_EQ(call.Input(1).data(),
            reinterpret_cast<const uint8_t*>(request.inputs(0).raw_data().data()));
  EXPECT_EQ(call.Input(1).size(), 2u);

  EXPECT_EQ(response.id(), "req-1");
  EXPECT_EQ(response.model(), "mixed");
  EXPECT_EQ(response.version(), "1");
  ASSERT_EQ(response.outputs_size(), 1);
  EXPECT_EQ(response.outputs(0).name(), "y");
  EXPECT_EQ(response.outputs(0).dtype(), "float32");
  EXPECT_THAT(response.outputs(0).shape(), ElementsAre(1u, 4u));

  // The device writes y straight into the response's raw_data (the request came in raw_data);
  // ids_out was not asked for and has nowhere to go.
  const absl::Span<uint8_t> y = call.Output(0);
  EXPECT_EQ(y.size(), 16u);
  EXPECT_EQ(y.data(), reinterpret_cast<const uint8_t*>(response.outputs(0).raw_data().data()));
  EXPECT_TRUE(call.Output(1).empty());
}

TEST_F(InferCallBindTest, AWiderFieldIsConvertedAndEveryOutputIsNamedWhenNoneIsAskedFor) {
  v1::InferRequest request = GoodRequest();
  Ids(request).clear_raw_data();
  Ids(request).add_int32_data(5);
  Ids(request).add_int32_data(-3);
  request.clear_outputs();
  UnsubmittedCall call;
  v1::InferResponse response;
  ASSERT_TRUE(call.Bind(context_, request, response).ok());

  // int8 from int32_data: narrowed into the call's own buffer, the elements' bytes.
  EXPECT_THAT(std::vector<uint8_t>(call.Input(1).begin(), call.Input(1).end()),
              ElementsAre(0x05, 0xfd));
  EXPECT_EQ(call.Input(0).data(), reinterpret_cast<const uint8_t*>(X(request).raw_data().data()));
  ASSERT_EQ(response.outputs_size(), 2);
  EXPECT_EQ(response.outputs(0).name(), "y");
  EXPECT_EQ(response.outputs(1).name(), "ids_out");
  EXPECT_EQ(response.outputs(1).dtype(), "int8");
  EXPECT_THAT(response.outputs(1).shape(), ElementsAre(2u));
}

TEST_F(InferCallBindTest, BeginUnboundAnswersForTheRequestWithoutLookingAtTheModel) {
  v1::InferRequest request = GoodRequest();
  request.set_model("ghost");
  UnsubmittedCall call;
  v1::InferResponse response;
  call.BeginUnbound(context_, request, response);
  EXPECT_EQ(response.id(), "req-1");
  EXPECT_EQ(response.model(), "ghost");
  EXPECT_EQ(response.version(), "");
  EXPECT_EQ(response.outputs_size(), 0);
}

TEST_F(InferCallBindTest, AnUnknownModelIsNotFound) {
  v1::InferRequest request = GoodRequest();
  request.set_model("ghost");
  const absl::Status status = BindStatus(request);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  EXPECT_EQ(status.message(), "Request for unknown model: 'ghost' is not found (loaded: 'mixed')");
}

TEST_F(InferCallBindTest, AnUnnamedModelIsRefused) {
  v1::InferRequest request = GoodRequest();
  request.clear_model();
  ExpectRefused(request, "InferRequest.model is empty: name the model to run");
}

TEST_F(InferCallBindTest, AnUnknownInputIsRefusedNamingTheModelsInputs) {
  v1::InferRequest request = GoodRequest();
  Ids(request).set_name("tokens");
  ExpectRefused(request, "model 'mixed' has no input 'tokens' (its inputs: 'x', 'ids')");
}

TEST_F(InferCallBindTest, AMissingInputIsRefusedWithItsShapeAndDtype) {
  v1::InferRequest request = GoodRequest();
  request.mutable_inputs()->DeleteSubrange(0, 1);  // ids
  ExpectRefused(request, "model 'mixed': missing input 'ids' (shape [2] int8)");
}

TEST_F(InferCallBindTest, AnInputGivenTwiceIsRefused) {
  v1::InferRequest request = GoodRequest();
  *request.add_inputs() = X(request);
  ExpectRefused(request, "model 'mixed' input 'x' is given more than once");
}

TEST_F(InferCallBindTest, AWrongShapeIsRefusedNamingBoth) {
  v1::InferRequest request = GoodRequest();
  X(request).clear_shape();
  X(request).add_shape(4);
  ExpectRefused(request, "model 'mixed' input 'x': expected shape [1,4], got [4]");
}

TEST_F(InferCallBindTest, AWrongDtypeIsRefusedNamingBoth) {
  v1::InferRequest request = GoodRequest();
  X(request).set_dtype("float16");
  ExpectRefused(request, "model 'mixed' input 'x' is float32, but the request says float16");
}

TEST_F(InferCallBindTest, RawDataOfTheWrongSizeIsRefusedNamingBothSizes) {
  v1::InferRequest request = GoodRequest();
  X(request).set_raw_data(FloatBytes({1, 2, 3}));
  ExpectRefused(request,
                "model 'mixed' input 'x': expected 16 bytes of raw_data (shape [1,4] float32), "
                "got 12 bytes");
}

TEST_F(InferCallBindTest, AValueOutsideAnInt8TensorsRangeIsRefusedNamingIt) {
  v1::InferRequest request = GoodRequest();
  Ids(request).clear_raw_data();
  Ids(request).add_int32_data(5);
  Ids(request).add_int32_data(200);
  ExpectRefused(request,
                "model 'mixed' input 'ids' is int8: int32_data[1] = 200 is outside its range "
                "[-128, 127]");
}

TEST_F(InferCallBindTest, AnUnknownOutputIsRefusedNamingTheModelsOutputs) {
  v1::InferRequest request = GoodRequest();
  request.add_outputs("z");
  ExpectRefused(request, "model 'mixed' has no output 'z' (its outputs: 'y', 'ids_out')");
}

TEST_F(InferCallBindTest, AVersionThatIsNotServingIsAFailedPrecondition) {
  v1::InferRequest request = GoodRequest();
  request.set_version("2");
  const absl::Status status = BindStatus(request);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_EQ(status.message(),
            "Request for unknown model: 'mixed' version 2 is not found (version '1' is serving)");
}

TEST_F(InferCallBindTest, AVersionStringThatIsNoNumberNorTheServingLabelIsAnInvalidArgument) {
  v1::InferRequest request = GoodRequest();
  request.set_version("wrong_specification");
  const absl::Status status = BindStatus(request);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_EQ(status.message(),
            "failed to get model version from specified version string 'wrong_specification': "
            "it is neither a version number nor the label of the version of model 'mixed' that "
            "serves (version '1' is serving)");
}

}  // namespace
}  // namespace neuronserve
