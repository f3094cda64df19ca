// The errors a client of the Open Inference Protocol can make, each with its code and a message
// naming the tensor, in a unary ModelInfer and inside a ModelStreamInfer stream.
#include "absl/strings/str_cat.h"
#include "client/simmodel/identity_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "tests/e2e/dtype_samples.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/v2_infer_client.h"

namespace neuronserve::testing {
namespace v2_infer_e2e_test {
namespace {

struct ErrorCase {
  std::string what;
  ModelInferRequest request;
  grpc::StatusCode code;
  std::vector<std::string> message;
};

std::vector<ErrorCase> ErrorCases() {
  std::vector<ErrorCase> cases;
  auto add = [&](std::string what, ModelInferRequest request, grpc::StatusCode code,
                 std::vector<std::string> message) {
    cases.push_back({std::move(what), std::move(request), code, std::move(message)});
  };
  const grpc::StatusCode kInvalid = grpc::StatusCode::INVALID_ARGUMENT;
  auto int64_request = [](const std::string& datatype) {
    ModelInferRequest request = IdentityRequest(DataType::kInt64, datatype);
    for (int i = 0; i < 6; ++i) request.mutable_inputs(0)->mutable_contents()->add_int64_contents(i);
    return request;
  };
  add("FP64", int64_request("FP64"), kInvalid,
      {"model 'id_int64' input 'input' is INT64, but the request gives FP64",
       "no NeuronCore tensor holds"});
  add("BYTES", int64_request("BYTES"), kInvalid,
      {"model 'id_int64' input 'input' is INT64, but the request gives BYTES"});
  add("another datatype", int64_request("INT32"), kInvalid,
      {"model 'id_int64' input 'input' is INT64, but the request gives INT32"});
  add("no datatype", int64_request(""), kInvalid,
      {"model 'id_int64' input 'input' is INT64, but the request gives no datatype"});
  {
    ModelInferRequest request = IdentityRequest(DataType::kInt64, "INT64");
    for (int i = 0; i < 6; ++i) request.mutable_inputs(0)->mutable_contents()->add_int_contents(i);
    add("a contents field of another datatype", request, kInvalid,
        {"model 'id_int64' input 'input' is INT64: int_contents cannot carry it",
         "int64_contents (6 values) or raw_input_contents (48 bytes)"});
  }
  {
    ModelInferRequest request = IdentityRequest(DataType::kFloat16, "FP16");
    for (int i = 0; i < 6; ++i) request.mutable_inputs(0)->mutable_contents()->add_fp32_contents(i);
    add("FP16 in contents", request, kInvalid,
        {"model 'id_float16' input 'input' is FP16, which travels only in raw_input_contents "
         "(12 bytes)"});
  }
  {
    ModelInferRequest request = IdentityRequest(DataType::kUInt8, "UINT8");
    for (int i = 0; i < 6; ++i) request.mutable_inputs(0)->mutable_contents()->add_bool_contents(true);
    add("bool_contents for a UINT8 input", request, kInvalid,
        {"model 'id_uint8' input 'input' is UINT8: bool_contents carries BOOL inputs only"});
  }
  {
    ModelInferRequest request = IdentityRequest(DataType::kUInt8, "BOOL");
    for (int i = 0; i < 6; ++i) request.mutable_inputs(0)->mutable_contents()->add_uint_contents(1);
    add("BOOL in uint_contents", request, kInvalid,
        {"model 'id_uint8' input 'input' is BOOL: send its values in bool_contents, not "
         "uint_contents"});
  }
  {
    ModelInferRequest request = IdentityRequest(DataType::kFloat32, "BOOL");
    request.add_raw_input_contents(std::string(6, '\1'));
    add("BOOL for a 4-byte tensor", request, kInvalid,
        {"model 'id_float32' input 'input' is FP32, but the request gives BOOL"});
  }
  {
    ModelInferRequest request = int64_request("INT64");
    request.mutable_inputs(0)->set_shape(1, 2);
    add("the wrong shape", request, kInvalid,
        {"model 'id_int64' input 'input': expected shape [2,3], got [2,2]"});
  }
  {
    ModelInferRequest request = int64_request("INT64");
    request.mutable_inputs(0)->clear_shape();
    add("no shape", request, kInvalid, {"model 'id_int64' input 'input': expected shape [2,3], got []"});
  }
  {
    ModelInferRequest request = int64_request("INT64");
    request.mutable_inputs(0)->set_shape(0, -2);
    add("a negative dimension", request, kInvalid,
        {"model 'id_int64' input 'input': shape dimension -2 is not a size"});
  }
  {
    ModelInferRequest request = IdentityRequest(DataType::kInt64, "INT64");
    request.add_raw_input_contents(std::string(47, '\0'));
    add("raw bytes of the wrong size", request, kInvalid,
        {"model 'id_int64' input 'input': expected 48 bytes of raw_input_contents",
         "got 47 bytes"});
  }
  {
    ModelInferRequest request = int64_request("INT64");
    request.add_raw_input_contents(std::string(48, '\0'));
    add("raw and contents together", request, kInvalid,
        {"contents field must not be specified when using raw_input_contents for 'input' for "
         "model 'id_int64': send every input's values one way"});
  }
  {
    // Each input's contents are checked before the raw entries are counted, as Triton checks
    // them: the count this mistake made wrong is not what the client reads.
    ModelInferRequest request = int64_request("INT64");
    request.add_raw_input_contents(std::string(48, '\0'));
    request.add_raw_input_contents(std::string(48, '\0'));
    add("contents beside more raw entries than inputs", request, kInvalid,
        {"contents field must not be specified when using raw_input_contents for 'input' for "
         "model 'id_int64'"});
  }
  {
    ModelInferRequest request = IdentityRequest(DataType::kInt64, "INT64");
    request.add_raw_input_contents(std::string(48, '\0'));
    request.add_raw_input_contents(std::string(48, '\0'));
    add("more raw entries than inputs", request, kInvalid,
        {"model 'id_int64': raw_input_contents has 2 entries for 1 inputs"});
  }
  {
    ModelInferRequest request = IdentityRequest(DataType::kInt64, "INT64");
    add("no values", request, kInvalid,
        {"model 'id_int64' input 'input' (shape [2,3] INT64): carries no values; send "
         "int64_contents (6 values) or raw_input_contents (48 bytes)"});
  }
  {
    ModelInferRequest request = int64_request("INT64");
    request.mutable_inputs(0)->set_name("x");
    add("an unknown input", request, kInvalid,
        {"model 'id_int64' has no input 'x' (its inputs: 'input')"});
  }
  {
    ModelInferRequest request = int64_request("INT64");
    request.add_outputs()->set_name("y");
    add("an unknown output", request, kInvalid,
        {"model 'id_int64' has no output 'y' (its outputs: 'output')"});
  }
  {
    ModelInferRequest request = int64_request("INT64");
    (*request.mutable_parameters())["timeout"].set_string_param("soon");
    add("a timeout that is not a number", request, kInvalid,
        {"model 'id_int64': request parameter 'timeout' must be an int64 number of microseconds"});
  }
  {
    ModelInferRequest request = int64_request("INT64");
    request.set_model_version("7");
    add("a version that is not serving", request, grpc::StatusCode::FAILED_PRECONDITION,
        {"Request for unknown model: 'id_int64' version 7 is not found"});
  }
  {
    ModelInferRequest request = int64_request("INT64");
    request.set_model_version("wrong_specification");
    add("a version string that is neither a number nor the serving label", request, kInvalid,
        {"failed to get model version from specified version string 'wrong_specification': it "
         "is neither a version number nor the label of the version of model 'id_int64' that "
         "serves (version 1 (no label) is serving)"});
  }
  {
    ModelInferRequest request = int64_request("INT64");
    request.set_model_name("nope");
    add("an unknown model", request, grpc::StatusCode::NOT_FOUND, {"nope"});
  }
  {
    ModelInferRequest request = int64_request("INT64");
    request.clear_model_name();
    add("no model", request, kInvalid, {"ModelInferRequest.model_name is empty"});
  }
  return cases;
}

TEST(V2InferE2ETest, EveryErrorHasItsCodeAndAMessageNamingTheTensorUnaryAndInsideTheStream) {
  START_DAEMON(daemon, SimDaemonArgs());
  for (DataType dtype : {DataType::kInt64, DataType::kFloat16, DataType::kUInt8,
                         DataType::kFloat32}) {
    LoadIdentity(*daemon->stub, dtype, {2, 3});
  }
  auto v2 = V2Stub(*daemon);
  std::vector<ErrorCase> cases = ErrorCases();
  std::vector<ModelInferRequest> streamed;
  for (size_t i = 0; i < cases.size(); ++i) {
    const ErrorCase& c = cases[i];
    SCOPED_TRACE(c.what);
    grpc::Status status = ModelInfer(*v2, c.request, nullptr);
    EXPECT_EQ(status.error_code(), c.code) << status.error_message();
    for (const std::string& part : c.message) EXPECT_THAT(status.error_message(), HasSubstr(part));
    streamed.push_back(c.request);
    streamed.back().set_id(absl::StrCat("e", i));
    // A good request between the bad ones: the stream goes on after each error.
    ModelInferRequest good = IdentityRequest(DataType::kInt64, "INT64");
    for (int v = 0; v < 6; ++v) good.mutable_inputs(0)->mutable_contents()->add_int64_contents(v);
    good.set_id(absl::StrCat("g", i));
    streamed.push_back(good);
  }
  grpc::Status status;
  std::vector<ModelStreamInferResponse> answers = RunV2Stream(*v2, streamed, &status);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(answers.size(), streamed.size());
  int errors = 0;
  int good = 0;
  for (const ModelStreamInferResponse& answer : answers) {
    const std::string& id = answer.infer_response().id();
    if (id[0] == 'g') {
      EXPECT_EQ(answer.error_message(), "") << id;
      EXPECT_THAT(answer.infer_response().raw_output_contents(),
                  ElementsAre(BytesOf(std::vector<int64_t>{0, 1, 2, 3, 4, 5})));
      ++good;
      continue;
    }
    const ErrorCase& c = cases[std::stoul(id.substr(1))];
    SCOPED_TRACE(c.what);
    EXPECT_EQ(answer.infer_response().outputs_size(), 0);
    for (const std::string& part : c.message) EXPECT_THAT(answer.error_message(), HasSubstr(part));
    ++errors;
  }
  EXPECT_EQ(errors, static_cast<int>(cases.size()));
  EXPECT_EQ(good, static_cast<int>(cases.size()));
}

}  // namespace
}  // namespace v2_infer_e2e_test
}  // namespace neuronserve::testing
