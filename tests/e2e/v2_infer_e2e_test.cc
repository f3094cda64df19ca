// The Open Inference Protocol's ModelInfer and ModelStreamInfer through the real daemon, with
// stubs generated from proto/inference: the MLP and the classifier against references computed
// here, identity models of every dtype in every form the protocol has, the errors a client can
// make (each with its code and a message naming the tensor), errors inside a stream, the queue
// timeout parameter, and one request form behind both front ends (shared counts and access log).
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "client/simmodel/classifier_model.h"
#include "client/simmodel/identity_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "tests/e2e/dtype_samples.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/temp_dir.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace v2_infer_e2e_test {
namespace {

using inference::GRPCInferenceService;
using inference::InferTensorContents;
using inference::ModelInferRequest;
using inference::ModelInferResponse;
using inference::ModelStreamInferResponse;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

std::unique_ptr<GRPCInferenceService::Stub> V2Stub(const RunningDaemon& daemon) {
  return GRPCInferenceService::NewStub(daemon.channel);
}

grpc::Status ModelInfer(GRPCInferenceService::Stub& stub, const ModelInferRequest& request,
                        ModelInferResponse* response) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  ModelInferResponse ignored;
  return stub.ModelInfer(&context, request, response != nullptr ? response : &ignored);
}

// Sends every request on one ModelStreamInfer stream, then reads every answer.
std::vector<ModelStreamInferResponse> RunV2Stream(GRPCInferenceService::Stub& stub,
                                                  const std::vector<ModelInferRequest>& requests,
                                                  grpc::Status* status) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  auto stream = stub.ModelStreamInfer(&context);
  std::vector<ModelStreamInferResponse> responses;
  std::thread reader([&] {
    ModelStreamInferResponse response;
    while (stream->Read(&response)) responses.push_back(response);
  });
  for (const ModelInferRequest& request : requests) {
    if (!stream->Write(request)) break;
  }
  stream->WritesDone();
  reader.join();
  *status = stream->Finish();
  return responses;
}

void AddRawInput(ModelInferRequest& request, const std::string& name, const std::string& datatype,
                 std::vector<int64_t> shape, std::string bytes) {
  auto* input = request.add_inputs();
  input->set_name(name);
  input->set_datatype(datatype);
  for (int64_t d : shape) input->add_shape(d);
  request.add_raw_input_contents(std::move(bytes));
}

template <typename T>
std::string BytesOf(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

template <typename T>
std::vector<T> ValuesOf(const std::string& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

// ---- The MLP and the classifier ----

constexpr int kMlpIn = 8;
constexpr int kMlpOut = 4;

ModelInferRequest MlpRequest(const std::vector<float>& x, bool raw, const std::string& id) {
  ModelInferRequest request;
  request.set_model_name("mlp");
  request.set_id(id);
  if (raw) {
    AddRawInput(request, "input", "FP32", {1, kMlpIn}, BytesOf(x));
  } else {
    auto* input = request.add_inputs();
    input->set_name("input");
    input->set_datatype("FP32");
    input->add_shape(1);
    input->add_shape(kMlpIn);
    input->mutable_contents()->mutable_fp32_contents()->Add(x.begin(), x.end());
  }
  return request;
}

// The MLP's answer after checking its metadata: raw, whichever form the request took (as Triton
// answers).
std::vector<float> MlpOutput(const ModelInferResponse& response) {
  EXPECT_EQ(response.model_name(), "mlp");
  EXPECT_EQ(response.model_version(), "1");
  if (response.outputs_size() != 1) {
    ADD_FAILURE() << "outputs: " << response.outputs_size();
    return {};
  }
  const auto& output = response.outputs(0);
  EXPECT_EQ(output.name(), "output");
  EXPECT_EQ(output.datatype(), "FP32");
  EXPECT_THAT(output.shape(), ElementsAre(1, kMlpOut));
  EXPECT_EQ(response.raw_output_contents_size(), 1);
  EXPECT_FALSE(output.has_contents());
  return response.raw_output_contents_size() == 1 ? ValuesOf<float>(response.raw_output_contents(0))
                                                  : std::vector<float>{};
}

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::abs(want[i])) << what << " [" << i << "]";
  }
}

TEST(V2InferE2ETest, TheMlpMatchesAReferenceRawAndTypedInAndRawOutUnaryAndStreamed) {
  START_DAEMON(daemon, SimDaemonArgs());
  const simmodel::SimModel mlp = SmallMlp(11);
  ASSERT_TRUE(Upload(*daemon->stub, Config("mlp", "1"), EncodeNeff(mlp)).status.ok());
  auto v2 = V2Stub(*daemon);
  std::mt19937 random(5);
  std::uniform_real_distribution<float> value(-2, 2);
  std::map<std::string, std::vector<float>> sent;
  std::vector<ModelInferRequest> streamed;
  for (int i = 0; i < 40; ++i) {
    std::vector<float> x(kMlpIn);
    for (float& v : x) v = value(random);
    const bool raw = i % 2 == 0;
    const std::string id = absl::StrCat("u", i);
    ModelInferResponse response;
    grpc::Status status = ModelInfer(*v2, MlpRequest(x, raw, id), &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.id(), id);
    ExpectNear(MlpOutput(response), MlpReference(mlp, x, 2), id);
    const std::string stream_id = absl::StrCat("s", i);
    sent[stream_id] = x;
    streamed.push_back(MlpRequest(x, raw, stream_id));
  }
  grpc::Status status;
  std::vector<ModelStreamInferResponse> answers = RunV2Stream(*v2, streamed, &status);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(answers.size(), streamed.size());
  for (const ModelStreamInferResponse& answer : answers) {
    EXPECT_EQ(answer.error_message(), "");
    const std::string& id = answer.infer_response().id();
    ASSERT_EQ(sent.count(id), 1u) << id;
    ExpectNear(MlpOutput(answer.infer_response()), MlpReference(mlp, sent[id], 2), id);
  }
}

TEST(V2InferE2ETest, TheClassifierMatchesAReferenceAndAnswersRawWhateverTheInputsForm) {
  START_DAEMON(daemon, SimDaemonArgs());
  const simmodel::SimModel model = ExampleClassifier();
  ASSERT_TRUE(Upload(*daemon->stub, Config("classifier"), EncodeNeff(model)).status.ok());
  auto v2 = V2Stub(*daemon);
  std::mt19937 random(3);
  std::uniform_int_distribution<int64_t> token(0, kClassifierVocab - 1);
  for (int i = 0; i < 20; ++i) {
    std::vector<int64_t> ids(kClassifierSequence), mask(kClassifierSequence);
    const uint32_t kept = 1 + i % kClassifierSequence;
    for (uint32_t s = 0; s < kClassifierSequence; ++s) {
      ids[s] = s < kept ? token(random) : 0;
      mask[s] = s < kept ? 1 : 0;
    }
    const std::vector<double> want = ClassifierReference(model, ids, mask);
    const bool raw = i % 2 == 0;
    ModelInferRequest request;
    request.set_model_name("classifier");
    for (const auto& [name, values] : {std::pair{simmodel::kClassifierIds, &ids},
                                       std::pair{simmodel::kClassifierMask, &mask}}) {
      if (raw) {
        AddRawInput(request, name, "INT64", {1, kClassifierSequence}, BytesOf(*values));
        continue;
      }
      auto* input = request.add_inputs();
      input->set_name(name);
      input->set_datatype("INT64");
      input->add_shape(1);
      input->add_shape(kClassifierSequence);
      input->mutable_contents()->mutable_int64_contents()->Add(values->begin(), values->end());
    }
    // Both outputs, raw.
    ModelInferResponse response;
    grpc::Status status = ModelInfer(*v2, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(response.outputs_size(), 2);
    EXPECT_EQ(response.outputs(0).datatype(), "FP32");
    EXPECT_EQ(response.outputs(1).datatype(), "FP16");
    ASSERT_EQ(response.raw_output_contents_size(), 2);
    EXPECT_FALSE(response.outputs(0).has_contents());
    const std::vector<float> logits = ValuesOf<float>(response.raw_output_contents(0));
    ExpectNear(logits, want, absl::StrCat("request ", i));
    EXPECT_EQ(response.raw_output_contents(1).size(), 2u * kClassifierClasses);

    // The float32 logits alone, which have a typed field: raw all the same, as tritonclient's
    // InferResult.as_numpy reads them.
    request.add_outputs()->set_name(simmodel::kClassifierLogits);
    status = ModelInfer(*v2, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(response.outputs_size(), 1);
    EXPECT_EQ(response.outputs(0).name(), simmodel::kClassifierLogits);
    EXPECT_FALSE(response.outputs(0).has_contents());
    ASSERT_EQ(response.raw_output_contents_size(), 1);
    ExpectNear(ValuesOf<float>(response.raw_output_contents(0)), want,
               raw ? "raw subset" : "typed-in subset");
  }
}

// ---- Every dtype ----

// The datatype names the Open Inference Protocol gives each dtype (fp8s and fp32r have none:
// their NRT names upper-cased), written out here rather than taken from the daemon's table.
std::string ExpectedDatatype(DataType dtype) {
  static const std::map<DataType, std::string> kNames = {
      {DataType::kFloat32, "FP32"},  {DataType::kFloat16, "FP16"},   {DataType::kBFloat16, "BF16"},
      {DataType::kFp32R, "FP32R"},   {DataType::kFp8E3, "FP8_E3"},   {DataType::kFp8E4, "FP8_E4"},
      {DataType::kFp8E5, "FP8_E5"},  {DataType::kInt8, "INT8"},      {DataType::kUInt8, "UINT8"},
      {DataType::kInt16, "INT16"},   {DataType::kUInt16, "UINT16"},  {DataType::kInt32, "INT32"},
      {DataType::kUInt32, "UINT32"}, {DataType::kInt64, "INT64"},    {DataType::kUInt64, "UINT64"}};
  return kNames.at(dtype);
}

enum class Contents { kNone, kFp32, kInt, kUInt, kInt64, kUInt64 };

// The InferTensorContents field of a dtype; kNone for those that travel only raw.
Contents ContentsOf(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32: return Contents::kFp32;
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32: return Contents::kInt;
    case DataType::kUInt8:
    case DataType::kUInt16:
    case DataType::kUInt32: return Contents::kUInt;
    case DataType::kInt64: return Contents::kInt64;
    case DataType::kUInt64: return Contents::kUInt64;
    default: return Contents::kNone;
  }
}

void SetContents(InferTensorContents& contents, Contents field, const std::vector<double>& values) {
  for (double v : values) {
    switch (field) {
      case Contents::kFp32: contents.add_fp32_contents(static_cast<float>(v)); break;
      case Contents::kInt: contents.add_int_contents(static_cast<int32_t>(v)); break;
      case Contents::kUInt: contents.add_uint_contents(static_cast<uint32_t>(v)); break;
      case Contents::kInt64: contents.add_int64_contents(static_cast<int64_t>(v)); break;
      case Contents::kUInt64: contents.add_uint64_contents(static_cast<uint64_t>(v)); break;
      case Contents::kNone: break;
    }
  }
}

ModelInferRequest IdentityRequest(DataType dtype, const std::string& datatype) {
  ModelInferRequest request;
  request.set_model_name(ModelNameFor(dtype));
  auto* input = request.add_inputs();
  input->set_name("input");
  input->set_datatype(datatype);
  input->add_shape(2);
  input->add_shape(3);
  return request;
}

TEST(V2InferE2ETest, IdentityModelsOfEveryDtypeRoundTripInEveryForm) {
  START_DAEMON(daemon, SimDaemonArgs());
  for (DataType dtype : kEveryDtype) LoadIdentity(*daemon->stub, dtype, {2, 3});
  auto v2 = V2Stub(*daemon);
  // Each case once unary and once on a stream.
  struct Sent {
    ModelInferRequest request;
    std::function<void(const ModelInferResponse&)> check;
  };
  std::vector<Sent> cases;
  for (DataType dtype : kEveryDtype) {
    const std::string datatype = ExpectedDatatype(dtype);
    const std::vector<double> values = SampleValues(dtype);
    const std::string bytes = ElementBytes(dtype, values);
    // Raw in, raw out, the bytes unchanged.
    Sent raw{IdentityRequest(dtype, datatype), nullptr};
    raw.request.add_raw_input_contents(bytes);
    raw.check = [=](const ModelInferResponse& response) {
      ASSERT_EQ(response.outputs_size(), 1) << datatype;
      EXPECT_EQ(response.outputs(0).datatype(), datatype);
      EXPECT_THAT(response.outputs(0).shape(), ElementsAre(2, 3));
      EXPECT_FALSE(response.outputs(0).has_contents()) << datatype;
      ASSERT_EQ(response.raw_output_contents_size(), 1) << datatype;
      EXPECT_EQ(response.raw_output_contents(0), bytes) << datatype;
    };
    cases.push_back(std::move(raw));
    // Typed in, raw out: the same bytes as the raw request's answer (as Triton answers).
    const Contents field = ContentsOf(dtype);
    if (field != Contents::kNone) {
      Sent typed{IdentityRequest(dtype, datatype), nullptr};
      SetContents(*typed.request.mutable_inputs(0)->mutable_contents(), field, values);
      typed.check = [=](const ModelInferResponse& response) {
        ASSERT_EQ(response.outputs_size(), 1) << datatype;
        EXPECT_FALSE(response.outputs(0).has_contents()) << datatype;
        ASSERT_EQ(response.raw_output_contents_size(), 1) << datatype;
        EXPECT_EQ(response.raw_output_contents(0), bytes) << datatype;
      };
      cases.push_back(std::move(typed));
    }
  }
  // BOOL into the 1-byte integer tensors, in bool_contents and raw.
  for (DataType dtype : {DataType::kInt8, DataType::kUInt8}) {
    const std::vector<bool> bools = {true, false, true, true, false, true};
    Sent typed{IdentityRequest(dtype, "BOOL"), nullptr};
    for (bool b : bools) typed.request.mutable_inputs(0)->mutable_contents()->add_bool_contents(b);
    typed.check = [=](const ModelInferResponse& response) {
      ASSERT_EQ(response.outputs_size(), 1);
      EXPECT_EQ(response.outputs(0).datatype(), ExpectedDatatype(dtype));
      ASSERT_EQ(response.raw_output_contents_size(), 1);
      EXPECT_EQ(response.raw_output_contents(0), std::string("\1\0\1\1\0\1", 6));
    };
    cases.push_back(std::move(typed));
    Sent raw{IdentityRequest(dtype, "BOOL"), nullptr};
    raw.request.add_raw_input_contents(std::string("\1\0\1\1\0\1", 6));
    raw.check = [=](const ModelInferResponse& response) {
      ASSERT_EQ(response.raw_output_contents_size(), 1);
      EXPECT_EQ(response.raw_output_contents(0), std::string("\1\0\1\1\0\1", 6));
    };
    cases.push_back(std::move(raw));
  }
  std::vector<ModelInferRequest> streamed;
  for (size_t i = 0; i < cases.size(); ++i) {
    cases[i].request.set_id(absl::StrCat(i));
    ModelInferResponse response;
    grpc::Status status = ModelInfer(*v2, cases[i].request, &response);
    ASSERT_TRUE(status.ok()) << cases[i].request.ShortDebugString() << ": "
                             << status.error_message();
    EXPECT_EQ(response.id(), absl::StrCat(i));
    cases[i].check(response);
    streamed.push_back(cases[i].request);
  }
  grpc::Status status;
  std::vector<ModelStreamInferResponse> answers = RunV2Stream(*v2, streamed, &status);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(answers.size(), cases.size());
  for (const ModelStreamInferResponse& answer : answers) {
    EXPECT_EQ(answer.error_message(), "");
    cases[std::stoul(answer.infer_response().id())].check(answer.infer_response());
  }
  // 15 raw, 9 typed (FP32 and the eight integers), BOOL typed and raw into INT8 and UINT8; every
  // answer raw.
  EXPECT_EQ(cases.size(), 15u + 9u + 4u);
}

// ---- Errors ----

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

TEST(V2InferE2ETest, TheTimeoutParameterBoundsTheTimeInTheQueue) {
  START_DAEMON(daemon,
               SimDaemonArgs({"--http-listen=127.0.0.1:0"}, {{"NRTSIM_CORES", "1"}}));
  // 300 ms per execution on one core: the second request waits behind the first, in the queue.
  // Unpipelined: a pipelined replica would take it off the queue at once, to write its inputs
  // while the first executes, and the timeout bounds the time in the queue only.
  v1::ModelConfig config = Config("slow");
  config.set_pipeline_depth(1);
  ASSERT_TRUE(Upload(*daemon->stub, config, EncodeNeff(IdentityModel({4}, 300000))).status.ok());
  auto v2 = V2Stub(*daemon);
  auto request = [](int64_t timeout_us) {
    ModelInferRequest r;
    r.set_model_name("slow");
    AddRawInput(r, "input", "FP32", {4}, std::string(16, '\0'));
    if (timeout_us >= 0) (*r.mutable_parameters())["timeout"].set_int64_param(timeout_us);
    (*r.mutable_parameters())["unknown_parameter"].set_bool_param(true);  // ignored
    return r;
  };
  grpc::Status first;
  std::thread blocker([&] { first = ModelInfer(*v2, request(-1), nullptr); });
  // Wait until the first is in the daemon (queued or on the device).
  const bool in_flight = WaitUntilInFlight(*daemon->process, 1);
  if (!in_flight) blocker.join();
  ASSERT_TRUE(in_flight);
  const absl::Time sent = absl::Now();
  grpc::Status late = ModelInfer(*v2, request(1000), nullptr);
  EXPECT_EQ(late.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << late.error_message();
  // Answered without running: it never waited out an execution of its own.
  EXPECT_LT(absl::Now() - sent, absl::Seconds(5));
  blocker.join();
  EXPECT_TRUE(first.ok()) << first.error_message();
  // With a timeout of 0 (none) or a long one, it runs.
  EXPECT_TRUE(ModelInfer(*v2, request(0), nullptr).ok());
  EXPECT_TRUE(ModelInfer(*v2, request(10000000), nullptr).ok());
}

TEST(V2InferE2ETest, BothFrontEndsShareTheModelsCountsAndTheAccessLog) {
  TempDir dir;
  const std::string access_log = dir.Join("access.log");
  START_DAEMON(daemon,
               SimDaemonArgs({"--access-log=" + access_log, "--http-listen=127.0.0.1:0"}));
  LoadIdentity(*daemon->stub, DataType::kInt64, {2, 3});
  auto v2 = V2Stub(*daemon);
  ModelInferRequest good = IdentityRequest(DataType::kInt64, "INT64");
  for (int v = 0; v < 6; ++v) good.mutable_inputs(0)->mutable_contents()->add_int64_contents(v);
  good.set_id("v2-good");
  ModelInferRequest bad = IdentityRequest(DataType::kInt64, "FP64");
  bad.set_id("v2-bad");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(ModelInfer(*v2, good, nullptr).ok());
  EXPECT_EQ(ModelInfer(*v2, bad, nullptr).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::InferRequest native;
  native.set_model("id_int64");
  native.set_id("native-good");
  auto* input = native.add_inputs();
  input->set_name("input");
  for (int v = 0; v < 6; ++v) input->add_int64_data(v);
  ASSERT_TRUE(Infer(*daemon->stub, native, nullptr).ok());

  v1::ModelStatus model;
  ASSERT_TRUE(GetModel(*daemon->stub, "id_int64", &model).ok());
  EXPECT_EQ(model.requests().succeeded(), 4u);
  EXPECT_EQ(model.requests().failed(), 1u);
  // ModelStatistics counts the same requests, by outcome, whichever front end carried them.
  grpc::ClientContext context;
  inference::ModelStatisticsRequest stats_request;
  stats_request.set_name("id_int64");
  inference::ModelStatisticsResponse stats;
  ASSERT_TRUE(v2->ModelStatistics(&context, stats_request, &stats).ok());
  ASSERT_EQ(stats.model_stats_size(), 1);
  const inference::InferStatistics& infer = stats.model_stats(0).inference_stats();
  EXPECT_EQ(infer.success().count(), 4u);
  EXPECT_EQ(infer.fail().count(), 1u);
  EXPECT_EQ(infer.queue().count(), 4u);
  EXPECT_EQ(infer.compute_infer().count(), 4u);
  EXPECT_EQ(stats.model_stats(0).inference_count(), 4u);
  EXPECT_EQ(stats.model_stats(0).execution_count(), 4u);
  // Every call has its line, under the RPC that carried it. A line is written after its answer
  // is sent, by the log's own thread, so the lines of calls answered one after another may come
  // in another order: polled until all five are there (or the deadline).
  std::string log;
  std::map<std::string, int> by_method;
  WaitUntil([&] {
    std::ifstream file(access_log);
    std::stringstream text;
    text << file.rdbuf();
    log = text.str();
    by_method.clear();
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("id_int64") == std::string::npos) continue;
      for (const char* method : {"method=ModelInfer ", "method=Infer "}) {
        if (line.find(method) != std::string::npos) ++by_method[method];
      }
    }
    return by_method["method=ModelInfer "] >= 4 && by_method["method=Infer "] >= 1;
  }, absl::Seconds(10));
  EXPECT_EQ(by_method["method=ModelInfer "], 4) << log;
  EXPECT_EQ(by_method["method=Infer "], 1) << log;
  // The same counts in the metrics, by model and code, and by front end.
  const std::optional<std::string> http = WaitForLog(*daemon->process, "HTTP endpoint on ([^ ]+)");
  ASSERT_TRUE(http.has_value());
  const std::string metrics = HttpGet("http://" + *http + "/metrics").body;
  EXPECT_THAT(metrics, HasSubstr("neuronserve_requests_by_protocol_total{protocol=\"v2\"} 4\n"));
  EXPECT_THAT(metrics,
              HasSubstr("neuronserve_requests_by_protocol_total{protocol=\"native\"} 1\n"));
  EXPECT_THAT(metrics, HasSubstr("neuronserve_requests_total{model=\"id_int64\",version=\"\","
                                 "code=\"OK\"} 4\n"));
}

}  // namespace
}  // namespace v2_infer_e2e_test
}  // namespace neuronserve::testing
