// ModelConfig -> LoadSpec: how the batching fields (variants, max_batch_size, dynamic_batching)
// and pipeline_depth map onto the loader's spec, and each combination the daemon refuses, with
// its message.
#include "server/repository/load_spec.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace neuronserve {
namespace {

using ::testing::ElementsAre;

v1::ModelConfig Parse(const std::string& text) {
  v1::ModelConfig config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
  return config;
}

// One NEFF per variant (or the one NEFF), each holding its index as text.
ModelNeffs Neffs(const v1::ModelConfig& config) {
  ModelNeffs neffs;
  const int count = config.variant().empty() ? 1 : config.variant_size();
  for (int i = 0; i < count; ++i) {
    neffs.push_back(std::make_shared<const std::string>(std::to_string(i)));
  }
  return neffs;
}

absl::StatusOr<LoadSpec> Spec(const std::string& text) {
  const v1::ModelConfig config = Parse(text);
  return LoadSpecFromConfig(config, Neffs(config), ModelSource::kRepository, /*persist=*/false);
}

void ExpectRefused(const std::string& text, const std::string& message) {
  absl::StatusOr<LoadSpec> spec = Spec(text);
  ASSERT_FALSE(spec.ok()) << text;
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument) << text;
  EXPECT_EQ(spec.status().message(), message) << text;
  // Refused before any NEFF byte is read or received.
  EXPECT_EQ(CheckModelConfig(Parse(text)), spec.status()) << text;
}

TEST(LoadSpecTest, AModelOfOneNeffIsUnbatchedAsAlways) {
  absl::StatusOr<LoadSpec> spec = Spec("name: \"mlp\" max_queue: 9");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_NE(spec->neff, nullptr);
  EXPECT_EQ(*spec->neff, "0");
  EXPECT_TRUE(spec->variants.empty());
  EXPECT_EQ(spec->max_batch_size, 0u);
  EXPECT_EQ(spec->max_queue, 9u);
}

TEST(LoadSpecTest, VariantsAndTritonsBatchingFieldsMapOntoTheSpec) {
  absl::StatusOr<LoadSpec> spec = Spec(R"(
      name: "resnet"
      variant { file: "b8.neff" batch_size: 8 }
      variant { file: "b1.neff" batch_size: 1 }
      max_batch_size: 32
      max_queue: 5
      dynamic_batching {
        preferred_batch_size: [4, 8]
        max_queue_delay_microseconds: 1500
        default_queue_policy {
          max_queue_size: 40
          default_timeout_microseconds: 20000
          allow_timeout_override: true
        }
      })");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->neff, nullptr);
  ASSERT_EQ(spec->variants.size(), 2u);
  EXPECT_EQ(spec->variants[0].batch_size, 8u);
  EXPECT_EQ(*spec->variants[0].neff, "0");
  EXPECT_EQ(spec->variants[1].batch_size, 1u);
  EXPECT_EQ(*spec->variants[1].neff, "1");
  EXPECT_EQ(spec->max_batch_size, 32u);
  EXPECT_THAT(spec->batching.preferred_batch_sizes, ElementsAre(4u, 8u));
  EXPECT_EQ(spec->batching.max_queue_delay, absl::Microseconds(1500));
  EXPECT_EQ(spec->batching.default_timeout, absl::Milliseconds(20));
  EXPECT_TRUE(spec->batching.allow_timeout_override);
  // One limit: Triton's max_queue_size wins over max_queue when both are set.
  EXPECT_EQ(spec->max_queue, 40u);
}

TEST(LoadSpecTest, TheDefaultsAreTheLargestVariantNoDelayAndNoTimeout) {
  absl::StatusOr<LoadSpec> spec = Spec(
      "name: \"r\" max_queue: 5 variant { file: \"a\" batch_size: 4 } "
      "variant { file: \"b\" batch_size: 2 }");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->max_batch_size, 4u);
  EXPECT_TRUE(spec->batching.preferred_batch_sizes.empty());
  EXPECT_EQ(spec->batching.max_queue_delay, absl::ZeroDuration());
  EXPECT_EQ(spec->batching.default_timeout, absl::InfiniteDuration());
  EXPECT_FALSE(spec->batching.allow_timeout_override);
  EXPECT_EQ(spec->max_queue, 5u);
}

TEST(LoadSpecTest, ContradictionsAndUnimplementedFieldsAreRefusedNamingTheField) {
  ExpectRefused("name: \"r\" file: \"m.neff\" variant { file: \"b1.neff\" batch_size: 1 }",
                "model 'r': the config sets both `file` ('m.neff') and `variant`: a batched "
                "model names each of its NEFFs in a variant, and `file` must be left out");
  ExpectRefused("name: \"r\" variant { file: \"b.neff\" }",
                "model 'r': variant 1 ('b.neff') has no batch_size; give the batch size its "
                "NEFF was compiled for (1 or more)");
  ExpectRefused(
      "name: \"r\" variant { file: \"a\" batch_size: 4 } "
      "variant { file: \"b\" batch_size: 2 } variant { file: \"c\" batch_size: 4 }",
      "model 'r': variants 1 and 3 both have batch_size 4; each variant needs its own "
      "batch size");
  ExpectRefused("name: \"r\" variant { file: \"a\" batch_size: 4 sha256: \"ABC\" }",
                "model 'r': the variant of batch 4: sha256 must be 64 lower-case hex digits, "
                "got 'ABC'");
  ExpectRefused("name: \"r\" max_batch_size: 8",
                "model 'r': max_batch_size is 8, but the model has no batch variants (`variant "
                "{ file batch_size }`): a model of one NEFF has no batch dimension");
  ExpectRefused("name: \"r\" dynamic_batching {}",
                "model 'r': dynamic_batching is set, but the model has no batch variants "
                "(`variant { file batch_size }`) to batch over");
  const std::string variants = "name: \"r\" variant { file: \"a\" batch_size: 4 } ";
  ExpectRefused(variants + "dynamic_batching { priority_levels: 2 }",
                "model 'r': dynamic_batching.priority_levels is 2, but this daemon serves one "
                "priority level (leave it out, or set 1)");
  ExpectRefused(variants + "dynamic_batching { default_priority_level: 2 }",
                "model 'r': dynamic_batching.default_priority_level is 2, but this daemon serves "
                "one priority level");
  ExpectRefused(variants +
                    "dynamic_batching { priority_queue_policy { key: 1 value { "
                    "max_queue_size: 3 } } }",
                "model 'r': dynamic_batching.priority_queue_policy is set, but this daemon "
                "serves one priority level: use default_queue_policy");
  ExpectRefused(variants + "dynamic_batching { preserve_ordering: true }",
                "model 'r': dynamic_batching.preserve_ordering is not supported: every request "
                "is answered as soon as its rows are done");
  ExpectRefused(variants + "dynamic_batching { default_queue_policy { timeout_action: DELAY } }",
                "model 'r': dynamic_batching.default_queue_policy.timeout_action DELAY is not "
                "supported: a request whose queue timeout expires is refused (REJECT)");
  ExpectRefused(variants + "dynamic_batching { max_queue_delay_microseconds: 60000001 }",
                "model 'r': dynamic_batching.max_queue_delay_microseconds is 60000001, more than "
                "the limit of 60000000 (one minute)");
  ExpectRefused(variants + "dynamic_batching { preferred_batch_size: [2, 5] }",
                "model 'r': dynamic_batching.preferred_batch_size 5 is not between 1 and the "
                "largest variant's batch size, 4");
  // A batch is one execution: a max_batch_size past the largest variant splits requests, and
  // does not make larger batches.
  ExpectRefused(variants + "max_batch_size: 8 dynamic_batching { preferred_batch_size: 8 }",
                "model 'r': dynamic_batching.preferred_batch_size 8 is not between 1 and the "
                "largest variant's batch size, 4");
  EXPECT_TRUE(
      Spec(variants + "max_batch_size: 8 dynamic_batching { preferred_batch_size: 4 }").ok());
  // One priority level, said explicitly, is what the daemon does.
  EXPECT_TRUE(
      Spec(variants + "dynamic_batching { priority_levels: 1 default_priority_level: 1 }").ok());
}

TEST(LoadSpecTest, PipelineDepthGoesToTheSpecAndZeroLeavesItToTheDaemon) {
  absl::StatusOr<LoadSpec> unset = Spec("name: \"m\"");
  ASSERT_TRUE(unset.ok()) << unset.status();
  EXPECT_EQ(unset->pipeline_depth, 0u);  // the loader's: the daemon's --pipeline-depth
  for (const uint32_t depth : {1u, 3u, 8u}) {
    absl::StatusOr<LoadSpec> spec = Spec(absl::StrCat("name: \"m\" pipeline_depth: ", depth));
    ASSERT_TRUE(spec.ok()) << spec.status();
    EXPECT_EQ(spec->pipeline_depth, depth);
  }
  absl::StatusOr<LoadSpec> batched =
      Spec("name: \"r\" variant { file: \"a\" batch_size: 4 } pipeline_depth: 4");
  ASSERT_TRUE(batched.ok()) << batched.status();
  EXPECT_EQ(batched->pipeline_depth, 4u);
}

TEST(LoadSpecTest, APipelineDepthPastTheLimitIsRefusedNamingTheModelAndTheLimit) {
  ExpectRefused("name: \"m\" pipeline_depth: 9",
                "model 'm': pipeline_depth is 9, more than the limit of 8 (tensor sets per "
                "variant of each replica; 1: no pipelining, 0 or left out: the daemon's "
                "--pipeline-depth)");
  ExpectRefused("name: \"m\" pipeline_depth: 4294967295",
                "model 'm': pipeline_depth is 4294967295, more than the limit of 8 (tensor sets "
                "per variant of each replica; 1: no pipelining, 0 or left out: the daemon's "
                "--pipeline-depth)");
  // Also a batched model's, whose batching fields are fine.
  ExpectRefused("name: \"r\" variant { file: \"a\" batch_size: 4 } pipeline_depth: 16",
                "model 'r': pipeline_depth is 16, more than the limit of 8 (tensor sets per "
                "variant of each replica; 1: no pipelining, 0 or left out: the daemon's "
                "--pipeline-depth)");
}

TEST(LoadSpecTest, TheNeffsMustBeOnePerVariant) {
  const v1::ModelConfig config = Parse(
      "name: \"r\" variant { file: \"a\" batch_size: 4 } variant { file: \"b\" "
      "batch_size: 8 }");
  ModelNeffs one = {std::make_shared<const std::string>("x")};
  absl::StatusOr<LoadSpec> spec =
      LoadSpecFromConfig(config, one, ModelSource::kUpload, /*persist=*/false);
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(spec.status().message(), "model 'r': 2 variants' NEFFs expected, 1 given");
}

TEST(LoadSpecTest, AHugeQueueTimeoutDoesNotOverflow) {
  absl::StatusOr<LoadSpec> spec = Spec(
      "name: \"r\" variant { file: \"a\" batch_size: 1 } dynamic_batching { "
      "default_queue_policy { default_timeout_microseconds: 18446744073709551615 } }");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_GT(spec->batching.default_timeout, absl::Hours(24 * 365));
  EXPECT_LT(spec->batching.default_timeout, absl::InfiniteDuration());
}

TEST(LoadSpecTest, MergeOverridesTheBatchingSettingsButNeverTheNeffs) {
  const v1::ModelConfig base = Parse(
      "name: \"r\" variant { file: \"a\" batch_size: 4 } max_batch_size: 4 "
      "dynamic_batching { max_queue_delay_microseconds: 100 }");
  const v1::ModelConfig overrides = Parse(
      "max_batch_size: 16 dynamic_batching { max_queue_delay_microseconds: 7 } "
      "variant { file: \"evil\" batch_size: 2 } file: \"other.neff\"");
  const v1::ModelConfig merged = MergeConfig(base, overrides);
  EXPECT_EQ(merged.max_batch_size(), 16u);
  EXPECT_EQ(merged.dynamic_batching().max_queue_delay_microseconds(), 7u);
  ASSERT_EQ(merged.variant_size(), 1);
  EXPECT_EQ(merged.variant(0).file(), "a");
  EXPECT_TRUE(merged.file().empty());
}

TEST(LoadSpecTest, MergeOverridesThePipelineDepthOnlyWhenTheOverridesSetIt) {
  const v1::ModelConfig base = Parse("name: \"m\" pipeline_depth: 1");
  EXPECT_EQ(MergeConfig(base, Parse("pipeline_depth: 3")).pipeline_depth(), 3u);
  EXPECT_EQ(MergeConfig(base, Parse("version: \"2\"")).pipeline_depth(), 1u);
  EXPECT_EQ(MergeConfig(Parse("name: \"m\""), Parse("pipeline_depth: 8")).pipeline_depth(), 8u);
}

}  // namespace
}  // namespace neuronserve
