// The hostile-input probe of issue 20 as permanent tests, through the real daemon on the
// simulator over gRPC and HTTP on loopback: crafted shapes and 100,000 inputs or outputs in one
// request, on the native API, the Open Inference Protocol's gRPC form and its REST form. Every
// call gets a status other than OK and UNIMPLEMENTED with a message naming what is wrong, and
// afterwards the daemon is SERVING and answers a valid MLP request with MlpReference's values.
// Crafted encodings, model files and upload streams: hostile_input_bytes_e2e_test.cc.
//
// Kinds covered elsewhere are referenced, not repeated: random bytes as every RPC's message
// (malformed_message_e2e_test.cc), the ordinary request mistakes (infer_validation_e2e_test.cc),
// oversized messages (infer_message_size_e2e_test.cc), ~24 malformed REST bodies including a
// 200,000-deep JSON nesting (v2_rest_malformed_e2e_test.cc), and the upload errors
// of model_lifecycle_e2e_test.cc (chunks before the header, an empty stream, a short digest,
// fewer or more bytes than total_size, a wrong digest, a NEFF the runtime refuses).
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/byte_buffer.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "tests/e2e/hostile_input_fixture.h"
#include "tests/e2e/infer_client.h"
#include "tests/support/http_get.h"

namespace neuronserve::testing {
namespace hostile_input_e2e_test {
namespace {

// The probe's count of inputs (or outputs) in one request.
constexpr int kManyTensors = 100'000;

grpc::Status ModelInfer(GRPCInferenceService::Stub& stub, const ModelInferRequest& request,
                        ModelInferResponse* response = nullptr) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  ModelInferResponse ignored;
  return stub.ModelInfer(&context, request, response != nullptr ? response : &ignored);
}

std::string Floats(int count) {
  std::vector<std::string> values(count, "0.5");
  return absl::StrCat("[", absl::StrJoin(values, ","), "]");
}

// 1. Crafted shapes on native Infer. Its `shape` is uint32, so a negative dimension or 2^62
// cannot be written; 2^32-1 is the largest a client can send. Shape and data disagreeing in
// count and a shape with no data are in infer_validation_e2e_test.cc (ShapesAndSizes).
TEST_F(HostileInputE2ETest, CraftedShapesOnNativeInfer) {
  struct Case {
    std::string what;
    std::vector<uint32_t> shape;
    int values;
    grpc::StatusCode code;
    std::vector<std::string> parts;
  };
  const std::vector<uint32_t> rank70(70, 1);
  const std::vector<Case> cases = {
      {"a zero dimension",
       {1, 0},
       kHostileMlpIn,
       grpc::StatusCode::INVALID_ARGUMENT,
       {"model 'mlp' input 'input'", "expected shape [1,8], got [1,0]"}},
      {"2^32-1 dimensions whose product overflows 64 bits",
       {4294967295u, 4294967295u, 4294967295u},
       kHostileMlpIn,
       grpc::StatusCode::INVALID_ARGUMENT,
       {"model 'mlp' input 'input'",
        "expected shape [1,8], got [4294967295,4294967295,4294967295]"}},
      {"rank 70",
       rank70,
       kHostileMlpIn,
       grpc::StatusCode::INVALID_ARGUMENT,
       {"model 'mlp' input 'input'", "expected shape [1,8], got [1,1,1"}},
      {"a shape of the right count but another layout",
       {8},
       kHostileMlpIn,
       grpc::StatusCode::INVALID_ARGUMENT,
       {"model 'mlp' input 'input'", "expected shape [1,8], got [8]"}},
      {"a larger shape than the data",
       {2, 8},
       kHostileMlpIn,
       grpc::StatusCode::INVALID_ARGUMENT,
       {"model 'mlp' input 'input'", "expected shape [1,8], got [2,8]"}},
      // No shape is allowed on native Infer (the model's is used), but the count is checked.
      {"no shape and too few values",
       {},
       3,
       grpc::StatusCode::INVALID_ARGUMENT,
       {"model 'mlp' input 'input'", "expected 8 float32 values in float_data", "got 3"}},
  };
  for (const Case& c : cases) {
    for (TensorForm form : {TensorForm::kFloat, TensorForm::kRaw}) {
      v1::InferRequest request;
      request.set_model("mlp");
      AddInput(request, "input", {}, std::vector<float>(c.values, 0.5f), form);
      for (uint32_t d : c.shape) request.mutable_inputs(0)->add_shape(d);
      std::vector<std::string> parts = c.parts;
      if (form == TensorForm::kRaw && c.shape.empty()) {
        parts = {"model 'mlp' input 'input'", "expected 32 bytes of raw_data", "got 12 bytes"};
      }
      ExpectRefused(Infer(*daemon_->stub, request, nullptr), c.code, parts,
                    absl::StrCat(c.what, form == TensorForm::kRaw ? " (raw)" : " (float)"));
    }
  }
  ExpectStillServing();
}

// 1. Crafted shapes on v2 ModelInfer, whose `shape` is int64: every kind the probe sent.
TEST_F(HostileInputE2ETest, CraftedShapesOnV2ModelInfer) {
  struct Case {
    std::string what;
    std::vector<int64_t> shape;
    int values;  // -1: no contents at all
    bool raw;
    std::vector<std::string> parts;
  };
  const int64_t two62 = int64_t{1} << 62;
  const int64_t two31 = int64_t{1} << 31;
  const std::vector<int64_t> rank70(70, 1);
  const std::vector<Case> cases = {
      {"a negative dimension",
       {1, -8},
       kHostileMlpIn,
       false,
       {"model 'mlp' input 'input': shape dimension -8 is not a size"}},
      {"-1 as a wildcard",
       {-1, 8},
       kHostileMlpIn,
       true,
       {"model 'mlp' input 'input': shape dimension -1 is not a size"}},
      {"a zero dimension",
       {1, 0},
       kHostileMlpIn,
       false,
       {"model 'mlp' input 'input': expected shape [1,8], got [1,0]"}},
      {"a dimension of 2^62",
       {1, two62},
       kHostileMlpIn,
       true,
       {absl::StrCat("model 'mlp' input 'input': shape dimension ", two62, " is not a size")}},
      {"dimensions whose product overflows 64 bits",
       {two31, two31, two31},
       kHostileMlpIn,
       false,
       {absl::StrCat("model 'mlp' input 'input': expected shape [1,8], got [", two31, ",", two31,
                     ",", two31, "]")}},
      {"rank 70",
       rank70,
       kHostileMlpIn,
       false,
       {"model 'mlp' input 'input': expected shape [1,8], got [1,1,1,1,"}},
      {"an empty shape for a [1,8] tensor",
       {},
       kHostileMlpIn,
       false,
       {"model 'mlp' input 'input': expected shape [1,8], got []"}},
      {"a shape larger than the data",
       {2, 8},
       kHostileMlpIn,
       true,
       {"model 'mlp' input 'input': expected shape [1,8], got [2,8]"}},
      {"fewer values than the shape",
       {1, 8},
       3,
       false,
       {"model 'mlp' input 'input': expected 8 FP32 values in fp32_contents (shape [1,8]), got 3"}},
      {"a shape but no data",
       {1, 8},
       -1,
       false,
       {"model 'mlp' input 'input' (shape [1,8] FP32): carries no values; send fp32_contents (8 "
        "values) or raw_input_contents (32 bytes)"}},
  };
  for (const Case& c : cases) {
    ModelInferRequest request;
    request.set_model_name("mlp");
    auto* input = request.add_inputs();
    input->set_name("input");
    input->set_datatype("FP32");
    for (int64_t d : c.shape) input->add_shape(d);
    if (c.values >= 0) {
      if (c.raw) {
        request.add_raw_input_contents(std::string(c.values * sizeof(float), '\0'));
      } else {
        for (int i = 0; i < c.values; ++i) input->mutable_contents()->add_fp32_contents(0.5f);
      }
    }
    ExpectRefused(ModelInfer(*v2_, request), grpc::StatusCode::INVALID_ARGUMENT, c.parts, c.what);
  }
  ExpectStillServing();
}

// 1. Crafted shapes in REST JSON (v2). Numbers past int64 in 'shape' come too.
TEST_F(HostileInputE2ETest, CraftedShapesOnRestV2) {
  struct Case {
    std::string what;
    std::string fields;
    std::string message;  // after "model 'mlp' input 'input'"
  };
  const std::string rank70 = absl::StrCat("[", absl::StrJoin(std::vector<int>(70, 1), ","), "]");
  const std::vector<Case> cases = {
      {"a negative dimension", R"("shape":[1,-8],"data":)" + Floats(kHostileMlpIn),
       ": 'shape' holds -8, which is not a size"},
      {"a zero dimension", R"("shape":[1,0],"data":)" + Floats(kHostileMlpIn),
       ": expected shape [1,8], got [1,0]"},
      {"a dimension of 2^62", R"("shape":[1,4611686018427387904],"data":)" + Floats(kHostileMlpIn),
       ": 'shape' holds 4611686018427387904, which is not a size"},
      {"dimensions whose product overflows 64 bits",
       R"("shape":[2147483648,2147483648,2147483648],"data":)" + Floats(kHostileMlpIn),
       ": expected shape [1,8], got [2147483648,2147483648,2147483648]"},
      {"a dimension past int64", R"("shape":[1,99999999999999999999999],"data":)" + Floats(kHostileMlpIn),
       ": 'shape' holds 1e+23, which is not a size"},
      {"a fractional dimension", R"("shape":[1,8.5],"data":)" + Floats(kHostileMlpIn),
       ": 'shape' holds 8.5, which is not a size"},
      {"rank 70", R"("shape":)" + rank70 + R"(,"data":)" + Floats(kHostileMlpIn),
       ": expected shape [1,8], got [1,1,1,1,"},
      // Refused since this test found it accepted: [] is a scalar's shape, not "no shape".
      {"an empty shape for a [1,8] tensor", R"("shape":[],"data":)" + Floats(kHostileMlpIn),
       ": expected shape [1,8], got []"},
      {"a shape larger than the data", R"("shape":[2,8],"data":)" + Floats(kHostileMlpIn),
       ": expected shape [1,8], got [2,8]"},
      {"a shape but no data", R"("shape":[1,8])",
       " (shape [1,8] FP32): carries no values; send data (8 values) or binary data (32 bytes)"},
  };
  for (const Case& c : cases) {
    const HttpResult result = PostMlpInput(c.fields);
    EXPECT_EQ(result.status, 400) << c.what << ": " << result.body.substr(0, 300);
    EXPECT_THAT(result.ErrorField(), HasSubstr("model 'mlp' input 'input'" + c.message)) << c.what;
  }
  ExpectStillServing();
}

// 2. 100,000 inputs, and 100,000 entries in `outputs`, on native Infer.
TEST_F(HostileInputE2ETest, AHundredThousandInputsOrOutputsOnNativeInfer) {
  v1::InferRequest inputs;
  inputs.set_model("mlp");
  for (int i = 0; i < kManyTensors; ++i) {
    AddInput(inputs, absl::StrCat("in", i), {1, kHostileMlpIn}, MlpRow(), TensorForm::kRaw);
  }
  ExpectRefused(Infer(*daemon_->stub, inputs, nullptr), grpc::StatusCode::INVALID_ARGUMENT,
                {"model 'mlp' has no input 'in0'",
                 "(its inputs: 'input'; the request gives 100000 inputs for 1)"},
                "100,000 inputs");

  v1::InferRequest same;
  same.set_model("mlp");
  for (int i = 0; i < kManyTensors; ++i) {
    AddInput(same, "input", {1, kHostileMlpIn}, MlpRow(), TensorForm::kRaw);
  }
  ExpectRefused(Infer(*daemon_->stub, same, nullptr), grpc::StatusCode::INVALID_ARGUMENT,
                {"model 'mlp' input 'input' is given more than once"},
                "100,000 copies of the input");

  v1::InferRequest outputs;
  outputs.set_model("mlp");
  AddInput(outputs, "input", {1, kHostileMlpIn}, MlpRow(), TensorForm::kFloat);
  for (int i = 0; i < kManyTensors; ++i) outputs.add_outputs("output");
  ExpectRefused(Infer(*daemon_->stub, outputs, nullptr), grpc::StatusCode::INVALID_ARGUMENT,
                {"model 'mlp'", "output 'output' is asked for more than once"}, "100,000 outputs");
  ExpectStillServing();
}

// 2. The same on v2 ModelInfer.
TEST_F(HostileInputE2ETest, AHundredThousandInputsOrOutputsOnV2ModelInfer) {
  ModelInferRequest inputs;
  inputs.set_model_name("mlp");
  for (int i = 0; i < kManyTensors; ++i) {
    auto* input = inputs.add_inputs();
    input->set_name(absl::StrCat("in", i));
    input->set_datatype("FP32");
    input->add_shape(1);
    input->add_shape(kHostileMlpIn);
    inputs.add_raw_input_contents(std::string(kHostileMlpIn * sizeof(float), '\0'));
  }
  ExpectRefused(ModelInfer(*v2_, inputs), grpc::StatusCode::INVALID_ARGUMENT,
                {"model 'mlp' has no input 'in0'",
                 "(its inputs: 'input'; the request gives 100000 inputs for 1)"},
                "100,000 inputs");

  ModelInferRequest outputs;
  outputs.set_model_name("mlp");
  auto* input = outputs.add_inputs();
  input->set_name("input");
  input->set_datatype("FP32");
  input->add_shape(1);
  input->add_shape(kHostileMlpIn);
  for (float v : MlpRow()) input->mutable_contents()->add_fp32_contents(v);
  for (int i = 0; i < kManyTensors; ++i) outputs.add_outputs()->set_name(absl::StrCat("out", i));
  ExpectRefused(ModelInfer(*v2_, outputs), grpc::StatusCode::INVALID_ARGUMENT,
                {"model 'mlp' has no output 'out0'", "its outputs: 'output'"}, "100,000 outputs");
  ExpectStillServing();
}

// 2. The same in a REST JSON body.
TEST_F(HostileInputE2ETest, AHundredThousandInputsOrOutputsOnRestV2) {
  std::string inputs = R"({"inputs":[)";
  for (int i = 0; i < kManyTensors; ++i) {
    absl::StrAppend(&inputs, i == 0 ? "" : ",", R"({"name":"input","datatype":"FP32",)",
                    R"("shape":[1,8],"data":[0,1,2,3,4,5,6,7]})");
  }
  inputs += "]}";
  HttpResult result = Post("/v2/models/mlp/infer", inputs);
  EXPECT_EQ(result.status, 400) << result.body.substr(0, 300) << result.error;
  EXPECT_THAT(result.ErrorField(), HasSubstr("model 'mlp' input 'input' is given more than once"));

  std::string outputs =
      R"({"inputs":[{"name":"input","datatype":"FP32","shape":[1,8],"data":[0,1,2,3,4,5,6,7]}],)"
      R"("outputs":[)";
  for (int i = 0; i < kManyTensors; ++i) {
    absl::StrAppend(&outputs, i == 0 ? "" : ",", R"({"name":"output"})");
  }
  outputs += "]}";
  result = Post("/v2/models/mlp/infer", outputs);
  EXPECT_EQ(result.status, 400) << result.body.substr(0, 300) << result.error;
  EXPECT_THAT(result.ErrorField(),
              HasSubstr("model 'mlp': output 'output' is asked for more than once"));
  ExpectStillServing();
}

}  // namespace
}  // namespace hostile_input_e2e_test
}  // namespace neuronserve::testing
