// proto/inference/model_config.proto, the transcription of Triton's model configuration schema
// (triton-inference-server/common 83adf7c): a Triton-style config.pbtxt naming most of the schema
// parses field by field, and the JSON form keeps the proto field names. Scheduling, version
// policies, refusals and enum numbers: triton_model_config_schema_test.cc.
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "inference/model_config.pb.h"
#include "nlohmann/json.hpp"
#include "tests/server/triton_model_config_parse.h"

// A named namespace: this file shares a translation unit with other tests of server_unit_test
// (cmake/UnityBatches.cmake), whose anonymous namespaces are the same one as ours would be.
namespace neuronserve::triton_model_config_proto_test {

// Written for this test in the style of a Triton model repository's config.pbtxt: lists in
// brackets, maps as key/value entries. Every field below is asserted on.
constexpr char kBroadConfig[] = R"pbtxt(
name: "resnet_bf16"
platform: "onnxruntime_onnx"
backend: "onnxruntime"
runtime: "libtriton_onnxruntime.so"
max_batch_size: 16
version_policy: { specific: { versions: [ 1, 3 ] } }
input [
  {
    name: "images"
    data_type: TYPE_FP32
    format: FORMAT_NCHW
    dims: [ 3, 224, 224 ]
    reshape: { shape: [ 1, 3, 224, 224 ] }
  },
  {
    name: "scale"
    data_type: TYPE_BF16
    dims: [ -1 ]
    allow_ragged_batch: true
  },
  {
    name: "prompt"
    data_type: TYPE_STRING
    dims: [ 1 ]
    optional: true
  }
]
output [
  {
    name: "logits"
    data_type: TYPE_BF16
    dims: [ 1000 ]
    label_filename: "labels.txt"
  },
  {
    name: "shape"
    data_type: TYPE_INT64
    dims: [ 2 ]
    is_shape_tensor: true
  }
]
batch_input [
  {
    kind: BATCH_ACCUMULATED_ELEMENT_COUNT
    target_name: "offsets"
    data_type: TYPE_INT32
    source_input: "scale"
  }
]
batch_output [
  {
    target_name: "logits"
    kind: BATCH_SCATTER_WITH_INPUT_SHAPE
    source_input: "images"
  }
]
instance_group [
  {
    name: "on_the_model"
    count: 2
    kind: KIND_MODEL
    rate_limiter: { resources [ { name: "R1" global: true count: 4 } ] priority: 2 }
  },
  {
    count: 1
    kind: KIND_GPU
    gpus: [ 0, 1 ]
    secondary_devices [ { kind: KIND_NVDLA device_id: 7 } ]
    profile: "opt_profile_0"
    passive: true
    host_policy: "numa0"
  }
]
dynamic_batching {
  preferred_batch_size: [ 4, 8 ]
  max_queue_delay_microseconds: 100
  preserve_ordering: true
  priority_levels: 2
  default_priority_level: 1
  default_queue_policy {
    timeout_action: DELAY
    default_timeout_microseconds: 5000
    allow_timeout_override: true
    max_queue_size: 64
  }
  priority_queue_policy {
    key: 2
    value { timeout_action: REJECT max_queue_size: 8 }
  }
}
optimization {
  graph { level: 1 }
  priority: PRIORITY_MAX
  cuda {
    graphs: true
    busy_wait_events: true
    graph_spec [
      {
        batch_size: 4
        input { key: "images" value { dim: [ 4, 3, 224, 224 ] } }
        graph_lower_bound { batch_size: 1 input { key: "images" value { dim: [ 1, 3, 224, 224 ] } } }
      }
    ]
    output_copy_stream: true
  }
  execution_accelerators {
    gpu_execution_accelerator : [
      {
        name : "tensorrt"
        parameters { key: "precision_mode" value: "FP16" }
        parameters { key: "max_workspace_size_bytes" value: "1073741824" }
      }
    ]
    cpu_execution_accelerator : [ { name : "openvino" } ]
  }
  input_pinned_memory { enable: false }
  output_pinned_memory { enable: true }
  gather_kernel_buffer_threshold: 32
  eager_batching: true
}
model_warmup [
  {
    name: "random_images"
    batch_size: 2
    count: 3
    inputs {
      key: "images"
      value { data_type: TYPE_FP32 dims: [ 3, 224, 224 ] random_data: true }
    }
    inputs {
      key: "scale"
      value { data_type: TYPE_BF16 dims: [ 1 ] zero_data: true }
    }
  },
  {
    name: "from_file"
    batch_size: 1
    inputs {
      key: "prompt"
      value { data_type: TYPE_STRING dims: [ 1 ] input_data_file: "prompt.bin" }
    }
  }
]
response_cache { enable: true }
model_transaction_policy { decoupled: true }
parameters { key: "EXECUTION_ENV_PATH" value: { string_value: "$$TRITON_MODEL_DIRECTORY/env.tar.gz" } }
parameters { key: "num_threads" value: { string_value: "4" } }
default_model_filename: "model.onnx"
cc_model_filenames { key: "7.5" value: "model_sm75.plan" }
cc_model_filenames { key: "8.0" value: "model_sm80.plan" }
metric_tags { key: "team" value: "vision" }
model_operations { op_library_filename: [ "libcustom_ops.so" ] }
model_repository_agents {
  agents [ { name: "checksum" parameters { key: "MD5:model.onnx" value: "0123abcd" } } ]
}
model_metrics {
  metric_control [
    {
      metric_identifier { family: "nv_inference_first_response_histogram_ms" }
      histogram_options { buckets: [ 1, 10, 100 ] }
    }
  ]
}
)pbtxt";

TEST(TritonModelConfigProtoTest, ParsesTheTopLevelFields) {
  const inference::ModelConfig config = ParseOrFail(kBroadConfig);
  EXPECT_EQ(config.name(), "resnet_bf16");
  EXPECT_EQ(config.platform(), "onnxruntime_onnx");
  EXPECT_EQ(config.backend(), "onnxruntime");
  EXPECT_EQ(config.runtime(), "libtriton_onnxruntime.so");
  EXPECT_EQ(config.max_batch_size(), 16);
  EXPECT_EQ(config.default_model_filename(), "model.onnx");
  ASSERT_TRUE(config.version_policy().has_specific());
  EXPECT_THAT(config.version_policy().specific().versions(), ElementsAre(1, 3));
  ASSERT_EQ(config.parameters().size(), 2u);
  EXPECT_EQ(config.parameters().at("EXECUTION_ENV_PATH").string_value(),
            "$$TRITON_MODEL_DIRECTORY/env.tar.gz");
  EXPECT_EQ(config.parameters().at("num_threads").string_value(), "4");
  ASSERT_EQ(config.cc_model_filenames().size(), 2u);
  EXPECT_EQ(config.cc_model_filenames().at("7.5"), "model_sm75.plan");
  EXPECT_EQ(config.cc_model_filenames().at("8.0"), "model_sm80.plan");
  ASSERT_EQ(config.metric_tags().size(), 1u);
  EXPECT_EQ(config.metric_tags().at("team"), "vision");
  EXPECT_TRUE(config.response_cache().enable());
  EXPECT_TRUE(config.model_transaction_policy().decoupled());
  EXPECT_THAT(config.model_operations().op_library_filename(), ElementsAre("libcustom_ops.so"));
  ASSERT_EQ(config.model_repository_agents().agents_size(), 1);
  EXPECT_EQ(config.model_repository_agents().agents(0).name(), "checksum");
  EXPECT_EQ(config.model_repository_agents().agents(0).parameters().at("MD5:model.onnx"),
            "0123abcd");
  ASSERT_EQ(config.model_metrics().metric_control_size(), 1);
  const auto& metric = config.model_metrics().metric_control(0);
  EXPECT_EQ(metric.metric_identifier().family(), "nv_inference_first_response_histogram_ms");
  ASSERT_TRUE(metric.has_histogram_options());
  EXPECT_THAT(metric.histogram_options().buckets(), ElementsAre(1.0, 10.0, 100.0));
}

TEST(TritonModelConfigProtoTest, ParsesInputsOutputsAndBatchTensors) {
  const inference::ModelConfig config = ParseOrFail(kBroadConfig);
  ASSERT_EQ(config.input_size(), 3);
  const inference::ModelInput& images = config.input(0);
  EXPECT_EQ(images.name(), "images");
  EXPECT_EQ(images.data_type(), inference::TYPE_FP32);
  EXPECT_EQ(images.format(), inference::ModelInput::FORMAT_NCHW);
  EXPECT_THAT(images.dims(), ElementsAre(3, 224, 224));
  ASSERT_TRUE(images.has_reshape());
  EXPECT_THAT(images.reshape().shape(), ElementsAre(1, 3, 224, 224));
  EXPECT_FALSE(images.optional());
  const inference::ModelInput& scale = config.input(1);
  EXPECT_EQ(scale.data_type(), inference::TYPE_BF16);
  EXPECT_THAT(scale.dims(), ElementsAre(-1));
  EXPECT_TRUE(scale.allow_ragged_batch());
  EXPECT_FALSE(scale.has_reshape());
  const inference::ModelInput& prompt = config.input(2);
  EXPECT_EQ(prompt.data_type(), inference::TYPE_STRING);
  EXPECT_TRUE(prompt.optional());  // the field named `optional`

  ASSERT_EQ(config.output_size(), 2);
  EXPECT_EQ(config.output(0).name(), "logits");
  EXPECT_EQ(config.output(0).data_type(), inference::TYPE_BF16);
  EXPECT_THAT(config.output(0).dims(), ElementsAre(1000));
  EXPECT_EQ(config.output(0).label_filename(), "labels.txt");
  EXPECT_EQ(config.output(1).data_type(), inference::TYPE_INT64);
  EXPECT_TRUE(config.output(1).is_shape_tensor());

  ASSERT_EQ(config.batch_input_size(), 1);
  EXPECT_EQ(config.batch_input(0).kind(), inference::BatchInput::BATCH_ACCUMULATED_ELEMENT_COUNT);
  EXPECT_THAT(config.batch_input(0).target_name(), ElementsAre("offsets"));
  EXPECT_EQ(config.batch_input(0).data_type(), inference::TYPE_INT32);
  EXPECT_THAT(config.batch_input(0).source_input(), ElementsAre("scale"));
  ASSERT_EQ(config.batch_output_size(), 1);
  EXPECT_EQ(config.batch_output(0).kind(), inference::BatchOutput::BATCH_SCATTER_WITH_INPUT_SHAPE);
  EXPECT_THAT(config.batch_output(0).target_name(), ElementsAre("logits"));
  EXPECT_THAT(config.batch_output(0).source_input(), ElementsAre("images"));
}

TEST(TritonModelConfigProtoTest, ParsesInstanceGroups) {
  const inference::ModelConfig config = ParseOrFail(kBroadConfig);
  ASSERT_EQ(config.instance_group_size(), 2);
  const inference::ModelInstanceGroup& on_model = config.instance_group(0);
  EXPECT_EQ(on_model.name(), "on_the_model");
  EXPECT_EQ(on_model.count(), 2);
  EXPECT_EQ(on_model.kind(), inference::ModelInstanceGroup::KIND_MODEL);
  ASSERT_EQ(on_model.rate_limiter().resources_size(), 1);
  EXPECT_EQ(on_model.rate_limiter().resources(0).name(), "R1");
  EXPECT_TRUE(on_model.rate_limiter().resources(0).global());
  EXPECT_EQ(on_model.rate_limiter().resources(0).count(), 4u);
  EXPECT_EQ(on_model.rate_limiter().priority(), 2u);
  const inference::ModelInstanceGroup& on_gpus = config.instance_group(1);
  EXPECT_EQ(on_gpus.kind(), inference::ModelInstanceGroup::KIND_GPU);
  EXPECT_EQ(on_gpus.count(), 1);
  EXPECT_THAT(on_gpus.gpus(), ElementsAre(0, 1));
  ASSERT_EQ(on_gpus.secondary_devices_size(), 1);
  EXPECT_EQ(on_gpus.secondary_devices(0).kind(),
            inference::ModelInstanceGroup::SecondaryDevice::KIND_NVDLA);
  EXPECT_EQ(on_gpus.secondary_devices(0).device_id(), 7);
  EXPECT_THAT(on_gpus.profile(), ElementsAre("opt_profile_0"));
  EXPECT_TRUE(on_gpus.passive());
  EXPECT_EQ(on_gpus.host_policy(), "numa0");
}

TEST(TritonModelConfigProtoTest, ParsesDynamicBatching) {
  const inference::ModelConfig config = ParseOrFail(kBroadConfig);
  ASSERT_EQ(config.scheduling_choice_case(), inference::ModelConfig::kDynamicBatching);
  const inference::ModelDynamicBatching& batching = config.dynamic_batching();
  EXPECT_THAT(batching.preferred_batch_size(), ElementsAre(4, 8));
  EXPECT_EQ(batching.max_queue_delay_microseconds(), 100u);
  EXPECT_TRUE(batching.preserve_ordering());
  EXPECT_EQ(batching.priority_levels(), 2u);
  EXPECT_EQ(batching.default_priority_level(), 1u);
  EXPECT_EQ(batching.default_queue_policy().timeout_action(), inference::ModelQueuePolicy::DELAY);
  EXPECT_EQ(batching.default_queue_policy().default_timeout_microseconds(), 5000u);
  EXPECT_TRUE(batching.default_queue_policy().allow_timeout_override());
  EXPECT_EQ(batching.default_queue_policy().max_queue_size(), 64u);
  ASSERT_EQ(batching.priority_queue_policy().size(), 1u);
  ASSERT_TRUE(batching.priority_queue_policy().contains(2));
  EXPECT_EQ(batching.priority_queue_policy().at(2).timeout_action(),
            inference::ModelQueuePolicy::REJECT);
  EXPECT_EQ(batching.priority_queue_policy().at(2).max_queue_size(), 8u);
}

TEST(TritonModelConfigProtoTest, ParsesOptimization) {
  const inference::ModelConfig config = ParseOrFail(kBroadConfig);
  const inference::ModelOptimizationPolicy& optimization = config.optimization();
  EXPECT_EQ(optimization.graph().level(), 1);
  EXPECT_EQ(optimization.priority(), inference::ModelOptimizationPolicy::PRIORITY_MAX);
  EXPECT_TRUE(optimization.cuda().graphs());
  EXPECT_TRUE(optimization.cuda().busy_wait_events());
  EXPECT_TRUE(optimization.cuda().output_copy_stream());
  ASSERT_EQ(optimization.cuda().graph_spec_size(), 1);
  const auto& spec = optimization.cuda().graph_spec(0);
  EXPECT_EQ(spec.batch_size(), 4);
  ASSERT_TRUE(spec.input().contains("images"));
  EXPECT_THAT(spec.input().at("images").dim(), ElementsAre(4, 3, 224, 224));
  EXPECT_EQ(spec.graph_lower_bound().batch_size(), 1);
  ASSERT_TRUE(spec.graph_lower_bound().input().contains("images"));
  EXPECT_THAT(spec.graph_lower_bound().input().at("images").dim(), ElementsAre(1, 3, 224, 224));

  const auto& accelerators = optimization.execution_accelerators();
  ASSERT_EQ(accelerators.gpu_execution_accelerator_size(), 1);
  EXPECT_EQ(accelerators.gpu_execution_accelerator(0).name(), "tensorrt");
  const auto& parameters = accelerators.gpu_execution_accelerator(0).parameters();
  ASSERT_EQ(parameters.size(), 2u);
  EXPECT_EQ(parameters.at("precision_mode"), "FP16");
  EXPECT_EQ(parameters.at("max_workspace_size_bytes"), "1073741824");
  ASSERT_EQ(accelerators.cpu_execution_accelerator_size(), 1);
  EXPECT_EQ(accelerators.cpu_execution_accelerator(0).name(), "openvino");
  EXPECT_TRUE(accelerators.cpu_execution_accelerator(0).parameters().empty());

  EXPECT_TRUE(optimization.has_input_pinned_memory());
  EXPECT_FALSE(optimization.input_pinned_memory().enable());
  EXPECT_TRUE(optimization.output_pinned_memory().enable());
  EXPECT_EQ(optimization.gather_kernel_buffer_threshold(), 32u);
  EXPECT_TRUE(optimization.eager_batching());
}

TEST(TritonModelConfigProtoTest, ParsesModelWarmup) {
  const inference::ModelConfig config = ParseOrFail(kBroadConfig);
  ASSERT_EQ(config.model_warmup_size(), 2);
  const inference::ModelWarmup& random = config.model_warmup(0);
  EXPECT_EQ(random.name(), "random_images");
  EXPECT_EQ(random.batch_size(), 2u);
  EXPECT_EQ(random.count(), 3u);
  ASSERT_EQ(random.inputs().size(), 2u);
  const inference::ModelWarmup::Input& images = random.inputs().at("images");
  EXPECT_EQ(images.data_type(), inference::TYPE_FP32);
  EXPECT_THAT(images.dims(), ElementsAre(3, 224, 224));
  EXPECT_EQ(images.input_data_type_case(), inference::ModelWarmup::Input::kRandomData);
  EXPECT_TRUE(images.random_data());
  const inference::ModelWarmup::Input& scale = random.inputs().at("scale");
  EXPECT_EQ(scale.data_type(), inference::TYPE_BF16);
  EXPECT_EQ(scale.input_data_type_case(), inference::ModelWarmup::Input::kZeroData);
  EXPECT_TRUE(scale.zero_data());
  const inference::ModelWarmup& from_file = config.model_warmup(1);
  EXPECT_EQ(from_file.count(), 0u);
  ASSERT_TRUE(from_file.inputs().contains("prompt"));
  EXPECT_EQ(from_file.inputs().at("prompt").input_data_type_case(),
            inference::ModelWarmup::Input::kInputDataFile);
  EXPECT_EQ(from_file.inputs().at("prompt").input_data_file(), "prompt.bin");
}

TEST(TritonModelConfigProtoTest, JsonKeepsTheProtoFieldNames) {
  const inference::ModelConfig config = ParseOrFail(kBroadConfig);
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string text;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(config, &text, options).ok());
  const nlohmann::json json = nlohmann::json::parse(text);
  EXPECT_EQ(json.at("max_batch_size"), 16);
  EXPECT_EQ(json.at("default_model_filename"), "model.onnx");
  ASSERT_TRUE(json.contains("dynamic_batching")) << text;
  EXPECT_EQ(json.at("dynamic_batching").at("max_queue_delay_microseconds"), "100");  // uint64
  EXPECT_EQ(json.at("dynamic_batching").at("priority_queue_policy").at("2").at("max_queue_size"),
            8);
  EXPECT_EQ(json.at("input").at(1).at("data_type"), "TYPE_BF16");
  EXPECT_EQ(json.at("instance_group").at(0).at("kind"), "KIND_MODEL");
  EXPECT_EQ(json.at("model_transaction_policy").at("decoupled"), true);
  EXPECT_EQ(json.at("response_cache").at("enable"), true);
  EXPECT_FALSE(json.contains("maxBatchSize"));
  EXPECT_FALSE(json.contains("dynamicBatching"));
  // always_print_primitive_fields: a field left at its default is printed all the same.
  ASSERT_TRUE(json.at("input").at(0).contains("is_shape_tensor"));
  EXPECT_EQ(json.at("input").at(0).at("is_shape_tensor"), false);
}

}  // namespace neuronserve::triton_model_config_proto_test
