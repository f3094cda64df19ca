// The client library's Open Inference Protocol path (InferOptions::protocol = Protocol::kV2)
// against the real daemon: ModelInfer sends and returns the bytes of every dtype in both forms
// as the native Infer does, errors keep the server's code and message, and an InferSession on
// ModelStreamInfer answers many requests by id, a failed one inside the stream.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "client/lib/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/dtype_samples.h"
#include "tests/e2e/library_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace client_library_v2_e2e_test {
namespace {

using client::Client;
using client::InferOptions;
using client::InferResult;
using client::InferSession;
using client::InferStreamResult;
using client::Protocol;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

InferOptions V2(bool raw = true) {
  InferOptions options;
  options.protocol = Protocol::kV2;
  options.raw = raw;
  return options;
}

std::vector<uint8_t> AsBytes(const std::string& bytes) {
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

TEST(ClientLibraryV2E2ETest, ModelInferSendsAndReturnsTheBytesOfEveryDtypeInBothForms) {
  START_DAEMON(daemon, SimDaemonArgs());
  std::unique_ptr<Client> client = ConnectLibraryClient(daemon->address);
  ASSERT_NE(client, nullptr);
  for (DataType type : kEveryDtype) {
    LoadIdentity(*daemon->stub, type, {2, 3});
    if (HasFatalFailure()) return;
    const std::string dtype(DataTypeName(type));
    const std::vector<uint8_t> elements = AsBytes(ElementBytes(type, SampleValues(type)));
    for (bool raw : {true, false}) {
      SCOPED_TRACE(absl::StrCat(dtype, raw ? " raw" : " typed"));
      absl::StatusOr<InferResult> v2 =
          client->Infer(ModelNameFor(type), {{"input", {2, 3}, {}, dtype, elements}}, V2(raw));
      ASSERT_TRUE(v2.ok()) << v2.status();
      const client::OutputTensor& output = v2->outputs.at("output");
      EXPECT_EQ(output.dtype, dtype);
      EXPECT_THAT(output.shape, ElementsAre(2u, 3u));
      EXPECT_EQ(output.bytes, elements);
      // The same decoded result as the native API's.
      InferOptions native;
      native.raw = raw;
      absl::StatusOr<InferResult> same =
          client->Infer(ModelNameFor(type), {{"input", {2, 3}, {}, dtype, elements}}, native);
      ASSERT_TRUE(same.ok()) << same.status();
      EXPECT_EQ(same->outputs.at("output").bytes, output.bytes);
      EXPECT_EQ(same->outputs.at("output").values, output.values);
    }
  }
}

TEST(ClientLibraryV2E2ETest, ModelInferErrorsKeepTheServersCodeAndMessage) {
  START_DAEMON(daemon, SimDaemonArgs());
  std::unique_ptr<Client> client = ConnectLibraryClient(daemon->address);
  ASSERT_NE(client, nullptr);
  LoadIdentity(*daemon->stub, DataType::kFloat32, {1, 4});
  if (HasFatalFailure()) return;
  const std::string model = ModelNameFor(DataType::kFloat32);

  const std::vector<float> four = {1, 2, 3, 4};
  absl::StatusOr<InferResult> unknown = client->Infer("ghost", {{"input", {1, 4}, four}}, V2());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound) << unknown.status();
  EXPECT_THAT(unknown.status().message(), HasSubstr("ghost"));

  const std::vector<float> five = {1, 2, 3, 4, 5};
  absl::StatusOr<InferResult> wrong_shape = client->Infer(model, {{"input", {1, 5}, five}}, V2());
  EXPECT_EQ(wrong_shape.status().code(), absl::StatusCode::kInvalidArgument)
      << wrong_shape.status();
  EXPECT_THAT(wrong_shape.status().message(),
              HasSubstr("model '" + model + "' input 'input': expected shape [1,4], got [1,5]"));

  // A dtype that is not the tensor's, under its v2 name.
  const std::vector<uint8_t> int64s(32, 0);
  absl::StatusOr<InferResult> wrong_dtype =
      client->Infer(model, {{"input", {1, 4}, {}, "int64", int64s}}, V2());
  EXPECT_EQ(wrong_dtype.status().code(), absl::StatusCode::kInvalidArgument)
      << wrong_dtype.status();
  EXPECT_THAT(wrong_dtype.status().message(),
              HasSubstr("input 'input' is FP32, but the request gives INT64"));
}

TEST(ClientLibraryV2E2ETest, SessionOnModelStreamInferAnswersEveryRequestById) {
  START_DAEMON(daemon, SimDaemonArgs());
  std::unique_ptr<Client> client = ConnectLibraryClient(daemon->address);
  ASSERT_NE(client, nullptr);
  LoadIdentity(*daemon->stub, DataType::kFloat32, {1, 4});
  if (HasFatalFailure()) return;
  const std::string model = ModelNameFor(DataType::kFloat32);

  absl::StatusOr<std::unique_ptr<InferSession>> opened =
      client->OpenStream(absl::ZeroDuration(), Protocol::kV2);
  ASSERT_TRUE(opened.ok()) << opened.status();
  InferSession& session = **opened;

  // A request must say the session's protocol.
  const absl::Status mismatch = session.Send(model, {{"input", {1, 4}, {1, 2, 3, 4}}}).status();
  EXPECT_EQ(mismatch.code(), absl::StatusCode::kInvalidArgument) << mismatch;
  EXPECT_THAT(mismatch.message(), HasSubstr("the stream's protocol"));

  constexpr int kRequests = 40;
  std::vector<std::vector<float>> inputs(kRequests);
  for (int i = 0; i < kRequests; ++i) {
    const float base = static_cast<float>(i);
    inputs[i] = {base, base + 0.5f, -base, base * 2};
  }
  std::vector<InferStreamResult> received;
  absl::Status receive_error;
  std::thread receiver([&] {
    while (true) {
      absl::StatusOr<std::optional<InferStreamResult>> next = session.Receive();
      if (!next.ok()) {
        receive_error = next.status();
        return;
      }
      if (!next->has_value()) return;
      received.push_back(**std::move(next));
    }
  });
  std::map<std::string, int> sent;
  for (int i = 0; i < kRequests; ++i) {
    absl::StatusOr<std::string> id = session.Send(model, {{"input", {1, 4}, inputs[i]}}, V2());
    ASSERT_TRUE(id.ok()) << id.status();
    sent[*id] = i;
  }
  // A failed request is answered inside the stream (the protocol gives a message, no code) and
  // the stream goes on.
  InferOptions bad = V2();
  bad.id = "bad";
  ASSERT_TRUE(session.Send("ghost", {{"input", {1, 4}, inputs[0]}}, bad).ok());
  ASSERT_TRUE(session.CloseSend().ok());
  receiver.join();
  ASSERT_TRUE(receive_error.ok()) << receive_error;
  EXPECT_TRUE(session.Finish().ok()) << session.Finish();

  ASSERT_EQ(received.size(), static_cast<size_t>(kRequests + 1));
  int errors = 0;
  for (const InferStreamResult& result : received) {
    if (!result.status.ok()) {
      ++errors;
      EXPECT_EQ(result.status.code(), absl::StatusCode::kUnknown) << result.status;
      EXPECT_THAT(result.status.message(), HasSubstr("ghost"));
      continue;
    }
    ASSERT_TRUE(sent.contains(result.id)) << result.id;
    EXPECT_THAT(result.result.outputs.at("output").values,
                ElementsAreArray(inputs[sent.at(result.id)]))
        << result.id;
    sent.erase(result.id);  // each id answered once
  }
  EXPECT_EQ(errors, 1);
  EXPECT_TRUE(sent.empty());
}

}  // namespace
}  // namespace client_library_v2_e2e_test
}  // namespace neuronserve::testing
