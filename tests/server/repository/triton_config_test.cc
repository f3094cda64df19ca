#include "server/repository/triton_config.h"

#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "server/repository/model_config_schema.h"
#include "server/repository/triton_data_type.h"
#include "tests/support/temp_dir.h"

namespace neuronserve {
namespace triton_config_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

inference::ModelConfig Triton(const std::string& text) {
  inference::ModelConfig config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
  return config;
}

TEST(TritonConfigTest, TheRuleTellsTheTwoSchemasApart) {
  // Only neuron-serve has `file`, `replicas`, `variant`; only Triton `backend`, `input`, ...
  absl::StatusOr<ParsedModelConfig> own =
      ParseModelConfigText("name: \"m\"\nversion: \"3\"\nreplicas: 2\n", "'m/config.pbtxt'");
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_TRUE(own->own.has_value());
  EXPECT_FALSE(own->triton.has_value());
  absl::StatusOr<ParsedModelConfig> triton =
      ParseModelConfigText("name: \"m\"\nbackend: \"neuron\"\n", "'m/config.pbtxt'");
  ASSERT_TRUE(triton.ok()) << triton.status();
  EXPECT_TRUE(triton->triton.has_value());
  EXPECT_FALSE(triton->own.has_value());
  // Fields both schemas have: batching without variants is Triton's; with them, neuron-serve's.
  absl::StatusOr<ParsedModelConfig> common = ParseModelConfigText(
      "max_batch_size: 8\ndynamic_batching { max_queue_delay_microseconds: 100 }\n", "'m'");
  ASSERT_TRUE(common.ok()) << common.status();
  EXPECT_TRUE(common->triton.has_value());
  absl::StatusOr<ParsedModelConfig> variants = ParseModelConfigText(
      "max_batch_size: 8\nvariant { file: \"b8.neff\" batch_size: 8 }\n", "'m'");
  ASSERT_TRUE(variants.ok()) << variants.status();
  EXPECT_TRUE(variants->own.has_value());
  // Neither: both parsers' first errors.
  EXPECT_EQ(ParseModelConfigText("replicas: 2\nbackend: \"neuron\"\n", "'m/config.pbtxt'").status(),
            absl::InvalidArgumentError(
                "'m/config.pbtxt' is neither a neuronserve.v1.ModelConfig (2:8: Message type "
                "\"neuronserve.v1.ModelConfig\" has no field named \"backend\".) nor a Triton "
                "inference.ModelConfig (1:9: Message type \"inference.ModelConfig\" has no field "
                "named \"replicas\".) in protobuf text format"));
}

TEST(TritonConfigTest, JsonFollowsTheSameRuleWithTheFoldersConfigurationMergedIn) {
  v1::ModelConfig plain;
  v1::ModelConfig batched;
  batched.add_variant()->set_batch_size(4);
  absl::StatusOr<ParsedModelConfig> replicas =
      ParseModelConfigJson(R"({"replicas": 2})", plain, "'config'");
  ASSERT_TRUE(replicas.ok()) << replicas.status();
  EXPECT_EQ(replicas->own->replicas(), 2u);
  absl::StatusOr<ParsedModelConfig> rows =
      ParseModelConfigJson(R"({"max_batch_size": 16})", plain, "'config'");
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_TRUE(rows->triton.has_value());
  EXPECT_EQ(rows->triton->max_batch_size(), 16);
  absl::StatusOr<ParsedModelConfig> more_rows =
      ParseModelConfigJson(R"({"max_batch_size": 16})", batched, "'config'");
  ASSERT_TRUE(more_rows.ok()) << more_rows.status();
  EXPECT_TRUE(more_rows->own.has_value());
  absl::StatusOr<ParsedModelConfig> neither =
      ParseModelConfigJson(R"({"bogusField": 1})", plain, "'config'");
  EXPECT_EQ(neither.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(neither.status().message(),
              HasSubstr("'config' is neither a neuronserve.v1.ModelConfig ("));
  EXPECT_THAT(neither.status().message(), HasSubstr("bogusField"));
}

class TritonFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("m/1/model.neff", "one");
    dir_.Write("m/3/model.neff", "three");
    dir_.Write("m/notes/readme", "not a version");
  }
  absl::StatusOr<TritonModelConfig> Convert(const std::string& text) {
    return FromTritonConfig(Triton(text), dir_.Join("m"), "'m/config.pbtxt'");
  }
  testing::TempDir dir_;
};

TEST_F(TritonFolderTest, TheVersionPolicyPicksOneVersionFolder) {
  absl::StatusOr<TritonModelConfig> latest = Convert("");
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ(latest->config.version(), "3");
  EXPECT_EQ(latest->config.file(), "3/model.neff");
  absl::StatusOr<TritonModelConfig> specific = Convert(
      "version_policy { specific { versions: 1 } }\ndefault_model_filename: \"net.neff\"\n");
  ASSERT_TRUE(specific.ok()) << specific.status();
  EXPECT_EQ(specific->config.version(), "1");
  EXPECT_EQ(specific->config.file(), "1/net.neff");
  EXPECT_EQ(Convert("version_policy { specific { versions: 2 } }").status(),
            absl::NotFoundError("'m/config.pbtxt': version_policy specific names version 2, "
                                "which has no folder '2/' (version folders: '1', '3')"));
  EXPECT_THAT(Convert("version_policy { all { } }").status().message(),
              HasSubstr("version_policy all would serve the versions '1', '3' at once"));
  EXPECT_THAT(Convert("version_policy { latest { num_versions: 2 } }").status().message(),
              HasSubstr("version_policy latest { num_versions: 2 }"));
}

TEST_F(TritonFolderTest, BatchingReplicasAndParametersBecomeNeuronServesFields) {
  absl::StatusOr<TritonModelConfig> converted = Convert(R"(
    name: "m"
    backend: "neuron"
    max_batch_size: 8
    dynamic_batching { preferred_batch_size: [4] max_queue_delay_microseconds: 100 }
    instance_group [{ count: 2 kind: KIND_MODEL }, { kind: KIND_AUTO }]
    parameters { key: "neuron_batch_variants" value { string_value: "1:b1.neff, 4:b4.neff" } }
    parameters { key: "neuron_pipeline_depth" value { string_value: "3" } }
    input [{ name: "x" data_type: TYPE_FP32 dims: [16] }]
    output [{ name: "y" data_type: TYPE_BF16 dims: [-1] }]
  )");
  ASSERT_TRUE(converted.ok()) << converted.status();
  const v1::ModelConfig& config = converted->config;
  EXPECT_EQ(config.name(), "m");
  EXPECT_EQ(config.max_batch_size(), 8u);
  ASSERT_EQ(config.variant_size(), 2);
  EXPECT_EQ(config.variant(0).file(), "3/b1.neff");
  EXPECT_EQ(config.variant(1).batch_size(), 4u);
  EXPECT_THAT(config.dynamic_batching().preferred_batch_size(), ElementsAre(4u));
  EXPECT_EQ(config.dynamic_batching().max_queue_delay_microseconds(), 100u);
  EXPECT_EQ(config.replicas(), 3u);  // 2, and 1 for the group without a count
  EXPECT_EQ(config.pipeline_depth(), 3u);
  ASSERT_EQ(converted->declared_tensors.size(), 2u);
  EXPECT_EQ(converted->declared_tensors[1].name, "y");
  EXPECT_EQ(converted->declared_tensors[1].dtype, DataType::kBFloat16);
  EXPECT_THAT(converted->declared_tensors[1].dims, ElementsAre(-1));
  EXPECT_TRUE(converted->ignored_fields.empty());

  // Without the parameter: the one NEFF, compiled for max_batch_size rows.
  absl::StatusOr<TritonModelConfig> single = Convert("max_batch_size: 4");
  ASSERT_TRUE(single.ok()) << single.status();
  ASSERT_EQ(single->config.variant_size(), 1);
  EXPECT_EQ(single->config.variant(0).file(), "3/model.neff");
  EXPECT_EQ(single->config.variant(0).batch_size(), 4u);
}

TEST_F(TritonFolderTest, FieldsWithoutEffectAreNamedAndTheOnesThatWouldChangeBehaviourRefused) {
  absl::StatusOr<TritonModelConfig> ignored = Convert(R"(
    optimization { graph { level: 1 } }
    model_warmup [{ name: "w" batch_size: 1 }]
    response_cache { enable: true }
    parameters { key: "foo" value { string_value: "bar" } }
    parameters { key: "neuron_cores" value { string_value: "0" } }
    output [{ name: "y" data_type: TYPE_FP32 dims: [8] label_filename: "labels.txt" }]
  )");
  ASSERT_TRUE(ignored.ok()) << ignored.status();
  EXPECT_THAT(ignored->ignored_fields,
              ElementsAre("parameters 'foo'", "output 'y' label_filename", "optimization",
                          "model_warmup", "response_cache"));

  // What ModelConfig reports reads back without a warning.
  absl::StatusOr<TritonModelConfig> reported = Convert(R"(
    platform: "neuron" backend: "neuron"
    version_policy { latest { num_versions: 1 } }
    instance_group [{ name: "m" kind: KIND_MODEL count: 1 }]
    model_transaction_policy { decoupled: false }
    response_cache { enable: false }
    parameters { key: "neuron_cores" value { string_value: "0" } }
    parameters { key: "neuron_version_label" value { string_value: "" } }
  )");
  ASSERT_TRUE(reported.ok()) << reported.status();
  EXPECT_THAT(reported->ignored_fields, ::testing::IsEmpty());

  const std::pair<const char*, const char*> refused[] = {
      {"backend: \"onnxruntime\"", "backend 'onnxruntime' is not served here"},
      {"platform: \"ensemble\"", "platform 'ensemble' is not served here"},
      {"sequence_batching { }", "sequence_batching is not supported"},
      {"ensemble_scheduling { step [{ model_name: \"a\" }] }",
       "ensemble_scheduling is not supported"},
      {"model_transaction_policy { decoupled: true }", "decoupled is not supported"},
      {"instance_group [{ kind: KIND_GPU gpus: [0] }]", "instance_group kind KIND_GPU with gpus"},
      {"instance_group [{ name: \"g\" kind: KIND_CPU }]", "instance_group 'g' kind KIND_CPU"},
      {"dynamic_batching { }", "dynamic_batching needs max_batch_size above 0"},
      {"input [{ name: \"x\" data_type: TYPE_FP32 dims: [4] reshape { shape: [2, 2] } }]",
       "input 'x' has a reshape"},
      {"input [{ name: \"x\" data_type: TYPE_FP32 dims: [4] optional: true }]",
       "input 'x' is optional"},
      {"max_batch_size: 4\nparameters { key: \"neuron_batch_variants\" value { string_value: "
       "\"four\" } }",
       "'four' is not SIZE:FILE"},
  };
  for (const auto& [text, message] : refused) {
    absl::StatusOr<TritonModelConfig> converted = Convert(text);
    EXPECT_EQ(converted.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(converted.status().message(), HasSubstr(message)) << text;
    EXPECT_THAT(converted.status().message(), HasSubstr("'m/config.pbtxt': ")) << text;
  }
}

TEST(TritonConfigTest, DataTypesMapBothWays) {
  for (int i = 0; i <= static_cast<int>(DataType::kUInt64); ++i) {
    const DataType dtype = static_cast<DataType>(i);
    const inference::DataType type = TritonDataType(dtype);
    if (type == inference::TYPE_INVALID) continue;
    EXPECT_EQ(DataTypeFromTriton(type), dtype) << inference::DataType_Name(type);
  }
  EXPECT_EQ(TritonDataType(DataType::kBFloat16), inference::TYPE_BF16);
  EXPECT_EQ(TritonDataType(DataType::kFp8E4), inference::TYPE_INVALID);
  EXPECT_EQ(DataTypeFromTriton(inference::TYPE_STRING), std::nullopt);
  EXPECT_EQ(DataTypeFromTriton(inference::TYPE_INVALID), std::nullopt);
}

}  // namespace triton_config_test
}  // namespace neuronserve
