// VersionLoader on its own, without the registry: placement, the replicas and their tensors on
// the simulated runtime (through the real binding), failed loads that leave nothing behind, and
// detaching and unloading a version.
#include "core/lifecycle/version_loader.h"

#include <atomic>
#include <thread>

#include "client/simmodel/fault_spec.h"
#include "core/serving/execution/worker_pool.h"
#include "core/serving/scheduling/dynamic_batcher.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/sim_fixture.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ReluNeff;
using testing::SimStats;

LoadSpec SpecOf(const std::string& name, std::shared_ptr<const std::string> neff) {
  LoadSpec spec;
  spec.identity = ModelIdentity{name, "1", ModelSource::kUpload};
  spec.neff = std::move(neff);
  return spec;
}

// The NEFF of an MLP [batch, 8] -> [batch, 4], with the fault `fault` (fault_spec.h) if any.
std::shared_ptr<const std::string> MlpOfBatch(int64_t batch, const std::string& fault = "") {
  simmodel::MlpOptions options;
  options.layer_sizes = {8, 16, 4};
  options.batch = batch;
  options.seed = 2;
  simmodel::SimModel model = testing::MlpModel(options);
  if (!fault.empty()) {
    absl::StatusOr<simmodel::Fault> parsed = simmodel::ParseFaultSpec(fault);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    if (parsed.ok()) model.faults.push_back(*parsed);
  }
  return std::make_shared<const std::string>(testing::EncodeNeff(model));
}

LoadSpec BatchedSpec(const std::string& name, std::vector<VariantSpec> variants) {
  LoadSpec spec;
  spec.identity = ModelIdentity{name, "1", ModelSource::kUpload};
  spec.variants = std::move(variants);
  return spec;
}

class VersionLoaderTest : public testing::SimRuntimeTest {
 protected:
  VersionLoader NewLoader(VersionLoaderOptions options = {}) {
    return VersionLoader(*runtime_, allocator_, workers_, options);
  }

  CoreAllocator allocator_{kSimCores};
  WorkerPool workers_{kSimCores};
};

TEST_F(VersionLoaderTest, LoadsEveryReplicaWithItsTensorsAndRetireTakesThemOff) {
  VersionLoader loader = NewLoader();
  LoadSpec spec = SpecOf("wide", ReluNeff(2));
  spec.replicas = 2;
  absl::StatusOr<std::shared_ptr<LoadedModel>> model = loader.Load(spec);
  ASSERT_TRUE(model.ok()) << model.status();

  const LoadedModel& loaded = **model;
  EXPECT_EQ(loaded.identity().name, "wide");
  ASSERT_EQ(loaded.replicas().size(), 2u);
  EXPECT_EQ(loaded.replicas()[0]->cores.start, 0u);
  EXPECT_EQ(loaded.replicas()[0]->cores.count, 2u);
  EXPECT_EQ(loaded.replicas()[1]->cores.start, 2u);
  for (const auto& replica : loaded.replicas()) {
    EXPECT_NE(replica->variants.front().model.get(), nullptr);
    EXPECT_EQ(replica->variants.front().tensor_sets.front().inputs.size(), 1u);
    EXPECT_EQ(replica->variants.front().tensor_sets.front().outputs.size(), 1u);
  }
  ASSERT_EQ(loaded.inputs().size(), 1u);
  EXPECT_EQ(loaded.inputs()[0].name, "x");
  ASSERT_NE(loaded.scheduler(), nullptr);
  EXPECT_FALSE(loaded.scheduler()->closed());
  // The probe load of the first replica became that replica: two replicas, two loads.
  EXPECT_EQ(SimStats().live_models, 2u);
  EXPECT_TRUE(allocator_.FreeCores().empty());

  loader.Attach(**model);
  loader.Retire(*std::move(model));
  EXPECT_EQ(SimStats().live_models, 0u);
  EXPECT_EQ(allocator_.FreeCores().size(), kSimCores);
}

TEST_F(VersionLoaderTest, AFailedLoadLeavesNoReplicaAndNoCoreBehind) {
  VersionLoader loader = NewLoader();
  absl::StatusOr<std::shared_ptr<LoadedModel>> junk =
      loader.Load(SpecOf("bad", std::make_shared<const std::string>("junk")));
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(junk.status().message(), HasSubstr("model 'bad'"));
  EXPECT_THAT(junk.status().message(), HasSubstr("NRT_INVALID"));
  EXPECT_EQ(allocator_.FreeCores().size(), kSimCores);

  // The probe on core 0 loads; the placement then refuses start core 3 for a 2-core replica.
  LoadSpec spec = SpecOf("wide", ReluNeff(2));
  spec.start_cores = {0, 3};
  absl::StatusOr<std::shared_ptr<LoadedModel>> refused = loader.Load(spec);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("'wide'"));
  EXPECT_EQ(SimStats().live_models, 0u);
  EXPECT_EQ(allocator_.FreeCores().size(), kSimCores);
}

TEST_F(VersionLoaderTest, AStartCoreThatDoesNotExistIsTheRequestsFault) {
  VersionLoader loader = NewLoader();
  LoadSpec spec = SpecOf("m", ReluNeff());
  spec.start_cores = {7};
  absl::StatusOr<std::shared_ptr<LoadedModel>> model = loader.Load(spec);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(model.status().message(),
              HasSubstr("model 'm': start core 7 does not exist (this daemon has cores 0-3)"));
}

TEST_F(VersionLoaderTest, VersionsOfOneModelShareCoresOtherModelsDoNot) {
  VersionLoader loader = NewLoader();
  absl::StatusOr<std::shared_ptr<LoadedModel>> v1 = loader.Load(SpecOf("m", ReluNeff()));
  LoadSpec second = SpecOf("m", ReluNeff());
  second.identity.version = "2";
  absl::StatusOr<std::shared_ptr<LoadedModel>> v2 = loader.Load(second);
  absl::StatusOr<std::shared_ptr<LoadedModel>> other = loader.Load(SpecOf("other", ReluNeff()));
  ASSERT_TRUE(v1.ok() && v2.ok() && other.ok());
  EXPECT_EQ((*v1)->replicas()[0]->cores.start, 0u);
  EXPECT_EQ((*v2)->replicas()[0]->cores.start, 0u);
  EXPECT_EQ((*other)->replicas()[0]->cores.start, 1u);
  EXPECT_THAT(allocator_.FreeCores(), ElementsAre(2u, 3u));

  // Unloading one version releases its own placement only.
  loader.Retire(*std::move(v1));
  EXPECT_THAT(allocator_.FreeCores(), ElementsAre(2u, 3u));
  loader.Retire(*std::move(v2));
  loader.Retire(*std::move(other));
  EXPECT_EQ(allocator_.FreeCores().size(), kSimCores);
  EXPECT_EQ(SimStats().live_models, 0u);
}

TEST_F(VersionLoaderTest, QueueBoundAndMetricsComeFromTheOptionsUnlessTheSpecSetsThem) {
  metrics::MetricsRegistry registry;
  ServingMetrics metrics(registry);
  VersionLoader counted = NewLoader({absl::Seconds(30), 5, 2, &metrics});
  absl::StatusOr<std::shared_ptr<LoadedModel>> model = counted.Load(SpecOf("m", ReluNeff()));
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->scheduler()->capacity(), 5u);
  EXPECT_NE((*model)->request_metrics(), nullptr);
  counted.Retire(*std::move(model));

  VersionLoader uncounted = NewLoader();
  LoadSpec bounded = SpecOf("m", ReluNeff());
  bounded.max_queue = 3;
  model = uncounted.Load(bounded);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->scheduler()->capacity(), 3u);
  EXPECT_EQ((*model)->request_metrics(), nullptr);
  uncounted.Retire(*std::move(model));
}

// Each variant of each replica binds pipeline_depth tensor sets (the options' unless the spec
// sets one), and the device memory they take grows with it; a depth out of 1..8 is refused.
TEST_F(VersionLoaderTest, PipelineDepthBindsThatManyTensorSetsPerVariant) {
  VersionLoader loader = NewLoader({absl::Seconds(30), 1024, 3, nullptr});
  const uint64_t before = SimStats().device_bytes_used;
  absl::StatusOr<std::shared_ptr<LoadedModel>> three = loader.Load(SpecOf("m", ReluNeff()));
  ASSERT_TRUE(three.ok()) << three.status();
  const ModelReplica& replica = *(*three)->replicas()[0];
  EXPECT_EQ(replica.pipeline_depth, 3u);
  EXPECT_EQ(replica.free_tensor_sets.load(), 0b111u);
  ASSERT_EQ(replica.variants[0].tensor_sets.size(), 3u);
  const ReplicaTensors& one_set = replica.variants[0].tensor_sets[0];
  uint64_t set_bytes = 0;
  for (size_t bytes : one_set.input_bytes) set_bytes += bytes;
  for (size_t bytes : one_set.output_bytes) set_bytes += bytes;
  EXPECT_GT(set_bytes, 0u);
  EXPECT_EQ(replica.TensorBytes(), 3 * set_bytes);
  const uint64_t with_three = SimStats().device_bytes_used - before;
  loader.Retire(*std::move(three));
  EXPECT_EQ(SimStats().device_bytes_used, before);

  LoadSpec alone = SpecOf("m", ReluNeff());
  alone.pipeline_depth = 1;
  absl::StatusOr<std::shared_ptr<LoadedModel>> one = loader.Load(alone);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ((*one)->replicas()[0]->variants[0].tensor_sets.size(), 1u);
  EXPECT_EQ((*one)->replicas()[0]->TensorBytes(), set_bytes);
  // The model's own memory is the same: two sets fewer is all the difference.
  EXPECT_EQ(SimStats().device_bytes_used - before, with_three - 2 * set_bytes);
  loader.Retire(*std::move(one));

  LoadSpec deep = SpecOf("m", ReluNeff());
  deep.pipeline_depth = kMaxPipelineDepth + 1;
  absl::StatusOr<std::shared_ptr<LoadedModel>> refused = loader.Load(deep);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("model 'm': pipeline_depth is 9; it must be 1 to 8"));
  EXPECT_EQ(SimStats().device_bytes_used, before);
}

// Past the unload timeout, Detach still waits for the leases that are out (their requests may be
// executing, and an execution on the device cannot be cut short), then closes the queue.
TEST_F(VersionLoaderTest, DrainWaitsForEveryLeaseEvenPastTheTimeoutThenClosesTheQueue) {
  VersionLoader loader = NewLoader({absl::Milliseconds(20), 1024, 2, nullptr});
  absl::StatusOr<std::shared_ptr<LoadedModel>> model = loader.Load(SpecOf("m", ReluNeff()));
  ASSERT_TRUE(model.ok()) << model.status();
  loader.Attach(**model);

  std::atomic<bool> released{false};
  auto lease = std::make_unique<LoadedModel::Lease>(*model);
  std::thread holder([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // past the unload timeout
    released = true;
    lease.reset();
  });
  loader.Detach(**model);
  // Whatever the scheduling, Detach cannot have returned before the lease was let go.
  EXPECT_TRUE(released.load());
  holder.join();
  EXPECT_TRUE((*model)->scheduler()->closed());
  EXPECT_EQ(SimStats().live_models, 1u);  // detached, not yet unloaded

  loader.Unload(*std::move(model));
  EXPECT_EQ(SimStats().live_models, 0u);
  EXPECT_EQ(allocator_.FreeCores().size(), kSimCores);
}

// A batched model: every variant on every replica, each with its own tensors, and the batcher
// as its scheduler.
TEST_F(VersionLoaderTest, LoadsEveryVariantOnEveryReplicaAndSchedulesThemWithTheBatcher) {
  VersionLoader loader = NewLoader();
  LoadSpec spec = BatchedSpec("mlp", {{1, MlpOfBatch(1)}, {4, MlpOfBatch(4)}});
  spec.replicas = 2;
  const uint64_t executions_before = SimStats().executions;
  absl::StatusOr<std::shared_ptr<LoadedModel>> model = loader.Load(spec);
  ASSERT_TRUE(model.ok()) << model.status();
  const LoadedModel& loaded = **model;
  ASSERT_EQ(loaded.replicas().size(), 2u);
  for (const auto& replica : loaded.replicas()) {
    ASSERT_EQ(replica->variants.size(), 2u);
    EXPECT_EQ(replica->variants[0].batch_size, 1u);
    EXPECT_EQ(replica->variants[1].batch_size, 4u);
    EXPECT_EQ(replica->variants[0].tensor_sets[0].input_bytes, std::vector<size_t>{8 * 4});
    EXPECT_EQ(replica->variants[1].tensor_sets[0].input_bytes, std::vector<size_t>{4 * 8 * 4});
    EXPECT_EQ(replica->variants[1].tensor_sets[0].output_bytes, std::vector<size_t>{4 * 4 * 4});
  }
  EXPECT_NE(dynamic_cast<DynamicBatcher*>(loaded.scheduler()), nullptr);
  EXPECT_EQ(SimStats().live_models, 4u);  // two variants on each of two replicas
  // The warm-up ran each of them once.
  EXPECT_EQ(SimStats().executions - executions_before, 4u);

  loader.Attach(**model);
  loader.Retire(*std::move(model));
  EXPECT_EQ(SimStats().live_models, 0u);
  EXPECT_EQ(allocator_.FreeCores().size(), kSimCores);
}

// Variants that are not one network are refused, naming the variant, the tensor and the
// difference, and leave nothing loaded.
TEST_F(VersionLoaderTest, VariantsThatDisagreeAreRefusedNamingTheDifference) {
  VersionLoader loader = NewLoader();
  struct Case {
    std::vector<VariantSpec> variants;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{1, MlpOfBatch(1)}, {4, MlpOfBatch(8)}},
       "the variant of batch 4: tensor 'input' has shape [8,8], whose leading (batch) "
       "dimension should be 4"},
      {{{1, MlpOfBatch(1)}, {1, MlpOfBatch(1)}}, "two variants have batch size 1"},
      {{{1, MlpOfBatch(1)}, {4, MlpOfBatch(4, "on_execution=1:NRT_INVALID")}},
       "the warm-up of the variant of batch 4 on core 0 failed: "},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::shared_ptr<LoadedModel>> model = loader.Load(BatchedSpec("mlp", c.variants));
    ASSERT_FALSE(model.ok());
    EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(model.status().message(), HasSubstr("model 'mlp': " + c.message));
    EXPECT_EQ(SimStats().live_models, 0u);
    EXPECT_EQ(allocator_.FreeCores().size(), kSimCores);
  }
}

}  // namespace
}  // namespace neuronserve
