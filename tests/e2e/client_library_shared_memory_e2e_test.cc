// The client library's shared memory against the real daemon, on both protocols: an object made
// with SharedMemoryObject, registered with Client::RegisterSharedMemory, inputs written with
// WriteSharedMemoryInput and outputs read back with ReadSharedMemoryOutput give the bytes the
// request path gives for every dtype; SharedMemoryStatus and UnregisterSharedMemory see one
// registry behind both APIs; and an InferSession of either protocol reads each answer's outputs
// from its own request's area.
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
#include "client/lib/shared_memory_tensors.h"
#include "client/shared_memory/shared_memory_object.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/dtype_samples.h"
#include "tests/e2e/library_client.h"
#include "tests/e2e/lifecycle_client.h"

namespace neuronserve::testing {
// Named, not anonymous: the e2e target compiles its files in unity batches.
namespace client_library_shared_memory_e2e {

using client::Client;
using client::InferOptions;
using client::InferResult;
using client::NamedTensor;
using client::Protocol;
using client::SharedMemoryObject;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const char* NameOf(Protocol protocol) { return protocol == Protocol::kV2 ? "v2" : "native"; }

TEST(ClientLibrarySharedMemoryE2ETest, TensorsOfEveryDtypeTravelThroughARegisteredObject) {
  START_DAEMON(daemon, SimDaemonArgs({"--allow-client-shared-memory"}));
  std::unique_ptr<Client> client = ConnectLibraryClient(daemon->address);
  ASSERT_NE(client, nullptr);
  for (DataType type : kEveryDtype) {
    LoadIdentity(*daemon->stub, type, {2, 3});
    if (HasFatalFailure()) return;
  }
  absl::StatusOr<SharedMemoryObject> object =
      SharedMemoryObject::Create(SharedMemoryObject::UniqueKey("ns-client-test"), 64 * 1024);
  ASSERT_TRUE(object.ok()) << object.status();
  // The region starts 100 bytes into the object: offsets are the region's, not the object's.
  constexpr uint64_t kRegionStart = 100;
  const absl::Span<uint8_t> region = object->bytes().subspan(kRegionStart);

  for (Protocol protocol : {Protocol::kNative, Protocol::kV2}) {
    SCOPED_TRACE(NameOf(protocol));
    const std::string name = absl::StrCat("tensors-", NameOf(protocol));
    ASSERT_TRUE(
        client->RegisterSharedMemory(name, object->key(), kRegionStart, region.size(), protocol)
            .ok());
    // Both APIs see the region (one registry), named and keyed as registered.
    for (Protocol either : {Protocol::kNative, Protocol::kV2}) {
      absl::StatusOr<std::vector<client::SharedMemoryRegionStatus>> status =
          client->SharedMemoryStatus(name, either);
      ASSERT_TRUE(status.ok()) << status.status();
      ASSERT_EQ(status->size(), 1u);
      EXPECT_EQ((*status)[0].name, name);
      EXPECT_EQ((*status)[0].key, object->key());
      EXPECT_EQ((*status)[0].offset, kRegionStart);
      EXPECT_EQ((*status)[0].byte_size, region.size());
    }

    for (DataType type : kEveryDtype) {
      const std::string dtype(DataTypeName(type));
      SCOPED_TRACE(dtype);
      const std::string elements = ElementBytes(type, SampleValues(type));
      const std::vector<uint8_t> bytes(elements.begin(), elements.end());
      const NamedTensor in_request{"input", {2, 3}, {}, dtype, bytes};
      // Input at 4096 + 1 (not aligned, on purpose), output area at 8192.
      absl::StatusOr<NamedTensor> in_region =
          client::WriteSharedMemoryInput(in_request, region, name, 4097);
      ASSERT_TRUE(in_region.ok()) << in_region.status();
      ASSERT_TRUE(in_region->shared_memory.has_value());
      EXPECT_EQ(in_region->shared_memory->byte_size, bytes.size());
      InferOptions options;
      options.protocol = protocol;
      options.output_shared_memory["output"] = {name, 8192, 4096};
      absl::StatusOr<InferResult> result = client->Infer(ModelNameFor(type), {*in_region}, options);
      ASSERT_TRUE(result.ok()) << result.status();
      client::OutputTensor& output = result->outputs.at("output");
      // Nothing came in the answer but where the output went.
      ASSERT_TRUE(output.shared_memory.has_value());
      EXPECT_EQ(output.shared_memory->region, name);
      EXPECT_EQ(output.shared_memory->offset, 8192u);
      EXPECT_THAT(output.bytes, IsEmpty());
      EXPECT_EQ(output.dtype, dtype);
      EXPECT_THAT(output.shape, ElementsAre(2u, 3u));
      ASSERT_TRUE(client::ReadSharedMemoryOutput(region, output).ok());
      EXPECT_EQ(output.bytes, bytes);

      // The same as the request path, values included.
      InferOptions plain;
      plain.protocol = protocol;
      absl::StatusOr<InferResult> same = client->Infer(ModelNameFor(type), {in_request}, plain);
      ASSERT_TRUE(same.ok()) << same.status();
      EXPECT_EQ(same->outputs.at("output").bytes, output.bytes);
      EXPECT_EQ(same->outputs.at("output").values, output.values);
      EXPECT_FALSE(same->outputs.at("output").shared_memory.has_value());
    }

    // float32 numbers written as float16 (round to nearest even), as a raw request sends them.
    const std::vector<float> halves = {1.0f, 0.333333f, -2.5f, 65504.0f, 1e-8f, 3.0f};
    absl::StatusOr<NamedTensor> converted =
        client::WriteSharedMemoryInput({"input", {2, 3}, halves, "float16"}, region, name, 0);
    ASSERT_TRUE(converted.ok()) << converted.status();
    EXPECT_EQ(converted->shared_memory->byte_size, 12u);
    InferOptions options;
    options.protocol = protocol;
    absl::StatusOr<InferResult> from_region =
        client->Infer(ModelNameFor(DataType::kFloat16), {*converted}, options);
    absl::StatusOr<InferResult> from_request = client->Infer(
        ModelNameFor(DataType::kFloat16), {{"input", {2, 3}, halves, "float16"}}, options);
    ASSERT_TRUE(from_region.ok()) << from_region.status();
    ASSERT_TRUE(from_request.ok()) << from_request.status();
    EXPECT_EQ(from_region->outputs.at("output").values, from_request->outputs.at("output").values);

    // A span too small for the output: the server's refusal, naming the region.
    absl::StatusOr<NamedTensor> floats =
        client::WriteSharedMemoryInput({"input", {2, 3}, halves}, region, name, 0);
    ASSERT_TRUE(floats.ok()) << floats.status();
    InferOptions small = options;
    small.output_shared_memory["output"] = {name, 8192, 4};
    absl::StatusOr<InferResult> refused =
        client->Infer(ModelNameFor(DataType::kFloat32), {*floats}, small);
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument) << refused.status();
    EXPECT_THAT(refused.status().message(), HasSubstr(name));

    ASSERT_TRUE(client->UnregisterSharedMemory(name, protocol).ok());
    absl::StatusOr<std::vector<client::SharedMemoryRegionStatus>> gone =
        client->SharedMemoryStatus(name, protocol);
    EXPECT_EQ(gone.status().code(), absl::StatusCode::kNotFound) << gone.status();
    // Unregistering what is not there is no error.
    EXPECT_TRUE(client->UnregisterSharedMemory(name, protocol).ok());
  }
}

TEST(ClientLibrarySharedMemoryE2ETest, SessionsReadEachAnswerFromItsOwnRequestsArea) {
  START_DAEMON(daemon, SimDaemonArgs({"--allow-client-shared-memory"}));
  std::unique_ptr<Client> client = ConnectLibraryClient(daemon->address);
  ASSERT_NE(client, nullptr);
  LoadIdentity(*daemon->stub, DataType::kFloat32, {1, 4});
  if (HasFatalFailure()) return;
  const std::string model = ModelNameFor(DataType::kFloat32);
  constexpr int kRequests = 16;
  constexpr uint64_t kArea = 64;
  absl::StatusOr<SharedMemoryObject> object = SharedMemoryObject::Create(
      SharedMemoryObject::UniqueKey("ns-client-test"), 2 * kRequests * kArea);
  ASSERT_TRUE(object.ok()) << object.status();

  for (Protocol protocol : {Protocol::kNative, Protocol::kV2}) {
    SCOPED_TRACE(NameOf(protocol));
    ASSERT_TRUE(
        client->RegisterSharedMemory("session", object->key(), 0, object->size(), protocol).ok());
    absl::StatusOr<std::unique_ptr<client::InferSession>> opened =
        client->OpenStream(absl::ZeroDuration(), protocol);
    ASSERT_TRUE(opened.ok()) << opened.status();
    client::InferSession& session = **opened;
    // Request i: input in area i, output in area kRequests + i.
    std::vector<std::vector<float>> inputs(kRequests);
    std::map<std::string, int> sent;
    for (int i = 0; i < kRequests; ++i) {
      const float base = static_cast<float>(i + (protocol == Protocol::kV2 ? 100 : 0));
      inputs[i] = {base, base + 0.25f, -base, base * 3};
      absl::StatusOr<NamedTensor> placed = client::WriteSharedMemoryInput(
          {"input", {1, 4}, inputs[i]}, object->bytes(), "session", i * kArea);
      ASSERT_TRUE(placed.ok()) << placed.status();
      InferOptions options;
      options.protocol = protocol;
      options.output_shared_memory["output"] = {"session", (kRequests + i) * kArea, kArea};
      absl::StatusOr<std::string> id = session.Send(model, {*placed}, options);
      ASSERT_TRUE(id.ok()) << id.status();
      sent[*id] = i;
    }
    ASSERT_TRUE(session.CloseSend().ok());
    int answered = 0;
    while (true) {
      absl::StatusOr<std::optional<client::InferStreamResult>> next = session.Receive();
      ASSERT_TRUE(next.ok()) << next.status();
      if (!next->has_value()) break;
      client::InferStreamResult& result = **next;
      ASSERT_TRUE(result.status.ok()) << result.status;
      ASSERT_TRUE(sent.contains(result.id)) << result.id;
      const int i = sent.at(result.id);
      client::OutputTensor& output = result.result.outputs.at("output");
      ASSERT_TRUE(output.shared_memory.has_value()) << result.id;
      EXPECT_EQ(output.shared_memory->offset, (kRequests + i) * kArea);
      ASSERT_TRUE(client::ReadSharedMemoryOutput(object->bytes(), output).ok());
      EXPECT_THAT(output.values, ElementsAreArray(inputs[i])) << result.id;
      sent.erase(result.id);
      ++answered;
    }
    EXPECT_TRUE(session.Finish().ok()) << session.Finish();
    EXPECT_EQ(answered, kRequests);
    EXPECT_THAT(sent, IsEmpty());
    ASSERT_TRUE(client->UnregisterSharedMemory("session", protocol).ok());
  }
}

}  // namespace client_library_shared_memory_e2e
}  // namespace neuronserve::testing
