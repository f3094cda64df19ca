// The C++ client library's Infer and InferSession against the real daemon on loopback: raw and
// float forms, every dtype, the outputs asked for, errors passed through with the server's code
// and message, and a hundred requests in flight on one session.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/dtype.h"
#include "base/float_formats.h"
#include "client/lib/client.h"
#include "client/simmodel/identity_model.h"
#include "gmock/gmock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "sim/simmodel/sim_model.h"
#include "tests/e2e/client_library_support.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace client_library_e2e_test {
namespace {

TEST(ClientLibraryE2ETest, InferReturnsTheIdentityInRawAndFloatForms) {
  START_DAEMON(daemon, SimDaemonArgs());
  CONNECT(client, To(daemon->address));
  ASSERT_TRUE(client->LoadModel(Config("id", "3"), Bytes(EncodeNeff(IdentityModel({2, 3})))).ok());

  const std::vector<float> values = {1.5f, -2.0f, 3.25f, 0.0f, -0.125f, 1e6f};
  for (bool raw : {true, false}) {
    SCOPED_TRACE(raw ? "raw" : "float");
    InferOptions options;
    options.raw = raw;
    options.id = raw ? "raw-1" : "float-1";
    absl::StatusOr<InferResult> result = client->Infer("id", {{"input", {2, 3}, values}}, options);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->id, options.id);
    EXPECT_EQ(result->version, "3");
    ASSERT_EQ(result->outputs.size(), 1u);
    const client::OutputTensor& output = result->outputs.at("output");
    EXPECT_THAT(output.shape, ElementsAre(2u, 3u));
    EXPECT_THAT(output.values, Pointwise(FloatEq(), values));
    EXPECT_GE(result->device_time, absl::ZeroDuration());
  }
  // Without a shape the values still go through.
  absl::StatusOr<InferResult> unshaped = client->Infer("id", {{"input", {}, values}});
  ASSERT_TRUE(unshaped.ok()) << unshaped.status();
  EXPECT_THAT(unshaped->outputs.at("output").values, Pointwise(FloatEq(), values));
}

// Six elements of `type` as little-endian bytes, chosen to show a lost sign, a cut-off high
// byte or a rounding: each integer type's extremes, exact values of each float format.
std::vector<uint8_t> SampleElements(DataType type) {
  std::vector<uint8_t> bytes;
  const auto append = [&](uint64_t bits, size_t size) {
    for (size_t i = 0; i < size; ++i) bytes.push_back(static_cast<uint8_t>(bits >> (8 * i)));
  };
  const size_t size = DataTypeSize(type);
  const std::optional<FloatFormat> format =
      type == DataType::kFloat16    ? std::optional(kFloat16Format)
      : type == DataType::kBFloat16 ? std::optional(kBFloat16Format)
      : type == DataType::kFp8E4    ? std::optional(kFp8E4M3Format)
                                    : std::nullopt;
  if (format) {
    for (double value : {1.0, -2.0, 0.5, 3.0, -0.25, 448.0}) {
      append(EncodeFloat(*format, value), size);
    }
  } else if (type == DataType::kFloat32) {
    for (float value : {1.5f, -2.0f, 1e-30f, 3.0f, -0.25f, 1e30f}) {
      append(std::bit_cast<uint32_t>(value), 4);
    }
  } else {
    const bool is_signed = type == DataType::kInt8 || type == DataType::kInt16 ||
                           type == DataType::kInt32 || type == DataType::kInt64;
    const unsigned bits = 8 * static_cast<unsigned>(size);
    const uint64_t all = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    const uint64_t max = is_signed ? all >> 1 : all;
    const uint64_t min = is_signed ? max + 1 : 0;  // the bit pattern of the most negative value
    for (uint64_t value : {uint64_t{0}, uint64_t{1}, max, min, uint64_t{42}, all}) {
      append(value, size);
    }
  }
  return bytes;
}

TEST(ClientLibraryE2ETest, InferSendsAndReturnsTheBytesOfEveryDtypeInBothForms) {
  START_DAEMON(daemon, SimDaemonArgs());
  CONNECT(client, To(daemon->address));
  for (DataType type : {DataType::kInt8, DataType::kUInt8, DataType::kInt16, DataType::kUInt16,
                        DataType::kInt32, DataType::kUInt32, DataType::kInt64, DataType::kUInt64,
                        DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16,
                        DataType::kFp8E4}) {
    const std::string dtype(DataTypeName(type));
    SCOPED_TRACE(dtype);
    simmodel::IdentityOptions identity;
    identity.shape = {2, 3};
    identity.dtype = type;
    absl::StatusOr<simmodel::SimModel> model = simmodel::BuildIdentityModel(identity);
    ASSERT_TRUE(model.ok()) << model.status();
    ASSERT_TRUE(client->LoadModel(Config("id"), Bytes(EncodeNeff(*model))).ok());

    const std::vector<uint8_t> elements = SampleElements(type);
    for (bool raw : {true, false}) {
      SCOPED_TRACE(raw ? "raw" : "typed");
      InferOptions options;
      options.raw = raw;
      absl::StatusOr<InferResult> result =
          client->Infer("id", {{"input", {2, 3}, {}, dtype, elements}}, options);
      ASSERT_TRUE(result.ok()) << result.status();
      const client::OutputTensor& output = result->outputs.at("output");
      EXPECT_EQ(output.dtype, dtype);
      EXPECT_THAT(output.shape, ElementsAre(2u, 3u));
      EXPECT_EQ(output.bytes, elements);
      const bool has_values =
          type == DataType::kFloat32 || type == DataType::kFloat16 || type == DataType::kBFloat16;
      EXPECT_EQ(output.values.size(), has_values ? 6u : 0u);
    }
    if (type == DataType::kFloat16 || type == DataType::kBFloat16) {
      // Floats for a 16-bit input: rounded to nearest even, on the client (raw) or the server
      // (typed) alike; the values come back as the rounded floats.
      const std::vector<float> floats = {1.0f + std::ldexp(1.0f, -11), 0.1f, -3.0f,
                                         65504.0f, 1e-3f, -0.0f};
      const FloatFormat format = type == DataType::kFloat16 ? kFloat16Format : kBFloat16Format;
      for (bool raw : {true, false}) {
        InferOptions options;
        options.raw = raw;
        absl::StatusOr<InferResult> result =
            client->Infer("id", {{"input", {2, 3}, floats, dtype}}, options);
        ASSERT_TRUE(result.ok()) << result.status();
        const client::OutputTensor& output = result->outputs.at("output");
        ASSERT_EQ(output.values.size(), floats.size());
        for (size_t i = 0; i < floats.size(); ++i) {
          const uint32_t bits = EncodeFloat(format, floats[i]);
          EXPECT_EQ(output.values[i], DecodeFloat(format, bits)) << i;
          EXPECT_EQ(output.bytes[2 * i] | (output.bytes[2 * i + 1] << 8), bits) << i;
        }
      }
    }
    ASSERT_TRUE(client->Unload("id").ok());
  }
}

TEST(ClientLibraryE2ETest, InferReturnsOnlyTheOutputsAskedFor) {
  START_DAEMON(daemon, SimDaemonArgs());
  CONNECT(client, To(daemon->address));
  // Two outputs: y = relu(x) and z = tanh(x).
  simmodel::SimModel model;
  model.inputs = {{"x", DataType::kFloat32, {1, 4}}};
  model.outputs = {{"y", DataType::kFloat32, {1, 4}}, {"z", DataType::kFloat32, {1, 4}}};
  model.ops = {{simmodel::OpKind::kRelu, {"x"}, "y"}, {simmodel::OpKind::kTanh, {"x"}, "z"}};
  ASSERT_TRUE(client->LoadModel(Config("two"), Bytes(EncodeNeff(model))).ok());

  const std::vector<float> x = {-1, 0, 1, 2};
  absl::StatusOr<InferResult> all = client->Infer("two", {{"x", {1, 4}, x}});
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->outputs.size(), 2u);
  EXPECT_THAT(all->outputs.at("y").values, ElementsAre(0, 0, 1, 2));

  InferOptions only_z;
  only_z.outputs = {"z"};
  absl::StatusOr<InferResult> z = client->Infer("two", {{"x", {1, 4}, x}}, only_z);
  ASSERT_TRUE(z.ok()) << z.status();
  ASSERT_EQ(z->outputs.size(), 1u);
  const std::vector<float>& tanh = z->outputs.at("z").values;
  ASSERT_EQ(tanh.size(), 4u);
  EXPECT_NEAR(tanh[0], std::tanh(-1.0), 1e-6);
  EXPECT_NEAR(tanh[3], std::tanh(2.0), 1e-6);
}

TEST(ClientLibraryE2ETest, InferErrorsKeepTheServersCodeAndMessage) {
  START_DAEMON(daemon, SimDaemonArgs());
  CONNECT(client, To(daemon->address));
  ASSERT_TRUE(client->LoadModel(Config("id"), Bytes(EncodeNeff(IdentityModel({1, 4})))).ok());

  // What the server says to the same requests made with the bare stub.
  auto server_says = [&](const std::string& model, const std::vector<uint32_t>& shape,
                         const std::vector<float>& values) {
    v1::InferRequest request;
    request.set_model(model);
    AddInput(request, "input", shape, values, TensorForm::kRaw);
    return Infer(*daemon->stub, request, nullptr);
  };

  const std::vector<float> four = {1, 2, 3, 4};
  absl::StatusOr<InferResult> unknown = client->Infer("ghost", {{"input", {1, 4}, four}});
  const grpc::Status unknown_expected = server_says("ghost", {1, 4}, four);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound) << unknown.status();
  EXPECT_EQ(unknown.status().message(), unknown_expected.error_message());
  EXPECT_THAT(unknown.status().message(), HasSubstr("ghost"));

  const std::vector<float> five = {1, 2, 3, 4, 5};
  absl::StatusOr<InferResult> wrong_shape = client->Infer("id", {{"input", {1, 5}, five}});
  const grpc::Status wrong_shape_expected = server_says("id", {1, 5}, five);
  EXPECT_EQ(wrong_shape.status().code(), absl::StatusCode::kInvalidArgument)
      << wrong_shape.status();
  EXPECT_EQ(wrong_shape.status().message(), wrong_shape_expected.error_message());
  EXPECT_FALSE(wrong_shape.status().message().empty());
}

TEST(ClientLibraryE2ETest, InferSessionAnswersAHundredRequestsInFlightById) {
  START_DAEMON(daemon, SimDaemonArgs());
  CONNECT(client, To(daemon->address));
  // The device latency keeps many requests waiting at once.
  ASSERT_TRUE(client->LoadModel(Config("id"), Bytes(EncodeNeff(IdentityModel({1, 4}, 2000)))).ok());
  absl::StatusOr<std::unique_ptr<InferSession>> opened = client->OpenStream();
  ASSERT_TRUE(opened.ok()) << opened.status();
  InferSession& session = **opened;

  constexpr int kRequests = 100;
  std::vector<std::vector<float>> inputs(kRequests);
  for (int i = 0; i < kRequests; ++i) {
    const float base = static_cast<float>(i);
    inputs[i] = {base, base + 0.5f, -base, base * 2};
  }
  // Received on their own thread while requests still go out.
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
  std::map<std::string, int> sent;  // id -> request index
  for (int i = 0; i < kRequests; ++i) {
    absl::StatusOr<std::string> id = session.Send("id", {{"input", {1, 4}, inputs[i]}});
    ASSERT_TRUE(id.ok()) << id.status();
    sent[*id] = i;
  }
  // A failed request gets its own answer and the stream goes on.
  InferOptions bad;
  bad.id = "bad";
  ASSERT_TRUE(session.Send("ghost", {{"input", {1, 4}, inputs[0]}}, bad).ok());
  ASSERT_TRUE(session.CloseSend().ok());
  EXPECT_EQ(session.Send("id", {{"input", {1, 4}, inputs[0]}}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  receiver.join();
  ASSERT_TRUE(receive_error.ok()) << receive_error;
  EXPECT_TRUE(session.Finish().ok()) << session.Finish();

  // Assigned ids are "1" ... "100".
  ASSERT_EQ(sent.size(), static_cast<size_t>(kRequests));
  for (int i = 0; i < kRequests; ++i) EXPECT_EQ(sent.at(absl::StrCat(i + 1)), i);

  ASSERT_EQ(received.size(), static_cast<size_t>(kRequests + 1));
  std::map<std::string, int> answered;
  for (const InferStreamResult& result : received) {
    ++answered[result.id];
    if (result.id == "bad") {
      EXPECT_EQ(result.status.code(), absl::StatusCode::kNotFound) << result.status;
      EXPECT_THAT(result.status.message(), HasSubstr("ghost"));
      continue;
    }
    ASSERT_TRUE(result.status.ok()) << result.id << ": " << result.status;
    ASSERT_TRUE(sent.contains(result.id)) << result.id;
    EXPECT_EQ(result.result.id, result.id);
    EXPECT_THAT(result.result.outputs.at("output").values,
                ElementsAreArray(inputs[sent.at(result.id)]))
        << result.id;
  }
  EXPECT_EQ(answered.size(), static_cast<size_t>(kRequests + 1));  // each id exactly once
  for (const auto& [id, count] : answered) EXPECT_EQ(count, 1) << id;
}

}  // namespace
}  // namespace client_library_e2e_test
}  // namespace neuronserve::testing
