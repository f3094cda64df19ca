// The Open Inference Protocol's ModelInfer and ModelStreamInfer on identity models of every dtype,
// in every form the protocol has (raw contents, typed contents, raw outputs).
#include <map>

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

}  // namespace
}  // namespace v2_infer_e2e_test
}  // namespace neuronserve::testing
