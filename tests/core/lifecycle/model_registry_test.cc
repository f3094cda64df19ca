#include "core/lifecycle/model_registry.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "absl/strings/str_cat.h"
#include "base/mutex.h"
#include "core/lifecycle/model_store.h"
#include "core/serving/execution/worker_pool.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/sim_fixture.h"
#include "tests/support/temp_dir.h"
#include "util/sha256.h"

namespace neuronserve {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::ReluNeff;
using testing::SimStats;
using ::testing::StartsWith;

LoadSpec Spec(const std::string& name, const std::string& version = "",
              std::shared_ptr<const std::string> neff = ReluNeff()) {
  LoadSpec spec;
  spec.identity = ModelIdentity{name, version, ModelSource::kUpload};
  spec.neff = std::move(neff);
  return spec;
}

absl::StatusOr<ModelInfo> LoadSync(ModelRegistry& registry, LoadSpec spec) {
  Notification done;
  absl::StatusOr<ModelInfo> result;
  registry.Load(std::move(spec), [&](absl::StatusOr<ModelInfo> info) {
    result = std::move(info);
    done.Notify();
  });
  done.WaitForNotification();
  return result;
}

absl::StatusOr<ModelInfo> UnloadSync(ModelRegistry& registry, const std::string& name) {
  Notification done;
  absl::StatusOr<ModelInfo> result;
  registry.Unload(name, [&](absl::StatusOr<ModelInfo> info) {
    result = std::move(info);
    done.Notify();
  });
  done.WaitForNotification();
  return result;
}

class ModelRegistryTest : public testing::SimRuntimeTest {
 protected:
  // Every registry of a case borrows it; it outlives them (a case's registries are locals).
  WorkerPool workers_{kSimCores};
};

TEST_F(ModelRegistryTest, LoadGetAcquireUnload) {
  ModelRegistry registry(*runtime_, workers_, nullptr);
  absl::StatusOr<ModelInfo> info = LoadSync(registry, Spec("relu", "1"));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->state, ModelState::kReady);
  EXPECT_EQ(info->identity.version, "1");
  ASSERT_EQ(info->replicas.size(), 1u);
  EXPECT_EQ(info->replicas[0].cores.start, 0u);
  ASSERT_EQ(info->tensors.size(), 2u);
  EXPECT_EQ(info->tensors[0].name, "x");
  EXPECT_EQ(registry.ResidentsByCore()[0], std::vector<std::string>{"relu"});

  {
    auto lease = registry.Acquire("relu");
    ASSERT_TRUE(lease.ok()) << lease.status();
    EXPECT_EQ((*lease)->identity().name, "relu");
  }

  ASSERT_TRUE(UnloadSync(registry, "relu").ok());
  auto gone = registry.Get("relu");
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kNotFound);
  // Triton's words, then what is loaded.
  EXPECT_EQ(gone.status().message(),
            "Request for unknown model: 'relu' is not found (no model is loaded)");
  EXPECT_EQ(SimStats().live_models, 0u);
  EXPECT_TRUE(registry.ResidentsByCore()[0].empty());
}

TEST_F(ModelRegistryTest, UnloadWaitsForLeasesAndRefusesNewOnes) {
  ModelRegistry registry(*runtime_, workers_, nullptr);
  ASSERT_TRUE(LoadSync(registry, Spec("m")).ok());
  auto lease = std::make_unique<LoadedModel::Lease>(*registry.Acquire("m"));

  Notification unloaded;
  registry.Unload("m", [&](absl::StatusOr<ModelInfo> info) {
    EXPECT_TRUE(info.ok());
    unloaded.Notify();
  });
  // While the lease is held the model is UNLOADING: no new leases, still on the device.
  // (A negative check over a window: nothing observable says the unload is waiting for the
  // lease; one that did not wait would be done well within 200 ms.)
  EXPECT_FALSE(unloaded.WaitForNotificationWithTimeout(absl::Milliseconds(200)));
  auto refused = registry.Acquire("m");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(refused.status().message(),
            "Request for unknown model: 'm' has no available versions (it is UNLOADING)");
  EXPECT_EQ(SimStats().live_models, 1u);
  lease.reset();
  unloaded.WaitForNotification();
  EXPECT_EQ(SimStats().live_models, 0u);
}

TEST_F(ModelRegistryTest, FailedLoadIsReportedAndUnloadable) {
  ModelRegistry registry(*runtime_, workers_, nullptr);
  auto bad = LoadSync(registry, Spec("bad", "", std::make_shared<const std::string>("junk")));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              StartsWith("failed to load 'bad': "));  // Triton's words
  EXPECT_THAT(bad.status().message(), HasSubstr("NRT_INVALID"));
  auto info = registry.Get("bad");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->state, ModelState::kFailed);
  EXPECT_THAT(info->error, HasSubstr("NRT_INVALID"));
  EXPECT_THAT(std::string(registry.Acquire("bad").status().message()),
              AllOf(StartsWith("Request for unknown model: 'bad' has no available versions (it "
                               "is FAILED: "),
                    HasSubstr("NRT_INVALID")));
  EXPECT_TRUE(registry.allocator().FreeCores().size() == 4);
  ASSERT_TRUE(UnloadSync(registry, "bad").ok());
  EXPECT_TRUE(registry.List().empty());
}

TEST_F(ModelRegistryTest, ReplacementSwitchesOnlyWhenReadyAndDrainsTheOldVersion) {
  ModelRegistry registry(*runtime_, workers_, nullptr);
  ASSERT_TRUE(LoadSync(registry, Spec("m", "1")).ok());
  LoadedModel::Lease old_lease = *registry.Acquire("m");

  auto v2 = LoadSync(registry, Spec("m", "2"));
  ASSERT_TRUE(v2.ok()) << v2.status();
  EXPECT_EQ(registry.Acquire("m").value()->identity().version, "2");
  // The old version is still loaded while its lease is out (the registry retires it in the
  // background), on the same core as the new one: a model may share with its own versions.
  EXPECT_EQ(old_lease->identity().version, "1");
  EXPECT_EQ(v2->replicas[0].cores.start, 0u);
  old_lease = LoadedModel::Lease();

  auto v3 = LoadSync(registry, Spec("m", "3", std::make_shared<const std::string>("junk")));
  EXPECT_FALSE(v3.ok());
  auto info = registry.Get("m");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->state, ModelState::kReady);
  EXPECT_EQ(info->identity.version, "2");
  ASSERT_TRUE(UnloadSync(registry, "m").ok());
  EXPECT_EQ(SimStats().live_models, 0u);
}

TEST_F(ModelRegistryTest, PlacementOfReplicasAndExhaustion) {
  ModelRegistry registry(*runtime_, workers_, nullptr);
  LoadSpec wide = Spec("wide", "", ReluNeff(2));
  wide.replicas = 2;
  auto info = LoadSync(registry, std::move(wide));
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(info->replicas.size(), 2u);
  EXPECT_EQ(info->replicas[0].cores.start, 0u);
  EXPECT_EQ(info->replicas[0].cores.count, 2u);
  EXPECT_EQ(info->replicas[1].cores.start, 2u);

  LoadSpec other = Spec("other");
  other.replicas = 3;
  auto full = LoadSync(registry, std::move(other));
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(full.status().message(),
              HasSubstr("cannot place model 'other' (3 replicas asked): no core it may use is "
                        "free; no free cores; cores 0-3 held by 'wide'"));
  EXPECT_EQ(registry.Get("other")->state, ModelState::kFailed);
  EXPECT_EQ(SimStats().live_models, 2u);  // nothing of 'other' stayed loaded
}

TEST_F(ModelRegistryTest, ExplicitStartCoreOutOfRange) {
  ModelRegistry registry(*runtime_, workers_, nullptr);
  LoadSpec spec = Spec("m");
  spec.start_cores = {7};
  auto info = LoadSync(registry, std::move(spec));
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(info.status().message(), HasSubstr("start core 7"));
}

TEST_F(ModelRegistryTest, InvalidNamesAreRefusedAtOnce) {
  ModelRegistry registry(*runtime_, workers_, nullptr);
  auto info = LoadSync(registry, Spec("../etc"));
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(registry.List().empty());
}

TEST_F(ModelRegistryTest, PersistsApiLoadsAndForgetsUnloads) {
  const std::string dir = ::testing::TempDir() + "/registry_store_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  auto store = ModelStore::Open(dir);
  ASSERT_TRUE(store.ok()) << store.status();
  {
    ModelRegistry registry(*runtime_, workers_, store->get());
    LoadSpec spec = Spec("kept", "7");
    spec.persist = true;
    spec.config_text = "name: \"kept\"";
    ASSERT_TRUE(LoadSync(registry, std::move(spec)).ok());
    auto stored = (*store)->List();
    ASSERT_TRUE(stored.ok());
    ASSERT_EQ(stored->size(), 1u);
    EXPECT_EQ((*stored)[0].name, "kept");
    EXPECT_EQ((*stored)[0].version, "7");
  }
  // The registry's end (daemon shutdown) keeps the record; an unload removes it.
  ASSERT_EQ((*store)->List()->size(), 1u);
  ModelRegistry registry(*runtime_, workers_, store->get());
  LoadSpec spec = Spec("kept");
  spec.persist = true;
  ASSERT_TRUE(LoadSync(registry, std::move(spec)).ok());
  ASSERT_TRUE(UnloadSync(registry, "kept").ok());
  EXPECT_TRUE((*store)->List()->empty());
  std::filesystem::remove_all(dir);
}

// The digest a LoadSpec carries (an upload's, verified as it arrived) is the one the store
// records: it is not computed again. A wrong one proves it (the record says what was carried),
// and List still catches it.
TEST_F(ModelRegistryTest, PersistingRecordsTheCarriedDigest) {
  testing::TempDir dir;  // removed with the store's files at the end
  absl::StatusOr<std::unique_ptr<ModelStore>> store = ModelStore::Open(dir.Join("state"));
  ASSERT_TRUE(store.ok()) << store.status();
  ModelRegistry registry(*runtime_, workers_, store->get());
  LoadSpec spec = Spec("right");
  spec.persist = true;
  spec.neff_sha256 = Sha256Hex(*spec.neff);
  ASSERT_TRUE(LoadSync(registry, spec).ok());
  LoadSpec wrong = Spec("wrong");
  wrong.persist = true;
  wrong.neff_sha256 = Sha256Hex(std::string("not the model's bytes"));
  ASSERT_TRUE(LoadSync(registry, wrong).ok());

  std::vector<std::string> problems;
  auto stored = (*store)->List(&problems);
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 1u);
  EXPECT_EQ((*stored)[0].name, "right");
  EXPECT_EQ((*stored)[0].neffs.at(0).sha256, spec.neff_sha256);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_THAT(problems[0], HasSubstr("its record says " + wrong.neff_sha256));
}

TEST_F(ModelRegistryTest, LeasesStayValidAcrossConcurrentReplacements) {
  ModelRegistry registry(*runtime_, workers_, nullptr);
  ASSERT_TRUE(LoadSync(registry, Spec("m", "0")).ok());
  std::atomic<bool> stop{false};
  std::atomic<int> acquired{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        auto lease = registry.Acquire("m");
        if (!lease.ok()) {
          ++refused;
          continue;
        }
        // The leased version stays loaded: its replica handle is usable.
        EXPECT_NE((*lease)->replicas().front()->variants.front().model.get(), nullptr);
        ++acquired;
      }
    });
  }
  // Each replacement waits until the readers have taken a lease since the previous one, so that
  // leases and replacements overlap however the threads are scheduled (on a loaded machine the
  // twenty loads can otherwise finish before a reader first runs).
  const auto wait_for_a_lease_after = [&](int seen) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (acquired.load() <= seen && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    return acquired.load() > seen;
  };
  int replaced = 0;
  for (int version = 1; version <= 20; ++version) {
    if (!wait_for_a_lease_after(acquired.load())) break;
    const absl::Status loaded = LoadSync(registry, Spec("m", std::to_string(version))).status();
    EXPECT_TRUE(loaded.ok()) << loaded;
    if (!loaded.ok()) break;
    replaced = version;
  }
  stop = true;  // before any assertion can return: the readers must be joined
  for (std::thread& reader : readers) reader.join();
  ASSERT_EQ(replaced, 20) << "no reader took a lease within 10 s, or a load failed";
  EXPECT_GE(acquired.load(), 20);
  EXPECT_EQ(refused.load(), 0);  // a replacement never leaves a moment without a READY version
  EXPECT_EQ(registry.Get("m")->identity.version, "20");
}

}  // namespace
}  // namespace neuronserve

namespace neuronserve {
namespace {

TEST_F(ModelRegistryTest, RecordedFailureIsVisibleAndDoesNotHideAKnownModel) {
  ModelRegistry registry(*runtime_, workers_, nullptr);
  registry.RecordFailure(ModelIdentity{"broken", "", ModelSource::kRepository},
                         absl::InvalidArgumentError("config.pbtxt is not a valid ModelConfig"));
  auto info = registry.Get("broken");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->state, ModelState::kFailed);
  EXPECT_THAT(info->error, HasSubstr("config.pbtxt"));

  ASSERT_TRUE(LoadSync(registry, Spec("fine")).ok());
  registry.RecordFailure(ModelIdentity{"fine", "", ModelSource::kRepository},
                         absl::InternalError("x"));
  EXPECT_EQ(registry.Get("fine")->state, ModelState::kReady);
  // A FAILED name can be loaded again.
  ASSERT_TRUE(LoadSync(registry, Spec("broken")).ok());
  EXPECT_EQ(registry.Get("broken")->state, ModelState::kReady);
}

}  // namespace
}  // namespace neuronserve

namespace neuronserve {
namespace {

TEST_F(ModelRegistryTest, MaxModelsCountsLoadedModelsNotVersionsNorFailures) {
  RegistryOptions options;
  options.max_models = 2;
  ModelRegistry registry(*runtime_, workers_, nullptr, options);
  ASSERT_TRUE(LoadSync(registry, Spec("a", "1")).ok());
  // A failed load leaves a FAILED model, which takes no place.
  ASSERT_FALSE(
      LoadSync(registry, Spec("bad", "", std::make_shared<const std::string>("junk"))).ok());
  ASSERT_TRUE(LoadSync(registry, Spec("b")).ok());

  absl::StatusOr<ModelInfo> third = LoadSync(registry, Spec("c"));
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(third.status().message(), HasSubstr("--max-models=2"));
  EXPECT_THAT(third.status().message(), HasSubstr("'c'"));
  // Refused up front: no entry for a name the registry did not know.
  EXPECT_EQ(registry.Get("c").status().code(), absl::StatusCode::kNotFound);
  // Reloading the FAILED one would make a third model too.
  EXPECT_EQ(LoadSync(registry, Spec("bad")).status().code(), absl::StatusCode::kResourceExhausted);

  // A new version of a model already loaded is no new model.
  absl::StatusOr<ModelInfo> replaced = LoadSync(registry, Spec("a", "2"));
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  EXPECT_EQ(replaced->identity.version, "2");

  ASSERT_TRUE(UnloadSync(registry, "b").ok());
  EXPECT_TRUE(LoadSync(registry, Spec("c")).ok());
}

}  // namespace
}  // namespace neuronserve
