// The client library's shared memory without a server: SharedMemoryObject (created as
// tritonclient creates objects, refused keys, never reused, removed when destroyed), the
// requests of both protocols naming regions (no bytes in the message, the outputs asked for),
// decoding answers whose outputs went to a region, and reading them back with their bounds.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/lib/infer_codec.h"
#include "client/lib/shared_memory_tensors.h"
#include "client/shared_memory/shared_memory_object.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve::client {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(SharedMemoryObjectTest, IsANewZeroedObjectOfMode0600RemovedWhenDestroyed) {
  const std::string key = SharedMemoryObject::UniqueKey("ns-unit");
  EXPECT_TRUE(key.starts_with("/ns-unit-" + std::to_string(getpid()) + "-")) << key;
  {
    absl::StatusOr<SharedMemoryObject> object = SharedMemoryObject::Create(key, 10000);
    ASSERT_TRUE(object.ok()) << object.status();
    EXPECT_EQ(object->key(), key);
    EXPECT_EQ(object->size(), 10000u);
    for (uint8_t byte : object->bytes()) ASSERT_EQ(byte, 0);
    struct stat info {};
    ASSERT_EQ(stat(("/dev/shm" + key).c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600u);
    EXPECT_EQ(info.st_size, 10000);

    // Never reused: the key may be someone else's.
    absl::StatusOr<SharedMemoryObject> again = SharedMemoryObject::Create(key, 10);
    EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists) << again.status();
    EXPECT_THAT(again.status().message(), HasSubstr(key));

    // Moved, one owner: the moved-from object removes nothing.
    SharedMemoryObject moved = *std::move(object);
    EXPECT_TRUE(object->bytes().empty());  // a moved-from object is empty, not dangling
    EXPECT_EQ(moved.key(), key);
    moved.bytes()[9999] = 7;
  }
  const int fd = shm_open(key.c_str(), O_RDONLY, 0);
  EXPECT_LT(fd, 0) << "the object outlived its owner";
  if (fd >= 0) close(fd);
}

TEST(SharedMemoryObjectTest, RefusesKeysShmOpenWouldMisreadAndAZeroSize) {
  for (const std::string& key :
       std::vector<std::string>{"", "/", "no-slash", "/a/b", "/" + std::string(300, 'x')}) {
    absl::StatusOr<SharedMemoryObject> object = SharedMemoryObject::Create(key, 16);
    EXPECT_EQ(object.status().code(), absl::StatusCode::kInvalidArgument) << key;
  }
  absl::StatusOr<SharedMemoryObject> empty =
      SharedMemoryObject::Create(SharedMemoryObject::UniqueKey("ns-unit"), 0);
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SharedMemoryRequestTest, NativeRequestsNameRegionsAndAskForTheOutputsSentThere) {
  const std::vector<float> values = {1, 2};
  InferOptions options;
  options.output_shared_memory["probs"] = {"out", 64, 32};
  const v1::InferRequest request = BuildInferRequest(
      "m", {{"x", {1, 2}, {}, "float32", {}, SharedMemorySpan{"in", 8, 8}}, {"y", {1, 2}, values}},
      options);
  ASSERT_EQ(request.inputs_size(), 2);
  EXPECT_TRUE(request.inputs(0).has_shared_memory());
  EXPECT_EQ(request.inputs(0).shared_memory().region(), "in");
  EXPECT_EQ(request.inputs(0).shared_memory().offset(), 8u);
  EXPECT_EQ(request.inputs(0).shared_memory().byte_size(), 8u);
  EXPECT_TRUE(request.inputs(0).raw_data().empty());
  EXPECT_EQ(request.inputs(1).raw_data().size(), 8u);
  ASSERT_EQ(request.output_shared_memory_size(), 1);
  EXPECT_EQ(request.output_shared_memory(0).name(), "probs");
  EXPECT_EQ(request.output_shared_memory(0).shared_memory().region(), "out");
  // Only the output sent to shared memory is asked for (as over v2), not all of them.
  EXPECT_THAT(request.outputs(), ElementsAre("probs"));

  // Beside outputs asked for by name, once each.
  options.outputs = {"logits", "probs"};
  EXPECT_THAT(BuildInferRequest("m", {}, options).outputs(), ElementsAre("logits", "probs"));
  options.outputs = {"logits"};
  EXPECT_THAT(BuildInferRequest("m", {}, options).outputs(), ElementsAre("logits", "probs"));
}

TEST(SharedMemoryRequestTest, V2RequestsCarryTritonsParametersAndNoBytesForThoseInputs) {
  const std::vector<float> values = {1, 2};
  InferOptions options;
  options.protocol = Protocol::kV2;
  options.raw = false;  // any tensor in shared memory makes the request raw
  options.outputs = {"logits"};
  options.output_shared_memory["probs"] = {"out", 0, 32};
  const inference::ModelInferRequest request = BuildModelInferRequest(
      "m", {{"x", {1, 2}, {}, "float32", {}, SharedMemorySpan{"in", 8, 8}}, {"y", {1, 2}, values}},
      options);
  ASSERT_EQ(request.inputs_size(), 2);
  const auto& x = request.inputs(0).parameters();
  EXPECT_EQ(x.at("shared_memory_region").string_param(), "in");
  EXPECT_EQ(x.at("shared_memory_offset").int64_param(), 8);
  EXPECT_EQ(x.at("shared_memory_byte_size").int64_param(), 8);
  EXPECT_FALSE(request.inputs(0).has_contents());
  EXPECT_FALSE(request.inputs(1).has_contents());
  // One raw entry: the input not in shared memory.
  ASSERT_EQ(request.raw_input_contents_size(), 1);
  EXPECT_EQ(request.raw_input_contents(0).size(), 8u);
  ASSERT_EQ(request.outputs_size(), 2);
  EXPECT_EQ(request.outputs(0).name(), "logits");
  EXPECT_TRUE(request.outputs(0).parameters().empty());
  EXPECT_EQ(request.outputs(1).name(), "probs");
  EXPECT_EQ(request.outputs(1).parameters().at("shared_memory_region").string_param(), "out");
  // A zero offset is left out, as tritonclient leaves it.
  EXPECT_FALSE(request.outputs(1).parameters().contains("shared_memory_offset"));
}

TEST(SharedMemoryAnswerTest, OutputsInARegionDecodeToWhereTheyAreAndReadBack) {
  inference::ModelInferResponse response;
  auto* output = response.add_outputs();
  output->set_name("probs");
  output->set_datatype("FP16");
  output->add_shape(1);
  output->add_shape(3);
  response.add_raw_output_contents();  // empty: the output is in the region
  absl::StatusOr<InferResult> decoded =
      DecodeModelInferResponse(response, {{"probs", {"out", 4, 6}}});
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  OutputTensor& probs = decoded->outputs.at("probs");
  ASSERT_TRUE(probs.shared_memory.has_value());
  EXPECT_EQ(probs.shared_memory->region, "out");
  EXPECT_EQ(probs.dtype, "float16");
  EXPECT_THAT(probs.bytes, IsEmpty());

  // float16 1.0, -2.0, 0.5 at offset 4 of the caller's view of the region.
  std::vector<uint8_t> region(16, 0xee);
  const uint8_t halves[] = {0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38};
  std::memcpy(region.data() + 4, halves, sizeof(halves));
  ASSERT_TRUE(ReadSharedMemoryOutput(region, probs).ok());
  EXPECT_THAT(probs.values, ElementsAre(1.0f, -2.0f, 0.5f));
  EXPECT_EQ(probs.bytes.size(), 6u);

  // Bounds: the region given is too short, the span too small for the output.
  OutputTensor outside = decoded->outputs.at("probs");
  absl::Status short_region = ReadSharedMemoryOutput(absl::MakeSpan(region).first(8), outside);
  EXPECT_EQ(short_region.code(), absl::StatusCode::kOutOfRange) << short_region;
  EXPECT_THAT(short_region.message(), HasSubstr("region 'out'"));
  outside.shared_memory->byte_size = 4;
  EXPECT_EQ(ReadSharedMemoryOutput(region, outside).code(), absl::StatusCode::kOutOfRange);
  outside.shared_memory->byte_size = 6;
  outside.shared_memory->offset = UINT64_MAX - 2;  // offset + size overflows
  EXPECT_EQ(ReadSharedMemoryOutput(region, outside).code(), absl::StatusCode::kOutOfRange);
  OutputTensor in_answer;
  EXPECT_EQ(ReadSharedMemoryOutput(region, in_answer).code(),
            absl::StatusCode::kFailedPrecondition);

  // The native answer says itself; values beside a region are malformed.
  v1::InferResponse native;
  v1::OutputTensor* out = native.add_outputs();
  out->set_name("y");
  out->set_dtype("int64");
  out->add_shape(2);
  out->mutable_shared_memory()->set_region("r");
  out->mutable_shared_memory()->set_byte_size(16);
  absl::StatusOr<InferResult> native_decoded = DecodeInferResponse(native);
  ASSERT_TRUE(native_decoded.ok()) << native_decoded.status();
  EXPECT_EQ(native_decoded->outputs.at("y").shared_memory->region, "r");
  out->add_int64_data(1);
  out->add_int64_data(2);
  EXPECT_EQ(DecodeInferResponse(native).status().code(), absl::StatusCode::kInternal);
}

TEST(SharedMemoryInputTest, WritesTheBytesARawRequestWouldCarry) {
  std::vector<uint8_t> region(64, 0);
  const std::vector<float> values = {1.0f, -2.0f, 0.5f};
  absl::StatusOr<NamedTensor> placed =
      WriteSharedMemoryInput({"x", {1, 3}, values, "float16"}, absl::MakeSpan(region), "in", 10);
  ASSERT_TRUE(placed.ok()) << placed.status();
  EXPECT_EQ(placed->shared_memory->region, "in");
  EXPECT_EQ(placed->shared_memory->offset, 10u);
  EXPECT_EQ(placed->shared_memory->byte_size, 6u);
  EXPECT_TRUE(placed->values.empty());
  EXPECT_EQ(placed->dtype, "float16");
  // The raw request's bytes, exactly.
  const v1::InferRequest raw = BuildInferRequest("m", {{"x", {1, 3}, values, "float16"}}, {});
  EXPECT_EQ(std::string(region.begin() + 10, region.begin() + 16), raw.inputs(0).raw_data());

  // float32 values name their dtype in the request.
  absl::StatusOr<NamedTensor> floats =
      WriteSharedMemoryInput({"x", {1, 3}, values}, absl::MakeSpan(region), "in", 16);
  ASSERT_TRUE(floats.ok());
  EXPECT_EQ(floats->dtype, "float32");
  EXPECT_EQ(RawByteSize({"x", {1, 3}, values}), 12u);

  absl::StatusOr<NamedTensor> too_far =
      WriteSharedMemoryInput({"x", {1, 3}, values}, absl::MakeSpan(region), "in", 60);
  EXPECT_EQ(too_far.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(too_far.status().message(), HasSubstr("region 'in'"));
  EXPECT_EQ(WriteSharedMemoryInput(*placed, absl::MakeSpan(region), "in", 0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace neuronserve::client
