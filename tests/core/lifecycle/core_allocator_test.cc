#include "core/lifecycle/core_allocator.h"

#include <algorithm>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

MATCHER_P2(Range, start, count, "") { return arg.start == start && arg.count == count; }

MATCHER_P3(Holder, owner, placement_id, shared, "") {
  return arg.owner == owner && arg.placement_id == placement_id && arg.shared == shared;
}

PlacementRequest Count(const std::string& owner, uint32_t cores_per_replica, uint32_t replicas,
                       bool shared = false) {
  PlacementRequest request;
  request.owner = owner;
  request.cores_per_replica = cores_per_replica;
  request.replicas = replicas;
  request.shared = shared;
  return request;
}

PlacementRequest At(const std::string& owner, uint32_t cores_per_replica,
                    std::vector<uint32_t> start_cores, bool shared = false) {
  PlacementRequest request;
  request.owner = owner;
  request.cores_per_replica = cores_per_replica;
  request.start_cores = std::move(start_cores);
  request.shared = shared;
  return request;
}

// Allocates and fails the test if it does not succeed.
Placement MustAllocate(CoreAllocator& allocator, const PlacementRequest& request) {
  absl::StatusOr<Placement> placement = allocator.Allocate(request);
  EXPECT_TRUE(placement.ok()) << placement.status();
  return placement.ok() ? *std::move(placement) : Placement{};
}

std::vector<uint32_t> AllCores(uint32_t n) {
  std::vector<uint32_t> cores(n);
  for (uint32_t i = 0; i < n; ++i) cores[i] = i;
  return cores;
}

TEST(CoreAllocatorTest, StartsWithEveryCoreFree) {
  CoreAllocator allocator(4);
  EXPECT_EQ(allocator.core_count(), 4u);
  EXPECT_EQ(allocator.FreeCores(), AllCores(4));
  auto holders = allocator.Holders();
  ASSERT_EQ(holders.size(), 4u);
  for (const auto& core : holders) EXPECT_THAT(core, IsEmpty());
}

TEST(CoreAllocatorTest, FirstFitWithReplicas) {
  CoreAllocator allocator(4);
  Placement a = MustAllocate(allocator, Count("a", 1, 2));
  EXPECT_THAT(a.ranges, ElementsAre(Range(0u, 1u), Range(1u, 1u)));
  Placement b = MustAllocate(allocator, Count("b", 1, 1));
  EXPECT_THAT(b.ranges, ElementsAre(Range(2u, 1u)));
  EXPECT_EQ(allocator.FreeCores(), std::vector<uint32_t>{3});
}

TEST(CoreAllocatorTest, MultiCoreReplicasAreContiguousAndReuseTheLowestHole) {
  CoreAllocator allocator(4);
  Placement first = MustAllocate(allocator, Count("first", 2, 1));
  Placement second = MustAllocate(allocator, Count("second", 2, 1));
  EXPECT_THAT(first.ranges, ElementsAre(Range(0u, 2u)));
  EXPECT_THAT(second.ranges, ElementsAre(Range(2u, 2u)));
  EXPECT_THAT(allocator.FreeCores(), IsEmpty());

  allocator.Release(first.id);
  EXPECT_EQ(allocator.FreeCores(), (std::vector<uint32_t>{0, 1}));
  Placement third = MustAllocate(allocator, Count("third", 2, 1));
  EXPECT_THAT(third.ranges, ElementsAre(Range(0u, 2u)));
}

TEST(CoreAllocatorTest, TwoReplicasOfTwoCores) {
  CoreAllocator allocator(4);
  Placement p = MustAllocate(allocator, Count("m", 2, 2));
  EXPECT_THAT(p.ranges, ElementsAre(Range(0u, 2u), Range(2u, 2u)));
}

TEST(CoreAllocatorTest, FirstFitSkipsAHoleThatIsTooSmall) {
  CoreAllocator allocator(6);
  MustAllocate(allocator, At("x", 1, {1}));
  // Core 0 alone cannot hold 2 cores; the first fit is 2-3, then 4-5.
  Placement p = MustAllocate(allocator, Count("m", 2, 2));
  EXPECT_THAT(p.ranges, ElementsAre(Range(2u, 2u), Range(4u, 2u)));
}

TEST(CoreAllocatorTest, ExhaustionIsAllOrNothingAndNamesFreeCoresAndHolders) {
  CoreAllocator allocator(4);
  MustAllocate(allocator, At("resnet", 2, {1}));
  absl::StatusOr<Placement> p = allocator.Allocate(Count("bert", 1, 3));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(p.status().message(),
            "cannot place model 'bert': it asks for 3 replicas of 1 core and only 2 fit; free "
            "cores: 0, 3; cores 1-2 held by 'resnet'");
  // The two replicas that would have fit were not reserved.
  EXPECT_EQ(allocator.FreeCores(), (std::vector<uint32_t>{0, 3}));
  EXPECT_THAT(allocator.Holders()[0], IsEmpty());
}

TEST(CoreAllocatorTest, ExhaustionOfMultiCoreReplicas) {
  CoreAllocator allocator(4);
  MustAllocate(allocator, Count("resnet", 2, 1));
  absl::StatusOr<Placement> p = allocator.Allocate(Count("bert", 2, 3));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(p.status().message(),
              HasSubstr("model 'bert': it asks for 3 replicas of 2 contiguous cores and only 1 "
                        "fit"));
  EXPECT_THAT(p.status().message(), HasSubstr("free cores: 2-3"));
  EXPECT_THAT(p.status().message(), HasSubstr("cores 0-1 held by 'resnet'"));
  EXPECT_EQ(allocator.FreeCores(), (std::vector<uint32_t>{2, 3}));
}

TEST(CoreAllocatorTest, NoFreeCoresAtAll) {
  CoreAllocator allocator(2);
  MustAllocate(allocator, Count("a", 1, 1));
  MustAllocate(allocator, Count("b", 1, 1));
  absl::StatusOr<Placement> p = allocator.Allocate(Count("c", 1, 1));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(p.status().message(),
            "cannot place model 'c': it asks for 1 replica of 1 core and none fits; no free "
            "cores; core 0 held by 'a'; core 1 held by 'b'");
}

TEST(CoreAllocatorTest, FragmentationIsExplained) {
  CoreAllocator allocator(4);
  MustAllocate(allocator, At("a", 1, {1}));
  MustAllocate(allocator, At("b", 1, {3}));
  ASSERT_EQ(allocator.FreeCores(), (std::vector<uint32_t>{0, 2}));
  absl::StatusOr<Placement> p = allocator.Allocate(Count("m", 2, 1));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(p.status().message(), HasSubstr("1 replica of 2 contiguous cores and none fits"));
  EXPECT_THAT(p.status().message(), HasSubstr("free cores: 0, 2"));
  EXPECT_THAT(p.status().message(), HasSubstr("core 1 held by 'a'; core 3 held by 'b'"));
  EXPECT_THAT(p.status().message(),
              HasSubstr("fragmented: there are 2, enough in number, but each replica needs 2 "
                        "adjacent ones"));
}

TEST(CoreAllocatorTest, NoFragmentationHintWhenThereAreTooFewCores) {
  CoreAllocator allocator(4);
  MustAllocate(allocator, At("a", 1, {0, 1, 3}));
  absl::StatusOr<Placement> p = allocator.Allocate(Count("m", 2, 1));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(p.status().message(), HasSubstr("free cores: 2"));
  EXPECT_THAT(p.status().message(), ::testing::Not(HasSubstr("fragmented")));
}

TEST(CoreAllocatorTest, ExplicitStartCores) {
  CoreAllocator allocator(8);
  Placement p = MustAllocate(allocator, At("m", 2, {6, 2}));
  EXPECT_THAT(p.ranges, ElementsAre(Range(6u, 2u), Range(2u, 2u)));
  EXPECT_EQ(allocator.FreeCores(), (std::vector<uint32_t>{0, 1, 4, 5}));
}

TEST(CoreAllocatorTest, ExplicitStartCoreOutOfRange) {
  CoreAllocator allocator(4);
  absl::StatusOr<Placement> p = allocator.Allocate(At("bert", 2, {0, 3}));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p.status().message(),
            "model 'bert': start core 3 is out of range: a replica needs 2 cores and the machine "
            "has 4 cores (0-3)");
  p = allocator.Allocate(At("bert", 1, {4}));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(p.status().message(), HasSubstr("start core 4 is out of range"));
  // A start core near UINT32_MAX must not wrap around into range.
  p = allocator.Allocate(At("bert", 2, {UINT32_MAX}));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(allocator.FreeCores(), AllCores(4));
}

TEST(CoreAllocatorTest, ExplicitStartCoresOverlappingEachOther) {
  CoreAllocator allocator(4);
  absl::StatusOr<Placement> p = allocator.Allocate(At("bert", 2, {0, 1}));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p.status().message(),
            "model 'bert': start cores 0 and 1 overlap: with 2 cores per replica both use core 1");
  p = allocator.Allocate(At("bert", 1, {2, 2}));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(p.status().message(), HasSubstr("start cores 2 and 2 overlap"));
  EXPECT_EQ(allocator.FreeCores(), AllCores(4));
}

TEST(CoreAllocatorTest, ExplicitStartCoreTaken) {
  CoreAllocator allocator(4);
  MustAllocate(allocator, At("resnet", 1, {3}));
  absl::StatusOr<Placement> p = allocator.Allocate(At("bert", 2, {0, 2}));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(p.status().message(),
              HasSubstr("cannot place model 'bert' at start core 2: core 3 is held by 'resnet' "
                        "(exclusive)"));
  // All-or-nothing: the first range, which was free, was not reserved.
  EXPECT_EQ(allocator.FreeCores(), (std::vector<uint32_t>{0, 1, 2}));
}

TEST(CoreAllocatorTest, SharedWithSharedIsAllowed) {
  CoreAllocator allocator(2);
  Placement a = MustAllocate(allocator, Count("a", 1, 2, /*shared=*/true));
  Placement b = MustAllocate(allocator, Count("b", 1, 2, /*shared=*/true));
  EXPECT_THAT(b.ranges, ElementsAre(Range(0u, 1u), Range(1u, 1u)));
  auto holders = allocator.Holders();
  EXPECT_THAT(holders[0], ElementsAre(Holder("a", a.id, true), Holder("b", b.id, true)));
  EXPECT_THAT(holders[1], ElementsAre(Holder("a", a.id, true), Holder("b", b.id, true)));
  MustAllocate(allocator, At("c", 1, {1}, /*shared=*/true));
}

TEST(CoreAllocatorTest, SharedOntoExclusiveIsRefused) {
  CoreAllocator allocator(2);
  MustAllocate(allocator, At("a", 1, {0}));
  // Count mode steps around the exclusive core.
  Placement b = MustAllocate(allocator, Count("b", 1, 1, /*shared=*/true));
  EXPECT_THAT(b.ranges, ElementsAre(Range(1u, 1u)));
  absl::StatusOr<Placement> p = allocator.Allocate(At("c", 1, {0}, /*shared=*/true));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(p.status().message(), HasSubstr("core 0 is held by 'a' (exclusive)"));
  p = allocator.Allocate(Count("c", 1, 2, /*shared=*/true));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(p.status().message(), HasSubstr("only 1 fit"));
  EXPECT_THAT(p.status().message(),
              HasSubstr("no free cores; core 0 held by 'a'; core 1 held by 'b' (shared)"));
}

TEST(CoreAllocatorTest, ExclusiveOntoSharedIsRefused) {
  CoreAllocator allocator(2);
  MustAllocate(allocator, At("a", 1, {0}, /*shared=*/true));
  absl::StatusOr<Placement> p = allocator.Allocate(At("b", 1, {0}));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(p.status().message(),
              HasSubstr("core 0 is held by 'a' (shared, but this request is exclusive)"));
  p = allocator.Allocate(Count("b", 1, 2));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(p.status().message(), HasSubstr("free cores: 1; core 0 held by 'a' (shared)"));
  Placement b = MustAllocate(allocator, Count("b", 1, 1));
  EXPECT_THAT(b.ranges, ElementsAre(Range(1u, 1u)));
}

TEST(CoreAllocatorTest, SameOwnerMayOverlapForReplacement) {
  CoreAllocator allocator(2);
  Placement v1 = MustAllocate(allocator, Count("bert", 2, 1));
  // The new version loads on the same cores while the old one is still there.
  Placement v2 = MustAllocate(allocator, Count("bert", 2, 1));
  EXPECT_THAT(v2.ranges, ElementsAre(Range(0u, 2u)));
  EXPECT_THAT(allocator.Holders()[1],
              ElementsAre(Holder("bert", v1.id, false), Holder("bert", v2.id, false)));
  // Another model still cannot get in.
  EXPECT_EQ(allocator.Allocate(Count("other", 1, 1)).status().code(),
            absl::StatusCode::kResourceExhausted);
  allocator.Release(v1.id);
  EXPECT_THAT(allocator.Holders()[0], ElementsAre(Holder("bert", v2.id, false)));
  EXPECT_THAT(allocator.FreeCores(), IsEmpty());
  allocator.Release(v2.id);
  EXPECT_EQ(allocator.FreeCores(), AllCores(2));
}

TEST(CoreAllocatorTest, SameOwnerOverlapCountsItsCoresOnceInMessages) {
  CoreAllocator allocator(2);
  MustAllocate(allocator, Count("bert", 1, 1));
  MustAllocate(allocator, Count("bert", 1, 1));
  MustAllocate(allocator, Count("gpt", 1, 1));
  absl::StatusOr<Placement> p = allocator.Allocate(Count("x", 1, 1));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(p.status().message(), HasSubstr("core 0 held by 'bert'; core 1 held by 'gpt'"));
}

TEST(CoreAllocatorTest, ReleaseReturnsCoresAndIgnoresUnknownIds) {
  CoreAllocator allocator(4);
  Placement a = MustAllocate(allocator, Count("a", 1, 3));
  Placement b = MustAllocate(allocator, Count("b", 1, 1));
  EXPECT_THAT(allocator.FreeCores(), IsEmpty());
  allocator.Release(a.id);
  EXPECT_EQ(allocator.FreeCores(), (std::vector<uint32_t>{0, 1, 2}));
  allocator.Release(a.id);  // twice: no-op
  allocator.Release(0);
  allocator.Release(b.id + 1000);
  EXPECT_EQ(allocator.FreeCores(), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_THAT(allocator.Holders()[3], ElementsAre(Holder("b", b.id, false)));
  allocator.Release(b.id);
  EXPECT_EQ(allocator.FreeCores(), AllCores(4));
}

TEST(CoreAllocatorTest, HoldersListsEveryPlacementPerCore) {
  CoreAllocator allocator(4);
  Placement a = MustAllocate(allocator, At("a", 2, {0}, /*shared=*/true));
  Placement b = MustAllocate(allocator, At("b", 1, {1}, /*shared=*/true));
  Placement c = MustAllocate(allocator, At("c", 1, {3}));
  auto holders = allocator.Holders();
  ASSERT_EQ(holders.size(), 4u);
  EXPECT_THAT(holders[0], ElementsAre(Holder("a", a.id, true)));
  EXPECT_THAT(holders[1], ElementsAre(Holder("a", a.id, true), Holder("b", b.id, true)));
  EXPECT_THAT(holders[2], IsEmpty());
  EXPECT_THAT(holders[3], ElementsAre(Holder("c", c.id, false)));
  EXPECT_EQ(allocator.FreeCores(), std::vector<uint32_t>{2});
}

TEST(CoreAllocatorTest, InvalidRequests) {
  CoreAllocator allocator(4);
  absl::StatusOr<Placement> p = allocator.Allocate(Count("", 1, 1));
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(p.status().message(), HasSubstr("no owner"));

  p = allocator.Allocate(Count("m", 0, 1));
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(p.status().message(), HasSubstr("cores per replica must be at least 1"));

  p = allocator.Allocate(Count("m", 1, 0));
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(p.status().message(), HasSubstr("replicas must be at least 1"));

  p = allocator.Allocate(Count("m", 8, 1));
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p.status().message(), "model 'm' needs 8 cores per replica, the machine has 4 cores");

  p = allocator.Allocate(At("m", 5, {0}));
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(p.status().message(), HasSubstr("needs 5 cores per replica"));

  // replicas is ignored when start cores are given.
  PlacementRequest explicit_request = At("m", 1, {2});
  explicit_request.replicas = 0;
  EXPECT_TRUE(allocator.Allocate(explicit_request).ok());

  CoreAllocator empty(0);
  p = empty.Allocate(Count("m", 1, 1));
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(p.status().message(), HasSubstr("the machine has 0 cores"));
  EXPECT_THAT(empty.FreeCores(), IsEmpty());
}

TEST(CoreAllocatorTest, HugeReplicaCountFailsQuickly) {
  CoreAllocator allocator(4);
  absl::StatusOr<Placement> p = allocator.Allocate(Count("m", 1, UINT32_MAX));
  ASSERT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(p.status().message(), HasSubstr("4294967295 replicas of 1 core and only 4 fit"));
  EXPECT_EQ(allocator.FreeCores(), AllCores(4));
}

TEST(CoreAllocatorTest, IdsAreUniqueAndNeverReused) {
  std::set<uint64_t> ids;
  CoreAllocator allocator(2);
  for (int i = 0; i < 100; ++i) {
    Placement p = MustAllocate(allocator, Count("m", 1, 2));
    EXPECT_NE(p.id, 0u);
    EXPECT_TRUE(ids.insert(p.id).second) << "id " << p.id << " handed out twice";
    allocator.Release(p.id);
  }
  // A second allocator does not restart the sequence either.
  CoreAllocator other(2);
  Placement p = MustAllocate(other, Count("m", 1, 1));
  EXPECT_TRUE(ids.insert(p.id).second);
}

// Checks the sharing rule on a snapshot: two holders of one core with different owners are
// both shared. Returns a description of the first violation, or "".
std::string FindViolation(const std::vector<std::vector<CoreHolder>>& holders) {
  for (size_t core = 0; core < holders.size(); ++core) {
    for (const CoreHolder& a : holders[core]) {
      for (const CoreHolder& b : holders[core]) {
        if (a.owner != b.owner && !(a.shared && b.shared)) {
          return "core " + std::to_string(core) + " held by '" + a.owner + "' and '" + b.owner +
                 "', not both shared";
        }
      }
    }
  }
  return "";
}

// Several threads allocate and release at random while another thread reads snapshots. Under
// ThreadSanitizer this exercises every method concurrently with every other.
TEST(CoreAllocatorTest, ConcurrentAllocateAndRelease) {
  constexpr uint32_t kCores = 8;
  constexpr int kThreads = 4;
  constexpr int kOpsPerThread = 5000;
  CoreAllocator allocator(kCores);
  const std::vector<std::string> owners = {"a", "b", "c", "d", "e"};

  std::atomic<bool> done{false};
  std::atomic<int> violations{0};
  std::string first_violation;  // written only by the reader thread
  std::thread reader([&] {
    while (!done.load()) {
      std::string violation = FindViolation(allocator.Holders());
      if (!violation.empty() && violations.fetch_add(1) == 0) first_violation = violation;
      allocator.FreeCores();
    }
  });

  std::vector<std::vector<uint64_t>> ids(kThreads);
  std::vector<int> successes(kThreads, 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      std::mt19937 random(1234 + t);
      std::vector<Placement> mine;
      for (int op = 0; op < kOpsPerThread; ++op) {
        if (!mine.empty() && random() % 2 == 0) {
          size_t victim = random() % mine.size();
          allocator.Release(mine[victim].id);
          mine.erase(mine.begin() + victim);
          continue;
        }
        PlacementRequest request;
        request.owner = owners[random() % owners.size()];
        request.shared = random() % 2 == 0;
        request.cores_per_replica = 1 + random() % 3;
        if (random() % 4 == 0) {
          request.start_cores.push_back(random() % kCores);
        } else {
          request.replicas = 1 + random() % 2;
        }
        absl::StatusOr<Placement> placement = allocator.Allocate(request);
        if (!placement.ok()) {
          // Only "no room" and an explicit range that leaves the machine can happen here.
          EXPECT_TRUE(placement.status().code() == absl::StatusCode::kResourceExhausted ||
                      placement.status().code() == absl::StatusCode::kInvalidArgument)
              << placement.status();
          continue;
        }
        ++successes[t];
        ids[t].push_back(placement->id);
        // This thread alone releases its placements, so they must all be visible now.
        auto holders = allocator.Holders();
        for (const CoreRange& range : placement->ranges) {
          for (uint32_t core = range.start; core < range.start + range.count; ++core) {
            EXPECT_TRUE(
                std::any_of(holders[core].begin(), holders[core].end(),
                            [&](const CoreHolder& h) { return h.placement_id == placement->id; }));
          }
        }
        mine.push_back(*std::move(placement));
      }
      for (const Placement& placement : mine) allocator.Release(placement.id);
    });
  }
  for (std::thread& worker : workers) worker.join();
  done.store(true);
  reader.join();

  EXPECT_EQ(violations.load(), 0) << first_violation;
  std::set<uint64_t> unique;
  size_t total = 0;
  for (const auto& list : ids) {
    unique.insert(list.begin(), list.end());
    total += list.size();
  }
  EXPECT_EQ(unique.size(), total) << "an id was handed out twice";
  // The random mix must actually have allocated, or the test proves nothing.
  for (int t = 0; t < kThreads; ++t) EXPECT_GT(successes[t], kOpsPerThread / 10) << "thread " << t;
  EXPECT_EQ(allocator.FreeCores(), AllCores(kCores));
  for (const auto& core : allocator.Holders()) EXPECT_THAT(core, IsEmpty());
}

}  // namespace
}  // namespace neuronserve
