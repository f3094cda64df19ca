// Every way a request can be wrong, through the real daemon: each gets its gRPC code and a
// message naming the model, the tensor, what was expected and what came, nothing reaches the
// device (the model's failure counter moves, its success counter does not), and the daemon
// keeps serving.
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace infer_validation_e2e_test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class InferValidationE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_ = StartDaemon(SimDaemonArgs(), &log_);
    ASSERT_NE(daemon_, nullptr) << log_;
    // Two inputs, so that order, duplicates and omissions can be told apart: out = a + b.
    simmodel::SimModel add;
    add.inputs = {{"a", DataType::kFloat32, {1, 4}}, {"b", DataType::kFloat32, {1, 4}}};
    add.outputs = {{"out", DataType::kFloat32, {1, 4}}};
    add.ops = {{simmodel::OpKind::kAdd, {"a", "b"}, "out"}};
    v1::ModelConfig config = Config("add", "7");
    LoadResult loaded = Upload(*daemon_->stub, config, EncodeNeff(add));
    ASSERT_TRUE(loaded.status.ok()) << loaded.status.error_message();
  }

  v1::InferRequest Valid() const {
    v1::InferRequest request;
    request.set_model("add");
    AddInput(request, "a", {1, 4}, {1, 2, 3, 4}, TensorForm::kFloat);
    AddInput(request, "b", {1, 4}, {10, 20, 30, 40}, TensorForm::kFloat);
    return request;
  }

  // Runs `request`, expects `code` and a message with each of `parts`, then checks the daemon
  // still answers a valid request.
  void ExpectRejected(const v1::InferRequest& request, grpc::StatusCode code,
                      std::vector<std::string> parts) {
    grpc::Status status = Infer(*daemon_->stub, request, nullptr);
    EXPECT_EQ(status.error_code(), code) << status.error_message();
    for (const std::string& part : parts) EXPECT_THAT(status.error_message(), HasSubstr(part));
    v1::InferResponse response;
    grpc::Status valid = Infer(*daemon_->stub, Valid(), &response);
    ASSERT_TRUE(valid.ok()) << valid.error_message();
    EXPECT_THAT(OutputValues(response.outputs(0)), ::testing::ElementsAre(11, 22, 33, 44));
  }

  std::string log_;
  std::unique_ptr<RunningDaemon> daemon_;
};

TEST_F(InferValidationE2ETest, UnknownOrUnnamedModel) {
  v1::InferRequest request = Valid();
  request.set_model("nope");
  ExpectRejected(request, grpc::StatusCode::NOT_FOUND,
                 {"Request for unknown model: 'nope' is not found (loaded: "});
  request.set_model("");
  ExpectRejected(request, grpc::StatusCode::INVALID_ARGUMENT, {"model is empty"});
}

TEST_F(InferValidationE2ETest, InputNames) {
  v1::InferRequest missing = Valid();
  missing.mutable_inputs()->RemoveLast();
  ExpectRejected(missing, grpc::StatusCode::INVALID_ARGUMENT,
                 {"model 'add'", "missing input 'b'", "[1,4] float32"});

  v1::InferRequest unknown = Valid();
  unknown.mutable_inputs(1)->set_name("c");
  ExpectRejected(unknown, grpc::StatusCode::INVALID_ARGUMENT,
                 {"model 'add' has no input 'c'", "its inputs: 'a', 'b'"});

  v1::InferRequest duplicate = Valid();
  duplicate.mutable_inputs(1)->set_name("a");
  ExpectRejected(duplicate, grpc::StatusCode::INVALID_ARGUMENT,
                 {"model 'add' input 'a' is given more than once"});
}

TEST_F(InferValidationE2ETest, ShapesAndSizes) {
  v1::InferRequest shape = Valid();
  shape.mutable_inputs(0)->clear_shape();
  shape.mutable_inputs(0)->add_shape(4);
  shape.mutable_inputs(0)->add_shape(1);
  ExpectRejected(shape, grpc::StatusCode::INVALID_ARGUMENT,
                 {"model 'add' input 'a'", "expected shape [1,4], got [4,1]"});

  v1::InferRequest elements = Valid();
  elements.mutable_inputs(1)->mutable_float_data()->RemoveLast();
  ExpectRejected(elements, grpc::StatusCode::INVALID_ARGUMENT,
                 {"model 'add' input 'b'", "expected 4 float32 values in float_data", "got 3"});

  v1::InferRequest bytes = Valid();
  bytes.mutable_inputs(1)->clear_float_data();
  bytes.mutable_inputs(1)->set_raw_data(std::string(15, '\0'));
  ExpectRejected(bytes, grpc::StatusCode::INVALID_ARGUMENT,
                 {"model 'add' input 'b'", "expected 16 bytes of raw_data", "got 15 bytes"});

  v1::InferRequest both = Valid();
  both.mutable_inputs(0)->set_raw_data(std::string(16, '\0'));
  ExpectRejected(both, grpc::StatusCode::INVALID_ARGUMENT,
                 {"model 'add' input 'a'", "carries both raw_data and float_data; send one"});

  v1::InferRequest empty = Valid();
  empty.mutable_inputs(0)->clear_float_data();
  ExpectRejected(empty, grpc::StatusCode::INVALID_ARGUMENT,
                 {"model 'add' input 'a' (shape [1,4] float32): carries no values",
                  "send float_data (4 values) or raw_data (16 bytes)"});
}

TEST_F(InferValidationE2ETest, OutputsAndVersion) {
  v1::InferRequest unknown = Valid();
  unknown.add_outputs("sum");
  ExpectRejected(unknown, grpc::StatusCode::INVALID_ARGUMENT,
                 {"model 'add' has no output 'sum'", "its outputs: 'out'"});
  v1::InferRequest twice = Valid();
  twice.add_outputs("out");
  twice.add_outputs("out");
  ExpectRejected(twice, grpc::StatusCode::INVALID_ARGUMENT,
                 {"output 'out' is asked for more than once"});
  v1::InferRequest version = Valid();
  version.set_version("6");
  ExpectRejected(
      version, grpc::StatusCode::FAILED_PRECONDITION,
      {"Request for unknown model: 'add' version 6 is not found", "version '7' is serving"});
}

TEST_F(InferValidationE2ETest, NothingInvalidReachedTheDevice) {
  v1::InferRequest bad = Valid();
  bad.mutable_inputs()->RemoveLast();
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(Infer(*daemon_->stub, bad, nullptr).ok());
  ASSERT_TRUE(Infer(*daemon_->stub, Valid(), nullptr).ok());
  v1::ModelStatus model;
  ASSERT_TRUE(GetModel(*daemon_->stub, "add", &model).ok());
  EXPECT_EQ(model.requests().failed(), 5u);
  EXPECT_EQ(model.requests().succeeded(), 1u);
}

TEST_F(InferValidationE2ETest, StreamAnswersEachBadRequestAndGoesOn) {
  std::vector<v1::InferRequest> requests;
  for (int i = 0; i < 6; ++i) {
    v1::InferRequest request = Valid();
    request.set_id(absl::StrCat("r", i));
    if (i % 2 == 1) request.mutable_inputs(0)->set_name("zz");
    requests.push_back(request);
  }
  grpc::Status status;
  std::vector<v1::InferResponse> responses = RunStream(*daemon_->stub, requests, &status);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(responses.size(), 6u);
  int failed = 0;
  for (const v1::InferResponse& response : responses) {
    const int index = response.id()[1] - '0';
    if (index % 2 == 1) {
      ++failed;
      EXPECT_EQ(response.error().code(), static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT));
      EXPECT_THAT(response.error().message(), HasSubstr("model 'add' has no input 'zz'"));
      EXPECT_EQ(response.outputs_size(), 0);
    } else {
      EXPECT_EQ(response.error().code(), 0) << response.error().message();
      EXPECT_THAT(OutputValues(response.outputs(0)), ::testing::ElementsAre(11, 22, 33, 44));
    }
  }
  EXPECT_EQ(failed, 3);
}

TEST(InferModelE2ETest, AnInt32ModelWrittenByHandIsServedInBothForms) {
  START_DAEMON(daemon, SimDaemonArgs());
  // Written by hand rather than with the model builders, which the dtype tests use.
  const std::string neff = SimNeffFromJson(
      "{\"inputs\": [{\"name\": \"ids\", \"dtype\": \"int32\", \"shape\": [1, 4]}], "
      "\"outputs\": [{\"name\": \"out\", \"dtype\": \"int32\", \"shape\": [1, 4]}], "
      "\"ops\": [{\"op\": \"identity\", \"inputs\": [\"ids\"], \"output\": \"out\"}]}");
  LoadResult loaded = Upload(*daemon->stub, Config("ints"), neff);
  ASSERT_TRUE(loaded.status.ok()) << loaded.status.error_message();
  v1::InferRequest request;
  request.set_model("ints");
  v1::InputTensor* ids = request.add_inputs();
  ids->set_name("ids");
  for (int32_t id : {7, -1, 0, 2147483647}) ids->add_int32_data(id);
  v1::InferResponse response;
  grpc::Status status = Infer(*daemon->stub, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.outputs_size(), 1);
  EXPECT_EQ(response.outputs(0).dtype(), "int32");
  EXPECT_THAT(response.outputs(0).int32_data(), ::testing::ElementsAre(7, -1, 0, 2147483647));

  ids->clear_int32_data();
  const int32_t raw[] = {1, 2, 3, -4};
  ids->set_raw_data(std::string(reinterpret_cast<const char*>(raw), sizeof(raw)));
  status = Infer(*daemon->stub, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.outputs(0).raw_data(), ids->raw_data());
  EXPECT_EQ(response.outputs(0).int32_data_size(), 0);
}

TEST(InferQueueE2ETest, AFullQueueAnswersUnavailableAtOnce) {
  START_DAEMON(daemon, SimDaemonArgs());
  v1::ModelConfig config = Config("slow");
  config.set_max_queue(2);
  ASSERT_TRUE(Upload(*daemon->stub, config, EncodeNeff(IdentityModel({1, 4}, 100'000))).status.ok());
  std::vector<v1::InferRequest> requests;
  for (int i = 0; i < 12; ++i) {
    v1::InferRequest request;
    request.set_model("slow");
    request.set_id(absl::StrCat(i));
    AddInput(request, "input", {1, 4}, {1, 2, 3, 4}, TensorForm::kRaw);
    requests.push_back(request);
  }
  const absl::Time started = absl::Now();
  grpc::Status status;
  std::vector<v1::InferResponse> responses = RunStream(*daemon->stub, requests, &status);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(responses.size(), 12u);
  int ok = 0, exhausted = 0;
  for (const v1::InferResponse& response : responses) {
    if (response.error().code() == 0) {
      ++ok;
    } else {
      EXPECT_EQ(response.error().code(), static_cast<int>(grpc::StatusCode::UNAVAILABLE));
      EXPECT_THAT(response.error().message(),
                  AllOf(HasSubstr("model 'slow'"), HasSubstr("queue is full (2 waiting")));
      ++exhausted;
    }
  }
  // One executing and two waiting at most when the burst arrives: the rest is refused at once,
  // not queued behind 100 ms executions (12 in a row would take 1.2 s).
  EXPECT_GE(exhausted, 6);
  EXPECT_GE(ok, 1);
  EXPECT_LT(absl::Now() - started, absl::Milliseconds(100) * (ok + 3));
}

TEST(InferQueueE2ETest, ARequestWhoseDeadlinePassesInTheQueueNeverRuns) {
  START_DAEMON(daemon, SimDaemonArgs({"--http-listen=127.0.0.1:0"}));
  // The first request executes for 1.5 s, and the second's deadline is 100 ms: it expires in the
  // queue unless it reaches the daemon 1.4 s after the first started executing. (With 300 ms,
  // a sanitized client slowed by a loaded machine sent it late enough, once, that a worker took
  // it before its deadline and ran it.)
  ASSERT_TRUE(Upload(*daemon->stub, Config("slow"), EncodeNeff(IdentityModel({1, 4}, 1'500'000)))
                  .status.ok());
  v1::InferRequest request;
  request.set_model("slow");
  AddInput(request, "input", {1, 4}, {1, 2, 3, 4}, TensorForm::kFloat);
  std::thread first([&] { EXPECT_TRUE(Infer(*daemon->stub, request, nullptr).ok()); });
  // The first one is in the daemon (queued or executing): the second queues behind it.
  EXPECT_TRUE(WaitUntilInFlight(*daemon->process, 1));  // (no ASSERT: `first` must be joined)
  grpc::Status late = Infer(*daemon->stub, request, nullptr, absl::Milliseconds(100));
  EXPECT_EQ(late.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  first.join();
  // The server answered the expired one when a worker reached it, without executing it: one
  // success, one failure. Had it run, both would count as successes.
  v1::ModelStatus model;
  WaitUntil([&] {
    return GetModel(*daemon->stub, "slow", &model).ok() &&
           model.requests().failed() + model.requests().succeeded() == 2;
  });
  ASSERT_TRUE(GetModel(*daemon->stub, "slow", &model).ok());
  EXPECT_EQ(model.requests().succeeded(), 1u);
  EXPECT_EQ(model.requests().failed(), 1u);
}

}  // namespace
}  // namespace infer_validation_e2e_test
}  // namespace neuronserve::testing
