// Messages that do not parse, sent as raw bytes (grpc::GenericStub) to every method of both
// services through the real daemon (issue 20, item 3): a unary call is INVALID_ARGUMENT naming
// the RPC (never gRPC's bare UNIMPLEMENTED), a stream answers the bad message in the stream and
// goes on, LoadModel ends naming the message's position and gives its upload slot back. Then
// seeded random bytes to every method: no answer is UNIMPLEMENTED, every error has a message, and
// the daemon still serves (health SERVING, the MLP still correct).
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "grpc/health/v1/health.pb.h"
#include "grpcpp/client_context.h"
#include "grpcpp/completion_queue.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/slice.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.pb.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/support/health_check.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace malformed_message_e2e_test {
namespace {

using ::testing::HasSubstr;

// Field 1, length-delimited, whose length is a varint that never ends within ten bytes: no
// message type parses it (an unknown field still needs its length).
const std::string kUnparsable("\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 11);

// The methods of both services (the daemon's list: server/grpc/call_guard.h), by path and by
// the name the errors use.
struct Method {
  std::string_view path;
  std::string_view name;
};
constexpr std::string_view kNative = "/neuronserve.v1.NeuronServing/";
constexpr std::string_view kV2 = "/inference.GRPCInferenceService/";
std::string Path(std::string_view service, std::string_view name) {
  return absl::StrCat(std::string(service), std::string(name));
}
constexpr Method kUnaryMethods[] = {
    {kNative, "Enumerate"},   {kNative, "GetModel"},        {kNative, "ListModels"},
    {kNative, "Infer"},       {kNative, "UnloadModel"},     {kV2, "ServerLive"},
    {kV2, "ServerReady"},     {kV2, "ModelReady"},          {kV2, "ServerMetadata"},
    {kV2, "ModelMetadata"},   {kV2, "ModelInfer"},          {kV2, "ModelStatistics"},
    {kV2, "RepositoryIndex"}, {kV2, "RepositoryModelLoad"}, {kV2, "RepositoryModelUnload"},
};
const std::string kInferStream = Path(kNative, "InferStream");
const std::string kLoadModel = Path(kNative, "LoadModel");
const std::string kModelStreamInfer = Path(kV2, "ModelStreamInfer");

// One call of `method` with raw messages, each operation awaited in turn on the call's own
// completion queue. Works for every kind of method: a unary one is a stream of one message.
class RawCall {
 public:
  RawCall(grpc::GenericStub& stub, std::string_view method) {
    context_.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(kRpcDeadlineSeconds)));
    call_ = stub.PrepareCall(&context_, std::string(method), &queue_);
    call_->StartCall(this);
    started_ = Await();
  }
  ~RawCall() {
    context_.TryCancel();  // a call left unfinished (a failed assertion) ends here
    queue_.Shutdown();
    void* tag;
    bool ok;
    while (queue_.Next(&tag, &ok)) {
    }
  }

  // False once the server has finished the call.
  bool Write(const std::string& bytes) {
    if (!started_) return false;
    grpc::Slice slice(bytes);
    grpc::ByteBuffer buffer(&slice, 1);
    call_->Write(buffer, this);
    return Await();
  }
  void WritesDone() {
    if (!started_) return;
    call_->WritesDone(this);
    Await();
  }
  // The next message, or false at the end of the responses.
  bool Read(std::string* bytes) {
    if (!started_) return false;
    grpc::ByteBuffer buffer;
    call_->Read(&buffer, this);
    if (!Await()) return false;
    std::vector<grpc::Slice> slices;
    bytes->clear();
    if (buffer.Dump(&slices).ok()) {
      for (const grpc::Slice& slice : slices) {
        bytes->append(reinterpret_cast<const char*>(slice.begin()), slice.size());
      }
    }
    return true;
  }
  grpc::Status Finish() {
    grpc::Status status;
    call_->Finish(&status, this);
    Await();
    return status;
  }

 private:
  bool Await() {
    void* tag = nullptr;
    bool ok = false;
    return queue_.Next(&tag, &ok) && ok;
  }

  grpc::ClientContext context_;
  grpc::CompletionQueue queue_;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call_;
  bool started_ = false;
};

// One unary call of `method` with `bytes`; the response's bytes in *response.
grpc::Status RawUnary(grpc::GenericStub& stub, std::string_view method, const std::string& bytes,
                      std::string* response = nullptr) {
  RawCall call(stub, method);
  call.Write(bytes);
  call.WritesDone();
  std::string ignored;
  call.Read(response != nullptr ? response : &ignored);
  return call.Finish();
}

// The MLP of these tests and one request for it.
constexpr uint32_t kMalformedMlpIn = 8;

simmodel::SimModel Mlp() {
  simmodel::MlpOptions options;
  options.layer_sizes = {kMalformedMlpIn, 16, 4};
  options.seed = 2026120420;
  options.input_name = "x";
  options.output_name = "y";
  return MlpModel(options);
}

std::vector<float> Row(int seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::vector<float> row(kMalformedMlpIn);
  for (float& v : row) v = value(random);
  return row;
}

v1::InferRequest MlpRequest(const std::vector<float>& row, const std::string& id) {
  v1::InferRequest request;
  request.set_model("mlp");
  request.set_id(id);
  AddInput(request, "x", {1, kMalformedMlpIn}, row, TensorForm::kFloat);
  return request;
}

inference::ModelInferRequest V2MlpRequest(const std::vector<float>& row, const std::string& id) {
  inference::ModelInferRequest request;
  request.set_model_name("mlp");
  request.set_id(id);
  inference::ModelInferRequest::InferInputTensor* input = request.add_inputs();
  input->set_name("x");
  input->set_datatype("FP32");
  input->add_shape(1);
  input->add_shape(kMalformedMlpIn);
  input->mutable_contents()->mutable_fp32_contents()->Add(row.begin(), row.end());
  return request;
}

void ExpectMlpOutput(const simmodel::SimModel& mlp, const std::vector<float>& row,
                     const std::vector<float>& got) {
  const std::vector<double> want = MlpReference(mlp, row, 2);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-4 + 1e-4 * std::abs(want[i])) << "output " << i;
  }
}

// The one output, raw as every v2 gRPC answer is (the request's inputs were typed).
std::vector<float> V2Values(const inference::ModelInferResponse& response) {
  if (response.outputs_size() != 1 || response.raw_output_contents_size() != 1) return {};
  const std::string& bytes = response.raw_output_contents(0);
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

TEST(MalformedMessageE2ETest, EveryMethodAnswersABadMessageNamingItsRpc) {
  START_DAEMON(daemon, SimDaemonArgs({"--max-concurrent-uploads=1"}));
  const simmodel::SimModel mlp = Mlp();
  ASSERT_TRUE(Upload(*daemon->stub, Config("mlp"), EncodeNeff(mlp)).status.ok());
  grpc::GenericStub stub(daemon->channel);

  // Unary: INVALID_ARGUMENT naming the RPC and the message type, with the size and no bytes.
  for (const Method& method : kUnaryMethods) {
    const std::string rpc_name(method.name);
    const grpc::Status status = RawUnary(stub, Path(method.path, method.name), kUnparsable);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << rpc_name << ": " << status.error_message();
    EXPECT_THAT(status.error_message(),
                HasSubstr(absl::StrCat(rpc_name, ": the request could not be parsed as ")));
    EXPECT_THAT(status.error_message(), HasSubstr("(11 bytes)")) << rpc_name;
  }
  EXPECT_THAT(RawUnary(stub, Path(kNative, "Infer"), kUnparsable).error_message(),
              HasSubstr("neuronserve.v1.InferRequest"));
  EXPECT_THAT(RawUnary(stub, Path(kV2, "ModelInfer"), kUnparsable).error_message(),
              HasSubstr("inference.ModelInferRequest"));

  // InferStream: the bad message (the second) is answered in the stream, naming its position;
  // the good ones around it are answered correctly and the stream ends OK.
  {
    RawCall call(stub, kInferStream);
    ASSERT_TRUE(call.Write(MlpRequest(Row(1), "a").SerializeAsString()));
    ASSERT_TRUE(call.Write(kUnparsable));
    ASSERT_TRUE(call.Write(MlpRequest(Row(3), "c").SerializeAsString()));
    call.WritesDone();
    int answered = 0;
    bool saw_error = false;
    std::string bytes;
    while (call.Read(&bytes)) {
      v1::InferResponse response;
      ASSERT_TRUE(response.ParseFromString(bytes));
      ++answered;
      if (response.has_error()) {
        saw_error = true;
        EXPECT_EQ(response.error().code(), static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT));
        EXPECT_EQ(response.error().message(),
                  "InferStream: message 2 of the stream could not be parsed as "
                  "neuronserve.v1.InferRequest (11 bytes)");
        continue;
      }
      ASSERT_TRUE(response.id() == "a" || response.id() == "c") << response.id();
      ASSERT_EQ(response.outputs_size(), 1);
      ExpectMlpOutput(mlp, Row(response.id() == "a" ? 1 : 3), OutputValues(response.outputs(0)));
    }
    EXPECT_EQ(answered, 3);
    EXPECT_TRUE(saw_error);
    EXPECT_TRUE(call.Finish().ok());
  }

  // ModelStreamInfer: the same, with the error in error_message.
  {
    RawCall call(stub, kModelStreamInfer);
    ASSERT_TRUE(call.Write(kUnparsable));
    ASSERT_TRUE(call.Write(V2MlpRequest(Row(2), "b").SerializeAsString()));
    call.WritesDone();
    int answered = 0;
    bool saw_error = false;
    std::string bytes;
    while (call.Read(&bytes)) {
      inference::ModelStreamInferResponse response;
      ASSERT_TRUE(response.ParseFromString(bytes));
      ++answered;
      if (!response.error_message().empty()) {
        saw_error = true;
        EXPECT_EQ(response.error_message(),
                  "ModelStreamInfer: message 1 of the stream could not be parsed as "
                  "inference.ModelInferRequest (11 bytes)");
        continue;
      }
      EXPECT_EQ(response.infer_response().id(), "b");
      ExpectMlpOutput(mlp, Row(2), V2Values(response.infer_response()));
    }
    EXPECT_EQ(answered, 2);
    EXPECT_TRUE(saw_error);
    EXPECT_TRUE(call.Finish().ok());
  }

  // LoadModel: a good header, then a bad message: the call ends naming the second message.
  {
    v1::LoadModelRequest header;
    *header.mutable_header()->mutable_config() = Config("never");
    header.mutable_header()->set_total_size(1000);
    header.mutable_header()->set_sha256(std::string(64, '0'));
    RawCall call(stub, kLoadModel);
    ASSERT_TRUE(call.Write(header.SerializeAsString()));
    call.Write(kUnparsable);
    call.WritesDone();
    const grpc::Status status = call.Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_EQ(status.error_message(),
              "LoadModel: message 2 of the stream could not be parsed as "
              "neuronserve.v1.LoadModelRequest (11 bytes)");
  }
  // Nothing kept, and the only upload slot is free again: the next upload goes through.
  v1::ModelStatus status;
  EXPECT_EQ(GetModel(*daemon->stub, "never", &status).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(Upload(*daemon->stub, Config("again"), EncodeNeff(mlp)).status.ok());
}

// Seeded random bytes, a few hundred messages per method (0 to 4 KiB each).
TEST(MalformedMessageE2ETest, RandomBytesToEveryMethodGetAnAnswerAndTheDaemonStillServes) {
  START_DAEMON(daemon, SimDaemonArgs());
  const simmodel::SimModel mlp = Mlp();
  ASSERT_TRUE(Upload(*daemon->stub, Config("mlp"), EncodeNeff(mlp)).status.ok());
  grpc::GenericStub stub(daemon->channel);
  std::mt19937 random(20261204);
  std::uniform_int_distribution<size_t> size(0, 4096);
  std::uniform_int_distribution<int> byte(0, 255);
  auto random_message = [&] {
    std::string bytes(size(random), '\0');
    for (char& c : bytes) c = static_cast<char>(byte(random));
    return bytes;
  };
  auto expect_answer = [](std::string_view method, const grpc::Status& status) {
    EXPECT_NE(status.error_code(), grpc::StatusCode::UNIMPLEMENTED)
        << method << ": " << status.error_message();
    if (!status.ok()) {
      EXPECT_FALSE(status.error_message().empty()) << method;
    }
  };
  constexpr int kMessagesPerMethod = 200;

  for (const Method& method : kUnaryMethods) {
    const std::string path = Path(method.path, method.name);
    for (int i = 0; i < kMessagesPerMethod; ++i) {
      expect_answer(path, RawUnary(stub, path, random_message()));
    }
  }

  // The streams: every message answered in the stream, in batches (the stream reads on while
  // answers wait), then the stream ends OK.
  for (const std::string& method : {kInferStream, kModelStreamInfer}) {
    RawCall call(stub, method);
    constexpr int kBatch = 25;
    int answered = 0;
    for (int sent = 0; sent < kMessagesPerMethod; sent += kBatch) {
      for (int i = 0; i < kBatch; ++i) ASSERT_TRUE(call.Write(random_message())) << method;
      std::string bytes;
      for (int i = 0; i < kBatch && call.Read(&bytes); ++i) ++answered;
    }
    call.WritesDone();
    std::string bytes;
    EXPECT_FALSE(call.Read(&bytes)) << method << ": more answers than requests";
    EXPECT_EQ(answered, kMessagesPerMethod) << method;
    const grpc::Status status = call.Finish();
    EXPECT_TRUE(status.ok()) << method << ": " << status.error_message();
  }

  // LoadModel: streams of one to four random messages.
  std::uniform_int_distribution<int> messages(1, 4);
  for (int sent = 0; sent < kMessagesPerMethod;) {
    RawCall call(stub, kLoadModel);
    for (int n = messages(random); n > 0; --n, ++sent) {
      if (!call.Write(random_message())) break;
    }
    call.WritesDone();
    expect_answer(kLoadModel, call.Finish());
  }

  // Still serving, and still right.
  EXPECT_EQ(HealthCheck(daemon->channel, ""),
            static_cast<int>(grpc::health::v1::HealthCheckResponse::SERVING));
  v1::InferResponse response;
  const grpc::Status status = Infer(*daemon->stub, MlpRequest(Row(7), "after"), &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.outputs_size(), 1);
  ExpectMlpOutput(mlp, Row(7), OutputValues(response.outputs(0)));
}

}  // namespace
}  // namespace malformed_message_e2e_test
}  // namespace neuronserve::testing
