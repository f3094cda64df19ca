// DetachedBytes and the front ends' SerializeUnary (server/grpc/detached_bytes.h): an answer
// whose large raw outputs travel as slices of their own parses into exactly the message it would
// have been with the bytes inline, whatever mix of inline and detached outputs it has, and the
// detached bytes are not copied on the way.
#include "server/grpc/detached_bytes.h"

#include <cstring>
#include <string>
#include <vector>

#include "grpcpp/support/slice.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.pb.h"
#include "neuronserve/v1/neuron_serving.pb.h"
#include "server/grpc/raw_message.h"
#include "server/native/native_infer_call.h"
#include "server/v2/v2_infer_call.h"

namespace neuronserve {
namespace {

// `size` bytes that differ from one position to the next, so a misplaced byte shows.
std::string Pattern(size_t size, char seed) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(seed + i * 7 + (i >> 9));
  return bytes;
}

// Fills the detached buffer of `slot` with `bytes`, as the core worker's read would.
void Detach(DetachedBytes& detached, int slot, const std::string& bytes) {
  std::memcpy(detached.Buffer(slot, bytes.size()), bytes.data(), bytes.size());
}

std::vector<grpc::Slice> SlicesOf(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  EXPECT_TRUE(buffer.Dump(&slices).ok());
  return slices;
}

TEST(DetachedBytesTest, ASlotKeepsItsBufferUntilTakenOnce) {
  DetachedBytes detached;
  EXPECT_TRUE(detached.empty());
  EXPECT_FALSE(detached.Take(0).has_value());
  char* first = detached.Buffer(1, 100);
  EXPECT_EQ(detached.Buffer(1, 100), first);  // the same buffer for the same slot and size
  EXPECT_FALSE(detached.empty());
  std::memset(first, 'q', 100);
  std::optional<grpc::Slice> slice = detached.Take(1);
  ASSERT_TRUE(slice.has_value());
  EXPECT_EQ(slice->size(), 100u);
  EXPECT_EQ(static_cast<const void*>(slice->begin()), static_cast<const void*>(first));  // no copy
  EXPECT_EQ(slice->begin()[99], 'q');
  EXPECT_FALSE(detached.Take(1).has_value());  // moved out once
  EXPECT_FALSE(detached.Take(0).has_value());
  // Asked again after it was taken, the slot gets a buffer of its own again (the slice still
  // owns the first).
  char* again = detached.Buffer(1, 100);
  ASSERT_NE(again, nullptr);
  EXPECT_NE(again, first);
  EXPECT_EQ(slice->begin()[99], 'q');
}

TEST(DetachedBytesTest, FieldHeadersTakeTheTagAndTheLengthVarints) {
  EXPECT_EQ(FieldHeaderSize(4, 0), 2u);
  EXPECT_EQ(FieldHeaderSize(4, 127), 2u);
  EXPECT_EQ(FieldHeaderSize(4, 128), 3u);
  EXPECT_EQ(FieldHeaderSize(4, size_t{1} << 20), 4u);
  EXPECT_EQ(FieldHeaderSize(16, 1), 3u);  // field 16's tag takes two bytes
}

// A native answer of three outputs: a small one inline, two large ones detached (one of them
// with typed shape fields around it); the id, model, version and timings around them.
TEST(DetachedBytesTest, ANativeAnswerWithDetachedOutputsParsesAsTheInlineOne) {
  const std::string small = Pattern(300, 'a');
  const std::string large = Pattern(DetachedBytes::kMinBytes * 3 + 5, 'b');
  const std::string larger = Pattern(size_t{1} << 20, 'c');
  v1::InferResponse expected;
  expected.set_id("req-7");
  expected.set_model("mlp");
  expected.set_version("3");
  expected.set_queue_us(12);
  expected.set_device_us(345);
  for (const std::string* bytes : {&small, &large, &larger}) {
    v1::OutputTensor* output = expected.add_outputs();
    output->set_name("out" + std::to_string(expected.outputs_size()));
    output->set_dtype("uint8");
    output->add_shape(1);
    output->add_shape(static_cast<uint32_t>(bytes->size()));
    output->set_raw_data(*bytes);
  }
  // The same answer as the call builds it: the large outputs' bytes detached, their fields empty.
  v1::InferResponse response = expected;
  DetachedBytes detached;
  response.mutable_outputs(1)->clear_raw_data();
  response.mutable_outputs(2)->clear_raw_data();
  Detach(detached, 1, large);
  Detach(detached, 2, larger);
  const char* larger_at = detached.Buffer(2, larger.size());

  grpc::ByteBuffer raw;
  ASSERT_TRUE(NativeInferCall::SerializeUnary("Infer", response, detached, raw).ok());
  EXPECT_EQ(raw.Length(), expected.ByteSizeLong());
  v1::InferResponse parsed;
  ASSERT_TRUE(ParseMessage("Infer", raw, parsed).ok());
  EXPECT_EQ(parsed.SerializeAsString(), expected.SerializeAsString());
  // The message got its outputs back (their detached bytes excepted).
  ASSERT_EQ(response.outputs_size(), 3);
  EXPECT_EQ(response.outputs(0).raw_data(), small);
  // The 1 MiB output went out as the very buffer the read filled.
  bool found = false;
  for (const grpc::Slice& slice : SlicesOf(raw)) {
    found = found || static_cast<const void*>(slice.begin()) == larger_at;
  }
  EXPECT_TRUE(found);
}

TEST(DetachedBytesTest, WithNothingDetachedTheAnswerIsSerializedAsUsual) {
  v1::InferResponse response;
  response.set_id("x");
  response.add_outputs()->set_raw_data(Pattern(1000, 'd'));
  DetachedBytes detached;
  grpc::ByteBuffer raw;
  ASSERT_TRUE(NativeInferCall::SerializeUnary("Infer", response, detached, raw).ok());
  grpc::ByteBuffer plain;
  ASSERT_TRUE(SerializeMessage("Infer", response, plain).ok());
  v1::InferResponse a;
  v1::InferResponse b;
  ASSERT_TRUE(ParseMessage("Infer", raw, a).ok());
  ASSERT_TRUE(ParseMessage("Infer", plain, b).ok());
  EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
  EXPECT_EQ(a.outputs(0).raw_data(), response.outputs(0).raw_data());
}

// Open Inference Protocol: raw_output_contents in output order, detached and inline mixed.
TEST(DetachedBytesTest, AModelInferAnswerWithDetachedContentsParsesAsTheInlineOne) {
  const std::string first = Pattern(DetachedBytes::kMinBytes, 'e');
  const std::string second = Pattern(64, 'f');
  const std::string third = Pattern(DetachedBytes::kMinBytes * 2, 'g');
  inference::ModelInferResponse expected;
  expected.set_model_name("mlp");
  expected.set_model_version("1");
  expected.set_id("v2-9");
  for (const std::string* bytes : {&first, &second, &third}) {
    inference::ModelInferResponse::InferOutputTensor* output = expected.add_outputs();
    output->set_name("o" + std::to_string(expected.outputs_size()));
    output->set_datatype("UINT8");
    output->add_shape(static_cast<int64_t>(bytes->size()));
    expected.add_raw_output_contents(*bytes);
  }
  inference::ModelInferResponse response = expected;
  DetachedBytes detached;
  response.mutable_raw_output_contents(0)->clear();
  response.mutable_raw_output_contents(2)->clear();
  Detach(detached, 0, first);
  Detach(detached, 2, third);

  grpc::ByteBuffer raw;
  ASSERT_TRUE(V2InferCall::SerializeUnary("ModelInfer", response, detached, raw).ok());
  EXPECT_EQ(raw.Length(), expected.ByteSizeLong());
  inference::ModelInferResponse parsed;
  ASSERT_TRUE(ParseMessage("ModelInfer", raw, parsed).ok());
  EXPECT_EQ(parsed.SerializeAsString(), expected.SerializeAsString());
  EXPECT_EQ(response.raw_output_contents_size(), 3);
  EXPECT_EQ(response.raw_output_contents(1), second);
}

}  // namespace
}  // namespace neuronserve
