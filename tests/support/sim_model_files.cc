#include "tests/support/sim_model_files.h"

#include <utility>

#include "absl/status/statusor.h"
#include "client/simmodel/classifier_model.h"
#include "client/simmodel/identity_model.h"
#include "gtest/gtest.h"
#include "sim/simmodel/format_result.h"
#include "sim/simmodel/sim_model_writer.h"

namespace neuronserve::testing {

std::string EncodeNeff(const simmodel::SimModel& model) {
  simmodel::FormatResult<std::string> bytes = simmodel::WriteSimModel(model);
  if (!bytes.ok()) {
    ADD_FAILURE() << "the sim model format refuses the model: " << bytes.error();
    return std::string();
  }
  return std::move(bytes).value();
}

std::string SimNeffFromJson(std::string_view json) {
  std::string bytes(simmodel::kSimNeffMagic);
  bytes += json;
  return bytes;
}

std::string FaultyIdentityNeff(std::string_view faults_json) {
  std::string json =
      "{\"latency_us\": 2000, \"inputs\": [{\"name\": \"input\", \"dtype\": \"float32\", "
      "\"shape\": [1, 4]}], \"outputs\": [{\"name\": \"output\", \"dtype\": \"float32\", "
      "\"shape\": [1, 4]}], \"ops\": [{\"op\": \"identity\", \"inputs\": [\"input\"], "
      "\"output\": \"output\"}], \"faults\": ";
  json += faults_json;
  json += "}";
  return SimNeffFromJson(json);
}

simmodel::SimModel IdentityModel(const std::vector<int64_t>& shape, uint64_t latency_us) {
  simmodel::IdentityOptions options;
  options.shape = shape;
  absl::StatusOr<simmodel::SimModel> model = simmodel::BuildIdentityModel(options);
  EXPECT_TRUE(model.ok()) << model.status();
  simmodel::SimModel result = model.ok() ? *model : simmodel::SimModel();
  result.latency_us = latency_us;
  return result;
}

simmodel::SimModel MlpModel(const simmodel::MlpOptions& options) {
  absl::StatusOr<simmodel::SimModel> model = simmodel::BuildMlpModel(options);
  EXPECT_TRUE(model.ok()) << model.status();
  return model.ok() ? *std::move(model) : simmodel::SimModel();
}

simmodel::SimModel SmallMlp(uint64_t seed) {
  simmodel::MlpOptions options;
  options.layer_sizes = {8, 16, 4};
  options.seed = seed;
  return MlpModel(options);
}

simmodel::SimModel ExampleClassifier() {
  simmodel::ClassifierOptions options;
  options.vocab = kClassifierVocab;
  options.sequence = kClassifierSequence;
  options.hidden = kClassifierHidden;
  options.classes = kClassifierClasses;
  options.seed = 1;
  absl::StatusOr<simmodel::SimModel> model = simmodel::BuildClassifierModel(options);
  EXPECT_TRUE(model.ok()) << model.status();
  return model.ok() ? *std::move(model) : simmodel::SimModel();
}

}  // namespace neuronserve::testing
