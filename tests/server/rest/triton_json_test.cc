#include "server/rest/triton_json.h"

#include "gtest/gtest.h"
#include "inference/model_config.pb.h"

namespace neuronserve {
namespace triton_json_test {

using Json = nlohmann::json;

TEST(TritonJsonTest, PrintsAsTritonsRestAnswersDo) {
  inference::ModelConfig config;
  config.set_name("m");
  config.set_max_batch_size(8);
  inference::ModelInput* input = config.add_input();
  input->set_name("x");
  input->set_data_type(inference::TYPE_BF16);
  input->add_dims(-1);
  input->add_dims(16);
  config.mutable_dynamic_batching()->set_max_queue_delay_microseconds(100);
  (*config.mutable_dynamic_batching()->mutable_priority_queue_policy())[2].set_max_queue_size(4);
  config.mutable_version_policy()->mutable_latest()->set_num_versions(1);
  (*config.mutable_parameters())["k"].set_string_value("v");
  const Json json = TritonJson(config);

  // Proto field names; 64-bit integers as numbers, not protobuf JSON's strings.
  EXPECT_EQ(json["max_batch_size"], Json(8));
  EXPECT_EQ(json["input"][0]["dims"], Json::parse("[-1, 16]"));
  EXPECT_EQ(json["dynamic_batching"]["max_queue_delay_microseconds"], Json(100));
  EXPECT_TRUE(json["dynamic_batching"]["max_queue_delay_microseconds"].is_number_unsigned());
  // Enums by name; maps as objects with string keys (a number key too).
  EXPECT_EQ(json["input"][0]["data_type"], Json("TYPE_BF16"));
  EXPECT_EQ(json["dynamic_batching"]["priority_queue_policy"]["2"]["max_queue_size"], Json(4));
  EXPECT_EQ(json["parameters"]["k"]["string_value"], Json("v"));
  // Every primitive printed at its default; empty repeated fields and maps too.
  EXPECT_EQ(json["platform"], Json(""));
  EXPECT_EQ(json["input"][0]["optional"], Json(false));
  EXPECT_EQ(json["output"], Json::array());
  EXPECT_EQ(json["metric_tags"], Json::object());
  // Sub-messages only when present; a oneof's members only when set.
  EXPECT_FALSE(json.contains("sequence_batching"));
  EXPECT_FALSE(json.contains("optimization"));
  EXPECT_TRUE(json["version_policy"].contains("latest"));
  EXPECT_FALSE(json["version_policy"].contains("all"));
  EXPECT_FALSE(json["version_policy"].contains("specific"));
}

}  // namespace triton_json_test
}  // namespace neuronserve
