#include "server/shared_memory/shared_memory_registry.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/shm_object.h"

namespace neuronserve {
namespace {

using ::neuronserve::testing::ShmObject;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

SharedMemoryPolicy Allowed() {
  SharedMemoryPolicy policy;
  policy.allow_client = true;
  return policy;
}

TEST(SharedMemoryRegistryTest, OffByDefaultAndTheRefusalNamesTheFlag) {
  ShmObject object(4096);
  ASSERT_TRUE(object.ok());
  SharedMemoryRegistry registry{SharedMemoryPolicy{}};
  const absl::Status refused = registry.Register("r", object.key(), 0, 4096);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("--allow-client-shared-memory"));
  EXPECT_EQ(registry.registered(), 0u);
}

TEST(SharedMemoryRegistryTest, RegistersFindsReportsAndUnregisters) {
  ShmObject object(8192);
  ASSERT_TRUE(object.ok());
  SharedMemoryRegistry registry(Allowed());
  ASSERT_TRUE(registry.Register("in", object.key(), 0, 4096).ok());
  ASSERT_TRUE(registry.Register("out", object.key(), 4096, 4096).ok());
  EXPECT_EQ(registry.registered(), 2u);

  auto all = registry.Status("");
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].name, "in");
  EXPECT_EQ((*all)[0].key, object.key());
  EXPECT_EQ((*all)[1].name, "out");
  EXPECT_EQ((*all)[1].offset, 4096u);
  EXPECT_EQ((*all)[1].byte_size, 4096u);
  auto one = registry.Status("out");
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  auto unknown = registry.Status("nope");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unknown.status().message(), HasSubstr("'nope'"));

  std::shared_ptr<const SharedMemoryRegion> out = registry.Find("out");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ((*out->Slice(0, 1, "output 'y'"))[0], ShmObject::Expected(4096));
  EXPECT_EQ(registry.Find("nope"), nullptr);

  EXPECT_THAT(registry.Unregister("in"), ElementsAre("in"));
  EXPECT_THAT(registry.Unregister("in"), IsEmpty());  // idempotent
  EXPECT_EQ(registry.Find("in"), nullptr);
  EXPECT_THAT(registry.Unregister(""), ElementsAre("out"));
  EXPECT_EQ(registry.registered(), 0u);
}

TEST(SharedMemoryRegistryTest, ANameIsRegisteredOnce) {
  ShmObject object(4096);
  ASSERT_TRUE(object.ok());
  SharedMemoryRegistry registry(Allowed());
  ASSERT_TRUE(registry.Register("r", object.key(), 0, 4096).ok());
  const absl::Status again = registry.Register("r", object.key(), 0, 1024);
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(again.message(), HasSubstr("'r'"));
  EXPECT_EQ(registry.Register("", object.key(), 0, 1).code(), absl::StatusCode::kInvalidArgument);
}

TEST(SharedMemoryRegistryTest, APrefixConfinesKeysAndTheRefusalNamesNeither) {
  ShmObject object(4096);
  ASSERT_TRUE(object.ok());
  SharedMemoryPolicy policy = Allowed();
  policy.key_prefix = "/neuron-serve-test-";  // a leading '/' or not: both compare stripped
  SharedMemoryRegistry registry(policy);
  EXPECT_TRUE(registry.Register("ok", object.key(), 0, 4096).ok());
  EXPECT_TRUE(registry.Register("ok2", object.key().substr(1), 0, 4096).ok());

  policy.key_prefix = "app-";
  SharedMemoryRegistry confined(policy);
  const absl::Status outside = confined.Register("r", object.key(), 0, 4096);
  EXPECT_EQ(outside.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(outside.message(), HasSubstr("--shared-memory-key-prefix"));
  EXPECT_THAT(outside.message(), Not(HasSubstr("neuron-serve-test")));
  EXPECT_THAT(outside.message(), Not(HasSubstr("app-")));
}

TEST(SharedMemoryRegistryTest, LimitsCountRegionsAndBytesStillMappedByRequests) {
  ShmObject object(8192);
  ASSERT_TRUE(object.ok());
  SharedMemoryPolicy policy = Allowed();
  policy.max_regions = 2;
  policy.max_bytes = 8192;
  SharedMemoryRegistry registry(policy);
  ASSERT_TRUE(registry.Register("a", object.key(), 0, 4096).ok());
  const absl::Status too_big = registry.Register("b", object.key(), 0, 8192);
  EXPECT_EQ(too_big.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(too_big.message(), HasSubstr("--shared-memory-max-bytes"));
  ASSERT_TRUE(registry.Register("b", object.key(), 4096, 4096).ok());
  const absl::Status too_many = registry.Register("c", object.key(), 0, 1);
  EXPECT_EQ(too_many.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(too_many.message(), HasSubstr("--shared-memory-max-regions"));

  // A request still holds "a": unregistered, it still counts until the request lets go.
  std::shared_ptr<const SharedMemoryRegion> held = registry.Find("a");
  registry.Unregister("a");
  EXPECT_EQ(registry.draining(), 1u);
  EXPECT_EQ(registry.Register("c", object.key(), 0, 1).code(),
            absl::StatusCode::kResourceExhausted);
  held.reset();
  EXPECT_EQ(registry.draining(), 0u);
  EXPECT_TRUE(registry.Register("c", object.key(), 0, 1).ok());
}

TEST(SharedMemoryRegistryTest, UnregisteringWhileARequestHoldsTheRegionKeepsItsMapping) {
  ShmObject object(4096);
  ASSERT_TRUE(object.ok());
  SharedMemoryRegistry registry(Allowed());
  ASSERT_TRUE(registry.Register("r", object.key(), 0, 4096).ok());
  std::shared_ptr<const SharedMemoryRegion> held = registry.Find("r");
  ASSERT_THAT(registry.Unregister("r"), ElementsAre("r"));
  EXPECT_EQ(registry.Find("r"), nullptr);  // new requests no longer find it
  // The request's bytes are still mapped, and its writes still reach the client.
  absl::Span<uint8_t> bytes = *held->Slice(0, 4096, "output 'y'");
  bytes[10] = 0xEE;
  EXPECT_EQ(object.bytes()[10], 0xEE);
  // The name is free again at once.
  EXPECT_TRUE(registry.Register("r", object.key(), 0, 16).ok());
}

// Under ThreadSanitizer: registrations, lookups, uses and unregistrations from many threads, as
// the front ends' threads and the core workers make them.
TEST(SharedMemoryRegistryTest, ConcurrentRegisterFindUseAndUnregister) {
  ShmObject object(64 * 1024);
  ASSERT_TRUE(object.ok());
  SharedMemoryRegistry registry(Allowed());
  constexpr int kThreads = 4;
  constexpr int kRounds = 200;
  std::atomic<int> used{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        const std::string name = absl::StrCat("r", (t + i) % 3);
        (void)registry.Register(name, object.key(), 4096 * (i % 4), 4096);
        if (std::shared_ptr<const SharedMemoryRegion> region = registry.Find(name)) {
          absl::Span<uint8_t> bytes = *region->Slice(0, 4096, "input 'x'");
          volatile uint8_t first = bytes[0];
          (void)first;
          used.fetch_add(1, std::memory_order_relaxed);
        }
        if (i % 5 == t) registry.Unregister(i % 2 == 0 ? name : "");
        (void)registry.Status("");
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_GT(used.load(), 0);
  registry.Unregister("");
  EXPECT_EQ(registry.registered(), 0u);
  EXPECT_EQ(registry.draining(), 0u);
}

}  // namespace
}  // namespace neuronserve
