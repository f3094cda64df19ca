// ParseMessage and SerializeMessage (server/grpc/raw_message.h): a round trip through gRPC's
// buffers, the empty message, and the error of bytes that do not parse (the RPC, the type, the
// position in a stream, the size; never the bytes; nothing of the partial parse left behind).
#include "server/grpc/raw_message.h"

#include <string>

#include "gmock/gmock.h"
#include "grpcpp/support/slice.h"
#include "gtest/gtest.h"
#include "neuronserve/v1/neuron_serving.pb.h"

namespace neuronserve {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

grpc::ByteBuffer BufferOf(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

TEST(RawMessageTest, ARequestSurvivesTheRoundTripAndTheBufferStaysReadable) {
  v1::InferRequest sent;
  sent.set_model("mlp");
  sent.set_id("42");
  sent.add_inputs()->set_raw_data(std::string(100000, 'x'));  // more than one slice's worth
  grpc::ByteBuffer raw;
  ASSERT_TRUE(SerializeMessage("Infer", sent, raw).ok());
  EXPECT_EQ(raw.Length(), sent.ByteSizeLong());
  v1::InferRequest got;
  ASSERT_TRUE(ParseMessage("Infer", raw, got).ok());
  EXPECT_EQ(got.SerializeAsString(), sent.SerializeAsString());
  // Parsing reads a copy: the buffer is still whole (a second parse gives the same message).
  v1::InferRequest again;
  ASSERT_TRUE(ParseMessage("Infer", raw, again).ok());
  EXPECT_EQ(again.model(), "mlp");
}

TEST(RawMessageTest, NoBytesAndAnEmptyBufferAreTheEmptyMessage) {
  v1::InferRequest message;
  message.set_model("left over");
  EXPECT_TRUE(ParseMessage("Infer", grpc::ByteBuffer(), message).ok());
  EXPECT_EQ(message.model(), "");
  message.set_model("left over");
  EXPECT_TRUE(ParseMessage("Infer", BufferOf(""), message).ok());
  EXPECT_EQ(message.model(), "");
}

TEST(RawMessageTest, BytesThatDoNotParseNameTheRpcTheTypeAndTheSize) {
  // model = "mlp", then field 2 (id) whose length runs past the end.
  const std::string bytes = std::string("\x0a\x03mlp\x12\x7fsecret", 13);
  v1::InferRequest message;
  absl::Status status = ParseMessage("Infer", BufferOf(bytes), message);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "Infer: the request could not be parsed as neuronserve.v1.InferRequest (13 bytes)");
  EXPECT_THAT(std::string(status.message()), Not(HasSubstr("secret")));
  EXPECT_EQ(message.model(), "");  // the part that did parse is not kept

  v1::LoadModelRequest chunk;
  status = ParseMessage("LoadModel", BufferOf(bytes), chunk, 3);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "LoadModel: message 3 of the stream could not be parsed as "
            "neuronserve.v1.LoadModelRequest (13 bytes)");
}

}  // namespace
}  // namespace neuronserve
