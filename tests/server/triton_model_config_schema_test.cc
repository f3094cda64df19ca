// proto/inference/model_config.proto against Triton's schema (83adf7c): sequence batching with
// each strategy, ensemble scheduling, each version policy, a misspelt field refused, and the enum
// numbers Triton's.
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "inference/model_config.pb.h"
#include "tests/server/triton_model_config_parse.h"

// A named namespace: this file shares a translation unit with other tests of server_unit_test
// (cmake/UnityBatches.cmake), whose anonymous namespaces are the same one as ours would be.
namespace neuronserve::triton_model_config_proto_test {

TEST(TritonModelConfigProtoTest, ParsesSequenceBatchingWithEachStrategy) {
  const inference::ModelConfig oldest = ParseOrFail(R"pbtxt(
    name: "stateful"
    backend: "python"
    max_batch_size: 8
    sequence_batching {
      max_sequence_idle_microseconds: 5000000
      oldest { max_candidate_sequences: 4 preferred_batch_size: [ 2, 4 ]
               max_queue_delay_microseconds: 300 preserve_ordering: true }
      control_input [
        { name: "START" control [ { kind: CONTROL_SEQUENCE_START fp32_false_true: [ 0, 1 ] } ] },
        { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY bool_false_true: [ false, true ] } ] },
        { name: "CORRID" control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 } ] }
      ]
      state [
        {
          input_name: "INPUT_STATE"
          output_name: "OUTPUT_STATE"
          data_type: TYPE_INT32
          dims: [ 1 ]
          initial_state [ { name: "zeros" data_type: TYPE_INT32 dims: [ 1 ] zero_data: true } ]
          use_same_buffer_for_input_output: true
          use_growable_memory: true
        }
      ]
      iterative_sequence: true
    }
  )pbtxt");
  ASSERT_EQ(oldest.scheduling_choice_case(), inference::ModelConfig::kSequenceBatching);
  const inference::ModelSequenceBatching& sequence = oldest.sequence_batching();
  EXPECT_EQ(sequence.max_sequence_idle_microseconds(), 5000000u);
  ASSERT_EQ(sequence.strategy_choice_case(), inference::ModelSequenceBatching::kOldest);
  EXPECT_EQ(sequence.oldest().max_candidate_sequences(), 4);
  EXPECT_THAT(sequence.oldest().preferred_batch_size(), ElementsAre(2, 4));
  EXPECT_EQ(sequence.oldest().max_queue_delay_microseconds(), 300u);
  EXPECT_TRUE(sequence.oldest().preserve_ordering());
  ASSERT_EQ(sequence.control_input_size(), 3);
  EXPECT_EQ(sequence.control_input(0).name(), "START");
  ASSERT_EQ(sequence.control_input(0).control_size(), 1);
  EXPECT_EQ(sequence.control_input(0).control(0).kind(),
            inference::ModelSequenceBatching::Control::CONTROL_SEQUENCE_START);
  EXPECT_THAT(sequence.control_input(0).control(0).fp32_false_true(), ElementsAre(0.0f, 1.0f));
  EXPECT_THAT(sequence.control_input(1).control(0).bool_false_true(), ElementsAre(false, true));
  EXPECT_EQ(sequence.control_input(2).control(0).kind(),
            inference::ModelSequenceBatching::Control::CONTROL_SEQUENCE_CORRID);
  EXPECT_EQ(sequence.control_input(2).control(0).data_type(), inference::TYPE_UINT64);
  ASSERT_EQ(sequence.state_size(), 1);
  EXPECT_EQ(sequence.state(0).input_name(), "INPUT_STATE");
  EXPECT_EQ(sequence.state(0).output_name(), "OUTPUT_STATE");
  ASSERT_EQ(sequence.state(0).initial_state_size(), 1);
  EXPECT_EQ(sequence.state(0).initial_state(0).name(), "zeros");
  EXPECT_EQ(sequence.state(0).initial_state(0).state_data_case(),
            inference::ModelSequenceBatching::InitialState::kZeroData);
  EXPECT_TRUE(sequence.state(0).use_same_buffer_for_input_output());
  EXPECT_TRUE(sequence.state(0).use_growable_memory());
  EXPECT_TRUE(sequence.iterative_sequence());

  const inference::ModelConfig direct = ParseOrFail(R"pbtxt(
    name: "stateful_direct"
    sequence_batching {
      direct { max_queue_delay_microseconds: 200 minimum_slot_utilization: 0.5 }
      control_input [ { name: "END" control [ { kind: CONTROL_SEQUENCE_END int32_false_true: [ 0, 1 ] } ] } ]
    }
  )pbtxt");
  ASSERT_EQ(direct.sequence_batching().strategy_choice_case(),
            inference::ModelSequenceBatching::kDirect);
  EXPECT_EQ(direct.sequence_batching().direct().max_queue_delay_microseconds(), 200u);
  EXPECT_FLOAT_EQ(direct.sequence_batching().direct().minimum_slot_utilization(), 0.5f);
  EXPECT_EQ(direct.sequence_batching().control_input(0).control(0).kind(),
            inference::ModelSequenceBatching::Control::CONTROL_SEQUENCE_END);
  EXPECT_THAT(direct.sequence_batching().control_input(0).control(0).int32_false_true(),
              ElementsAre(0, 1));
}

TEST(TritonModelConfigProtoTest, ParsesEnsembleScheduling) {
  const inference::ModelConfig config = ParseOrFail(R"pbtxt(
    name: "pipeline"
    platform: "ensemble"
    max_batch_size: 4
    ensemble_scheduling {
      step [
        {
          model_name: "preprocess"
          model_version: -1
          input_map { key: "RAW" value: "IMAGE_BYTES" }
          output_map { key: "PIXELS" value: "preprocessed" }
        },
        {
          model_name: "classifier"
          model_version: 2
          model_namespace: "vision"
          input_map { key: "images" value: "preprocessed" }
          output_map { key: "logits" value: "SCORES" }
        }
      ]
      max_inflight_requests: 16
    }
  )pbtxt");
  ASSERT_EQ(config.scheduling_choice_case(), inference::ModelConfig::kEnsembleScheduling);
  const inference::ModelEnsembling& ensemble = config.ensemble_scheduling();
  EXPECT_EQ(ensemble.max_inflight_requests(), 16u);
  ASSERT_EQ(ensemble.step_size(), 2);
  EXPECT_EQ(ensemble.step(0).model_name(), "preprocess");
  EXPECT_EQ(ensemble.step(0).model_version(), -1);
  EXPECT_EQ(ensemble.step(0).input_map().at("RAW"), "IMAGE_BYTES");
  EXPECT_EQ(ensemble.step(0).output_map().at("PIXELS"), "preprocessed");
  EXPECT_EQ(ensemble.step(1).model_name(), "classifier");
  EXPECT_EQ(ensemble.step(1).model_version(), 2);
  EXPECT_EQ(ensemble.step(1).model_namespace(), "vision");
  EXPECT_EQ(ensemble.step(1).input_map().at("images"), "preprocessed");
  EXPECT_EQ(ensemble.step(1).output_map().at("logits"), "SCORES");
}

TEST(TritonModelConfigProtoTest, ParsesEachVersionPolicy) {
  const inference::ModelConfig latest =
      ParseOrFail(R"pbtxt(version_policy: { latest: { num_versions: 2 } })pbtxt");
  ASSERT_EQ(latest.version_policy().policy_choice_case(), inference::ModelVersionPolicy::kLatest);
  EXPECT_EQ(latest.version_policy().latest().num_versions(), 2u);
  const inference::ModelConfig all = ParseOrFail(R"pbtxt(version_policy: { all: {} })pbtxt");
  EXPECT_EQ(all.version_policy().policy_choice_case(), inference::ModelVersionPolicy::kAll);
  const inference::ModelConfig specific =
      ParseOrFail(R"pbtxt(version_policy: { specific: { versions: 4 versions: 5 } })pbtxt");
  ASSERT_EQ(specific.version_policy().policy_choice_case(),
            inference::ModelVersionPolicy::kSpecific);
  EXPECT_THAT(specific.version_policy().specific().versions(), ElementsAre(4, 5));
}

TEST(TritonModelConfigProtoTest, RefusesAnUnknownFieldName) {
  inference::ModelConfig config;
  // The right spelling parses, so the refusals below are about the names alone.
  ASSERT_TRUE(ParseTritonConfig(
      "max_batch_size: 8 dynamic_batching { max_queue_delay_microseconds: 5 }", &config));
  EXPECT_EQ(config.max_batch_size(), 8);

  ParseErrors top_level;
  EXPECT_FALSE(ParseTritonConfig("max_batch_sise: 8", &config, &top_level));
  ASSERT_EQ(top_level.errors.size(), 1u);
  EXPECT_THAT(top_level.errors[0], HasSubstr("max_batch_sise"));

  ParseErrors nested;
  EXPECT_FALSE(ParseTritonConfig("dynamic_batching { max_queue_delay_us: 5 }", &config, &nested));
  ASSERT_EQ(nested.errors.size(), 1u);
  EXPECT_THAT(nested.errors[0], HasSubstr("max_queue_delay_us"));

  // An enum value that is not Triton's is refused too.
  ParseErrors enum_value;
  EXPECT_FALSE(
      ParseTritonConfig("input [ { name: \"x\" data_type: TYPE_FP8 } ]", &config, &enum_value));
  ASSERT_EQ(enum_value.errors.size(), 1u);
  EXPECT_THAT(enum_value.errors[0], HasSubstr("TYPE_FP8"));

  // Two members of the scheduling oneof in one configuration.
  ParseErrors two_schedulers;
  EXPECT_FALSE(
      ParseTritonConfig("dynamic_batching {} sequence_batching {}", &config, &two_schedulers));
  ASSERT_EQ(two_schedulers.errors.size(), 1u);
  EXPECT_THAT(two_schedulers.errors[0], HasSubstr("oneof"));
}

// The numbers read from Triton's model_config.proto at 83adf7c.
TEST(TritonModelConfigProtoTest, DataTypeNumbersAreTritons) {
  const std::vector<std::pair<std::string, int>> triton = {
      {"TYPE_INVALID", 0}, {"TYPE_BOOL", 1},    {"TYPE_UINT8", 2}, {"TYPE_UINT16", 3},
      {"TYPE_UINT32", 4},  {"TYPE_UINT64", 5},  {"TYPE_INT8", 6},  {"TYPE_INT16", 7},
      {"TYPE_INT32", 8},   {"TYPE_INT64", 9},   {"TYPE_FP16", 10}, {"TYPE_FP32", 11},
      {"TYPE_FP64", 12},   {"TYPE_STRING", 13}, {"TYPE_BF16", 14},
  };
  const google::protobuf::EnumDescriptor* data_type = inference::DataType_descriptor();
  ASSERT_EQ(data_type->value_count(), static_cast<int>(triton.size()));
  for (int i = 0; i < data_type->value_count(); ++i) {
    EXPECT_EQ(data_type->value(i)->name(), triton[i].first) << "value " << i;
    EXPECT_EQ(data_type->value(i)->number(), triton[i].second) << triton[i].first;
  }
  EXPECT_EQ(inference::TYPE_BF16, 14);
  EXPECT_EQ(inference::TYPE_STRING, 13);
  EXPECT_EQ(inference::TYPE_FP32, 11);
  inference::DataType parsed = inference::TYPE_INVALID;
  ASSERT_TRUE(inference::DataType_Parse("TYPE_BF16", &parsed));
  EXPECT_EQ(parsed, inference::TYPE_BF16);
}

TEST(TritonModelConfigProtoTest, InstanceGroupKindNumbersAreTritons) {
  const std::vector<std::pair<std::string, int>> triton = {
      {"KIND_AUTO", 0}, {"KIND_GPU", 1}, {"KIND_CPU", 2}, {"KIND_MODEL", 3}};
  const google::protobuf::EnumDescriptor* kind = inference::ModelInstanceGroup::Kind_descriptor();
  ASSERT_EQ(kind->value_count(), static_cast<int>(triton.size()));
  for (int i = 0; i < kind->value_count(); ++i) {
    EXPECT_EQ(kind->value(i)->name(), triton[i].first) << "value " << i;
    EXPECT_EQ(kind->value(i)->number(), triton[i].second) << triton[i].first;
  }
  EXPECT_EQ(inference::ModelInstanceGroup::KIND_MODEL, 3);
  EXPECT_EQ(inference::ModelInstanceGroup::KIND_GPU, 1);
}

}  // namespace neuronserve::triton_model_config_proto_test
