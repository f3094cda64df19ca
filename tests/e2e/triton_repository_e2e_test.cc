// Triton model repositories load unchanged (issue 34, item 4), end to end through the real
// daemon on the simulator: model folders laid out as Triton lays them out (version folders, a
// config.pbtxt in Triton's schema, inference.ModelConfig) serve the version the policy picks with
// the replicas, batching and tensors the configuration gives, and the fields without effect here
// are named in one warning; batched models through neuron_batch_variants or one NEFF compiled for
// max_batch_size rows; RepositoryModelLoad's `config` in Triton's JSON replaces the folder's
// configuration; and neuron-serve's own config.pbtxt keeps loading beside Triton folders
// (server/repository/model_config_schema.h has the rule telling the schemas apart). Refusals:
// triton_repository_refusals_e2e_test.cc.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "inference/grpc_service.grpc.pb.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/e2e/triton_client.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/temp_dir.h"

namespace neuronserve::testing::triton_repository_e2e {

// The shipped example classifier (deploy/models/classifier/model.neff): int64 input_ids and
// attention_mask [1,16] -> float32 logits and float16 logits_fp16 [1,4].
std::string ShippedClassifierNeff() { return EncodeNeff(ExampleClassifier()); }

// "name:version:STATE" for each model of an index, in its order.
std::vector<std::string> IndexEntries(const inference::RepositoryIndexResponse& index) {
  std::vector<std::string> entries;
  for (const auto& model : index.models()) {
    entries.push_back(absl::StrCat(model.name(), ":", model.version(), ":", model.state()));
  }
  return entries;
}

// The lines of `log` that contain `text`.
std::vector<std::string> LinesWith(const std::string& log, const std::string& text) {
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (absl::StrContains(line, text)) lines.emplace_back(line);
  }
  return lines;
}

// The warning RepositoryModelLoadSpec logs for a Triton configuration's fields without effect.
std::string IgnoredFieldsWarning(const std::string& model) {
  return absl::StrCat("model '", model, "': its Triton configuration sets ");
}

// The identity model (float32 "input" -> "output", 4 columns) compiled for `rows` rows.
std::string IdentityNeff(int64_t rows) { return EncodeNeff(IdentityModel({rows, 4})); }

std::vector<float> Rows(int rows) {
  std::vector<float> values;
  for (int i = 0; i < rows * 4; ++i) values.push_back(0.5f * static_cast<float>(i) - 3.0f);
  return values;
}

// The Triton configuration of a batched identity model (dims without the batch dimension),
// `more` appended.
std::string BatchedIdentityConfig(const std::string& name, int max_batch_size,
                                  const std::string& more) {
  return absl::StrCat(R"(name: ")", name, R"("
backend: "neuron"
max_batch_size: )",
                      max_batch_size, R"(
input [ { name: "input" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "output" data_type: TYPE_FP32 dims: [ 4 ] } ]
)",
                      more);
}

TEST(TritonRepositoryE2ETest, ATritonRepositoryLoadsUnchanged) {
  TempDir repo;
  // The shipped mlp in two version folders, with every Triton field neuron-serve reads and some
  // it accepts without effect.
  WriteTritonMlp(repo, "mlp", {"1", "2"}, R"(
instance_group [ { count: 2 kind: KIND_MODEL } ]
version_policy: { latest { num_versions: 1 } }
optimization { graph { level: 1 } input_pinned_memory { enable: true } }
model_warmup [
  {
    name: "zeros"
    batch_size: 1
    inputs {
      key: "input"
      value: { data_type: TYPE_FP32 dims: [ 1, 16 ] zero_data: true }
    }
  }
]
parameters { key: "foo" value: { string_value: "bar" } }
)");
  // The shipped classifier under the name Triton's default_model_filename gives it.
  WriteFile(repo.Join("classifier/1/classifier.neff"), ShippedClassifierNeff());
  WriteFile(repo.Join("classifier/config.pbtxt"), R"(name: "classifier"
platform: "neuron"
max_batch_size: 0
default_model_filename: "classifier.neff"
input [
  { name: "input_ids" data_type: TYPE_INT64 dims: [ 1, 16 ] },
  { name: "attention_mask" data_type: TYPE_INT64 dims: [ 1, 16 ] }
]
output [
  { name: "logits" data_type: TYPE_FP32 dims: [ 1, 4 ] },
  { name: "logits_fp16" data_type: TYPE_FP16 dims: [ 1, 4 ] }
]
instance_group [ { kind: KIND_AUTO } ]
)");
  START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repo.path(), "--load-models=all"},
                                     {{"NRTSIM_CORES", "4"}}));
  const TritonClient triton(daemon->channel);
  ASSERT_TRUE(WaitUntil([&] { return triton.Ready("mlp") == true; })) << daemon->process->Stderr();
  ASSERT_TRUE(WaitUntil([&] { return triton.Ready("classifier") == true; }))
      << daemon->process->Stderr();

  // The mlp serves version 2 (latest 1) on 2 replicas, with the NEFF's tensors.
  const inference::ModelMetadataResponse metadata = triton.Metadata("mlp");
  EXPECT_THAT(metadata.versions(), ElementsAre("2"));
  ASSERT_EQ(metadata.inputs_size(), 1);
  EXPECT_EQ(metadata.inputs(0).name(), "input");
  EXPECT_EQ(metadata.inputs(0).datatype(), "FP32");
  EXPECT_THAT(metadata.inputs(0).shape(), ElementsAre(1, 16));
  const inference::ModelConfig config = triton.Config("mlp");
  EXPECT_EQ(config.name(), "mlp");
  EXPECT_EQ(config.backend(), "neuron");
  EXPECT_EQ(config.max_batch_size(), 0);
  ASSERT_EQ(config.instance_group_size(), 1);
  EXPECT_EQ(config.instance_group(0).count(), 2);
  EXPECT_EQ(config.instance_group(0).kind(), inference::ModelInstanceGroup::KIND_MODEL);
  ASSERT_EQ(config.input_size(), 1);
  EXPECT_EQ(config.input(0).data_type(), inference::TYPE_FP32);
  EXPECT_THAT(config.input(0).dims(), ElementsAre(1, 16));
  EXPECT_FALSE(config.has_dynamic_batching());
  const TritonClient::FloatAnswer answer = triton.InferFloats("mlp", {1, 16}, MlpInput());
  ASSERT_TRUE(answer.status.ok()) << answer.status.error_message();
  EXPECT_THAT(answer.shape, ElementsAre(1, 8));
  ASSERT_EQ(answer.values.size(), 8u);
  float sum = 0;
  for (float value : answer.values) sum += value;
  EXPECT_NEAR(sum, 1.0f, 1e-5f);  // a softmax

  // One warning line names every field accepted without effect; the classifier sets none.
  ASSERT_TRUE(WaitForLog(*daemon->process, IgnoredFieldsWarning("mlp")).has_value())
      << daemon->process->Stderr();
  const std::vector<std::string> warnings =
      LinesWith(daemon->process->Stderr(), IgnoredFieldsWarning("mlp"));
  ASSERT_EQ(warnings.size(), 1u) << daemon->process->Stderr();
  EXPECT_THAT(warnings[0], HasSubstr("optimization"));
  EXPECT_THAT(warnings[0], HasSubstr("model_warmup"));
  EXPECT_THAT(warnings[0], HasSubstr("parameters 'foo'"));
  // Fields it reads are not named.
  for (const char* read : {"instance_group", "version_policy", "backend", "input", "output"}) {
    EXPECT_THAT(warnings[0], Not(HasSubstr(read))) << read;
  }
  EXPECT_THAT(LinesWith(daemon->process->Stderr(), IgnoredFieldsWarning("classifier")),
              ::testing::IsEmpty());

  // The classifier: version 1, its NEFF named by default_model_filename, one replica
  // (KIND_AUTO without a count), and an answer.
  EXPECT_THAT(triton.Metadata("classifier").versions(), ElementsAre("1"));
  const inference::ModelConfig classifier = triton.Config("classifier");
  ASSERT_EQ(classifier.instance_group_size(), 1);
  EXPECT_EQ(classifier.instance_group(0).count(), 1);
  ASSERT_EQ(classifier.input_size(), 2);
  EXPECT_EQ(classifier.input(0).data_type(), inference::TYPE_INT64);
  ASSERT_EQ(classifier.output_size(), 2);
  EXPECT_EQ(classifier.output(1).data_type(), inference::TYPE_FP16);
  inference::ModelInferRequest request;
  request.set_model_name("classifier");
  for (const char* name : {"input_ids", "attention_mask"}) {
    inference::ModelInferRequest::InferInputTensor* input = request.add_inputs();
    input->set_name(name);
    input->set_datatype("INT64");
    input->add_shape(1);
    input->add_shape(kClassifierSequence);
    for (uint32_t i = 0; i < kClassifierSequence; ++i) {
      input->mutable_contents()->add_int64_contents(std::string(name) == "input_ids" ? 7 * i + 3
                                                                                     : 1);
    }
  }
  inference::ModelInferResponse response;
  const grpc::Status classified = triton.Call(&TritonStub::ModelInfer, request, &response);
  ASSERT_TRUE(classified.ok()) << classified.error_message();
  ASSERT_EQ(response.outputs_size(), 2);
  EXPECT_EQ(response.outputs(0).name(), "logits");
  EXPECT_THAT(response.outputs(0).shape(), ElementsAre(1, kClassifierClasses));

  // The same folders through the RepositoryIndex: loaded, then (mlp unloaded) the folder's
  // version as the policy picks it, then loaded again by RepositoryModelLoad.
  EXPECT_THAT(IndexEntries(triton.Index()), ElementsAre("classifier:1:READY", "mlp:2:READY"));
  ASSERT_TRUE(triton.Unload("mlp").ok());
  inference::RepositoryIndexResponse index = triton.Index();
  EXPECT_THAT(IndexEntries(index), ElementsAre("classifier:1:READY", "mlp:2:UNAVAILABLE"));
  ASSERT_NE(FindInIndex(index, "mlp"), nullptr);
  EXPECT_EQ(FindInIndex(index, "mlp")->reason(), "not loaded");
  const grpc::Status reloaded = triton.Load("mlp");
  ASSERT_TRUE(reloaded.ok()) << reloaded.error_message();
  EXPECT_THAT(IndexEntries(triton.Index()), ElementsAre("classifier:1:READY", "mlp:2:READY"));
  EXPECT_THAT(triton.Metadata("mlp").versions(), ElementsAre("2"));
  EXPECT_EQ(triton.Config("mlp").instance_group(0).count(), 2);
}

TEST(TritonRepositoryE2ETest, ABatchedTritonModelServesTheRowsOfARequest) {
  TempDir repo;
  // Variants compiled for 1 and 4 rows, named by neuron_batch_variants.
  WriteFile(repo.Join("idb/1/model_b1.neff"), IdentityNeff(1));
  WriteFile(repo.Join("idb/1/model_b4.neff"), IdentityNeff(4));
  WriteFile(repo.Join("idb/config.pbtxt"), BatchedIdentityConfig("idb", 8, R"(
dynamic_batching { preferred_batch_size: [ 4 ] max_queue_delay_microseconds: 100 }
parameters {
  key: "neuron_batch_variants"
  value: { string_value: "1:model_b1.neff,4:model_b4.neff" }
}
)"));
  // One NEFF compiled for max_batch_size rows.
  WriteFile(repo.Join("ids/1/model.neff"), IdentityNeff(4));
  WriteFile(repo.Join("ids/config.pbtxt"), BatchedIdentityConfig("ids", 4, ""));
  START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repo.path(), "--load-models=all"},
                                     {{"NRTSIM_CORES", "4"}}));
  const TritonClient triton(daemon->channel);
  ASSERT_TRUE(WaitUntil([&] { return triton.Ready("idb") == true; })) << daemon->process->Stderr();
  ASSERT_TRUE(WaitUntil([&] { return triton.Ready("ids") == true; })) << daemon->process->Stderr();

  const inference::ModelConfig config = triton.Config("idb");
  EXPECT_EQ(config.max_batch_size(), 8);
  ASSERT_TRUE(config.has_dynamic_batching());
  EXPECT_THAT(config.dynamic_batching().preferred_batch_size(), ElementsAre(4));
  EXPECT_EQ(config.dynamic_batching().max_queue_delay_microseconds(), 100u);
  ASSERT_TRUE(config.parameters().contains("neuron_batch_variants"));
  EXPECT_EQ(config.parameters().at("neuron_batch_variants").string_value(), "1,4");
  ASSERT_EQ(config.input_size(), 1);
  EXPECT_THAT(config.input(0).dims(), ElementsAre(4));
  const inference::ModelMetadataResponse metadata = triton.Metadata("idb");
  EXPECT_THAT(metadata.versions(), ElementsAre("1"));
  ASSERT_EQ(metadata.inputs_size(), 1);
  EXPECT_THAT(metadata.inputs(0).shape(), ElementsAre(-1, 4));
  ASSERT_EQ(metadata.outputs_size(), 1);
  EXPECT_THAT(metadata.outputs(0).shape(), ElementsAre(-1, 4));

  for (const std::string model : {"idb", "ids"}) {
    const TritonClient::FloatAnswer answer = triton.InferFloats(model, {3, 4}, Rows(3));
    ASSERT_TRUE(answer.status.ok()) << model << ": " << answer.status.error_message();
    EXPECT_THAT(answer.shape, ElementsAre(3, 4)) << model;
    EXPECT_EQ(answer.values, Rows(3)) << model;
  }

  // The single-NEFF form: one variant of max_batch_size rows.
  const inference::ModelConfig single = triton.Config("ids");
  EXPECT_EQ(single.max_batch_size(), 4);
  ASSERT_TRUE(single.parameters().contains("neuron_batch_variants"));
  EXPECT_EQ(single.parameters().at("neuron_batch_variants").string_value(), "4");
  const inference::ModelMetadataResponse single_metadata = triton.Metadata("ids");
  ASSERT_EQ(single_metadata.inputs_size(), 1);
  EXPECT_THAT(single_metadata.inputs(0).shape(), ElementsAre(-1, 4));
  // More rows than max_batch_size are refused.
  const TritonClient::FloatAnswer too_many = triton.InferFloats("ids", {5, 4}, Rows(5));
  EXPECT_FALSE(too_many.status.ok());
}

// RepositoryModelLoad's `config` in Triton's JSON replaces the folder's configuration (with or
// without a config.pbtxt of its own); neuron-serve's JSON still overrides a neuron-serve folder;
// JSON that is neither is refused naming both schemas.
TEST(TritonRepositoryE2ETest, TritonJsonThroughRepositoryModelLoad) {
  TempDir repo;
  // Triton's layout without a config.pbtxt: the NEFF compiled for 4 rows.
  WriteFile(repo.Join("jb/1/model.neff"), IdentityNeff(4));
  // A folder with neuron-serve's own configuration (an unbatched NEFF) and a version folder
  // whose NEFF is compiled for 4 rows, which Triton's JSON below serves instead.
  WriteFile(repo.Join("jown/config.pbtxt"), "version: \"5\"\nfile: \"plain.neff\"\n");
  WriteFile(repo.Join("jown/plain.neff"), IdentityNeff(1));
  WriteFile(repo.Join("jown/3/model_b4.neff"), IdentityNeff(4));
  // neuron-serve's schema.
  WriteFile(repo.Join("own/config.pbtxt"), "version: \"3\"\nreplicas: 1\n");
  WriteFile(repo.Join("own/model.neff"), IdentityNeff(1));
  START_DAEMON(daemon,
               SimDaemonArgs({"--model-repository=" + repo.path()}, {{"NRTSIM_CORES", "8"}}));
  const TritonClient triton(daemon->channel);
  EXPECT_THAT(IndexEntries(triton.Index()),
              ElementsAre("jb:1:UNAVAILABLE", "jown:5:UNAVAILABLE", "own:3:UNAVAILABLE"));

  grpc::Status status = triton.Load("jb", R"({
      "backend": "neuron",
      "max_batch_size": 4,
      "input": [{"name": "input", "data_type": "TYPE_FP32", "dims": [4]}],
      "output": [{"name": "output", "data_type": "TYPE_FP32", "dims": [4]}],
      "dynamic_batching": {"max_queue_delay_microseconds": 200},
      "instance_group": [{"count": 2, "kind": "KIND_MODEL"}]})");
  ASSERT_TRUE(status.ok()) << status.error_message();
  inference::ModelConfig config = triton.Config("jb");
  EXPECT_EQ(config.max_batch_size(), 4);
  ASSERT_EQ(config.instance_group_size(), 1);
  EXPECT_EQ(config.instance_group(0).count(), 2);
  ASSERT_TRUE(config.has_dynamic_batching());
  EXPECT_EQ(config.dynamic_batching().max_queue_delay_microseconds(), 200u);
  ASSERT_EQ(config.input_size(), 1);
  EXPECT_THAT(config.input(0).dims(), ElementsAre(4));
  inference::ModelMetadataResponse metadata = triton.Metadata("jb");
  EXPECT_THAT(metadata.versions(), ElementsAre("1"));
  ASSERT_EQ(metadata.inputs_size(), 1);
  EXPECT_THAT(metadata.inputs(0).shape(), ElementsAre(-1, 4));
  TritonClient::FloatAnswer answer = triton.InferFloats("jb", {2, 4}, Rows(2));
  ASSERT_TRUE(answer.status.ok()) << answer.status.error_message();
  EXPECT_THAT(answer.shape, ElementsAre(2, 4));
  EXPECT_EQ(answer.values, Rows(2));

  // Triton's JSON replaces the folder's own config.pbtxt: version folder 3, batched.
  status = triton.Load("jown", R"({
      "max_batch_size": 4,
      "parameters": {"neuron_batch_variants": {"string_value": "4:model_b4.neff"}}})");
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_THAT(triton.Metadata("jown").versions(), ElementsAre("3"));
  config = triton.Config("jown");
  EXPECT_EQ(config.max_batch_size(), 4);
  EXPECT_EQ(config.instance_group(0).count(), 1);
  answer = triton.InferFloats("jown", {3, 4}, Rows(3));
  ASSERT_TRUE(answer.status.ok()) << answer.status.error_message();
  EXPECT_EQ(answer.values, Rows(3));

  // Triton's JSON declares tensors the NEFF must have, as its config.pbtxt would.
  status = triton.Unload("jb");
  ASSERT_TRUE(status.ok()) << status.error_message();
  status = triton.Load("jb", R"({"max_batch_size": 4,
      "input": [{"name": "input", "data_type": "TYPE_FP32", "dims": [5]}]})");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr("model 'jb': the configuration's input 'input' has dims [5], but the "
                        "NEFF's are [4]"));
  // ... and names no other model.
  status = triton.Load("jb", R"({"name": "other", "backend": "neuron", "max_batch_size": 4})");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("names the model 'other'"));

  // neuron-serve's JSON over a neuron-serve folder, as before.
  status = triton.Load("own", R"({"replicas": 2})");
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_THAT(triton.Metadata("own").versions(), ElementsAre("3"));
  config = triton.Config("own");
  EXPECT_EQ(config.max_batch_size(), 0);
  EXPECT_EQ(config.instance_group(0).count(), 2);
  EXPECT_THAT(LinesWith(daemon->process->Stderr(), IgnoredFieldsWarning("own")),
              ::testing::IsEmpty());

  // Neither schema: a field of each.
  status = triton.Load("own", R"({"replicas": 1, "backend": "neuron"})");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("failed to load 'own': parameter 'config'"));
  EXPECT_THAT(status.error_message(), HasSubstr("neither a neuronserve.v1.ModelConfig"));
  EXPECT_THAT(status.error_message(), HasSubstr("nor a Triton inference.ModelConfig"));
  EXPECT_THAT(status.error_message(), HasSubstr("backend"));
  EXPECT_THAT(status.error_message(), HasSubstr("replicas"));
  EXPECT_EQ(triton.Config("own").instance_group(0).count(), 2);  // still the one loaded

  EXPECT_THAT(IndexEntries(triton.Index()),
              ElementsAre("jb:1:UNAVAILABLE", "jown:3:READY", "own:3:READY"));
}

// The rule telling the schemas apart, on config.pbtxt files side by side in one repository:
// neuron-serve's own (unbatched, batched with variants, none at all) load as before next to
// Triton's; one that sets only max_batch_size (a field of both) without variants is Triton's;
// one mixing fields of both is refused naming both.
TEST(TritonRepositoryE2ETest, NeuronServeConfigsLoadBesideTritonFolders) {
  TempDir repo;
  WriteTritonMlp(repo, "mlp", {"1"}, "instance_group [ { count: 1 kind: KIND_MODEL } ]\n");
  WriteFile(repo.Join("own/config.pbtxt"), "version: \"3\"\nreplicas: 1\n");
  WriteFile(repo.Join("own/model.neff"), IdentityNeff(1));
  WriteFile(repo.Join("plain/model.neff"), IdentityNeff(1));
  WriteFile(repo.Join("ownb/b1.neff"), IdentityNeff(1));
  WriteFile(repo.Join("ownb/b4.neff"), IdentityNeff(4));
  WriteFile(repo.Join("ownb/config.pbtxt"),
            "variant { file: \"b1.neff\" batch_size: 1 }\n"
            "variant { file: \"b4.neff\" batch_size: 4 }\n"
            "max_batch_size: 8\n");
  WriteFile(repo.Join("maxb/config.pbtxt"), "max_batch_size: 4\n");
  WriteFile(repo.Join("maxb/model.neff"), IdentityNeff(4));
  WriteFile(repo.Join("mixed/config.pbtxt"), "replicas: 2\nbackend: \"neuron\"\n");
  WriteFile(repo.Join("mixed/model.neff"), IdentityNeff(1));
  START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repo.path(), "--load-models=all"},
                                     {{"NRTSIM_CORES", "8"}}));
  const TritonClient triton(daemon->channel);
  for (const char* model : {"mlp", "own", "plain", "ownb", "maxb"}) {
    ASSERT_TRUE(WaitUntil([&] { return triton.Ready(model) == true; }))
        << model << "\n"
        << daemon->process->Stderr();
  }

  EXPECT_THAT(triton.Metadata("own").versions(), ElementsAre("3"));
  inference::ModelConfig config = triton.Config("own");
  EXPECT_EQ(config.max_batch_size(), 0);
  EXPECT_EQ(config.instance_group(0).count(), 1);
  TritonClient::FloatAnswer answer = triton.InferFloats("own", {1, 4}, Rows(1));
  ASSERT_TRUE(answer.status.ok()) << answer.status.error_message();
  EXPECT_EQ(answer.values, Rows(1));
  answer = triton.InferFloats("plain", {1, 4}, Rows(1));
  ASSERT_TRUE(answer.status.ok()) << answer.status.error_message();

  config = triton.Config("ownb");
  EXPECT_EQ(config.max_batch_size(), 8);
  EXPECT_EQ(config.parameters().at("neuron_batch_variants").string_value(), "1,4");
  config = triton.Config("maxb");
  EXPECT_EQ(config.max_batch_size(), 4);
  EXPECT_EQ(config.parameters().at("neuron_batch_variants").string_value(), "4");
  answer = triton.InferFloats("maxb", {2, 4}, Rows(2));
  ASSERT_TRUE(answer.status.ok()) << answer.status.error_message();
  EXPECT_EQ(answer.values, Rows(2));
  answer = triton.InferFloats("mlp", {1, 16}, MlpInput());
  ASSERT_TRUE(answer.status.ok()) << answer.status.error_message();

  const inference::RepositoryIndexResponse index = triton.Index();
  EXPECT_THAT(IndexEntries(index), ElementsAre("maxb:1:READY", "mixed:1:UNAVAILABLE", "mlp:1:READY",
                                               "own:3:READY", "ownb:1:READY", "plain:1:READY"));
  ASSERT_NE(FindInIndex(index, "mixed"), nullptr);
  EXPECT_THAT(FindInIndex(index, "mixed")->reason(),
              HasSubstr("'mixed/config.pbtxt' is neither a neuronserve.v1.ModelConfig"));
  EXPECT_THAT(FindInIndex(index, "mixed")->reason(),
              HasSubstr("nor a Triton inference.ModelConfig"));
  // No configuration here sets a field without effect.
  EXPECT_THAT(LinesWith(daemon->process->Stderr(), "its Triton configuration sets"),
              ::testing::IsEmpty());
}

}  // namespace neuronserve::testing::triton_repository_e2e
