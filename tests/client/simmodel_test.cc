// The model-building library on its own: generator, builders, validation, fault specs and the
// encoding.
#include <cmath>
#include <string>

#include "client/simmodel/fault_spec.h"
#include "client/simmodel/identity_model.h"
#include "client/simmodel/mlp_model.h"
#include "client/simmodel/prng.h"
#include "client/simmodel/sim_neff.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace neuronserve::simmodel {
namespace {

using ::testing::HasSubstr;

TEST(SplitMix64Test, MatchesTheReferenceSequence) {
  // The published SplitMix64 outputs for seed 0: pins the generator, and so every shipped model.
  SplitMix64 rng(0);
  EXPECT_EQ(rng.Next(), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(rng.Next(), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(rng.Next(), 0x06C45D188009454FULL);
}

TEST(SplitMix64Test, SymmetricFloatsStayInRangeAndCoverIt) {
  SplitMix64 rng(42);
  const double limit = 0.25;
  float lowest = 1, highest = -1;
  for (int i = 0; i < 10000; ++i) {
    const float value = rng.NextSymmetricFloat(limit);
    ASSERT_GE(value, -limit);
    ASSERT_LE(value, limit);
    lowest = std::min(lowest, value);
    highest = std::max(highest, value);
  }
  EXPECT_LT(lowest, -0.24);
  EXPECT_GT(highest, 0.24);
}

MlpOptions Mlp(std::vector<int64_t> sizes) {
  MlpOptions options;
  options.layer_sizes = std::move(sizes);
  return options;
}

TEST(MlpModelTest, HasTheDocumentedGraph) {
  MlpOptions options = Mlp({16, 32, 8});
  options.batch = 4;
  options.softmax = true;
  absl::StatusOr<SimModel> model = BuildMlpModel(options);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_EQ(model->inputs.size(), 1u);
  EXPECT_EQ(model->inputs[0].shape, (Shape{4, 16}));
  ASSERT_EQ(model->outputs.size(), 1u);
  EXPECT_EQ(model->outputs[0].shape, (Shape{4, 8}));
  EXPECT_EQ(model->constants.at("w0").shape, (Shape{16, 32}));
  EXPECT_EQ(model->constants.at("b0").shape, (Shape{32}));
  EXPECT_EQ(model->constants.at("w1").shape, (Shape{32, 8}));
  EXPECT_EQ(model->constants.at("b1").shape, (Shape{8}));

  std::vector<std::string> op_names;
  for (const Op& op : model->ops) op_names.emplace_back(OpKindName(op.kind));
  EXPECT_THAT(op_names,
              ::testing::ElementsAre("matmul", "add", "relu", "matmul", "add", "softmax"));
  EXPECT_EQ(model->ops.back().output, "output");
}

TEST(MlpModelTest, WeightsAreBoundedByFanIn) {
  absl::StatusOr<SimModel> model = BuildMlpModel(Mlp({100, 4}));
  ASSERT_TRUE(model.ok()) << model.status();
  for (const auto& [name, constant] : model->constants) {
    for (float value : constant.data) ASSERT_LE(std::fabs(value), 0.1f) << name;
  }
}

TEST(MlpModelTest, SameSeedSameWeightsOtherSeedOtherWeights) {
  MlpOptions options = Mlp({8, 8, 2});
  options.seed = 5;
  absl::StatusOr<SimModel> first = BuildMlpModel(options);
  absl::StatusOr<SimModel> again = BuildMlpModel(options);
  options.seed = 6;
  absl::StatusOr<SimModel> other = BuildMlpModel(options);
  ASSERT_TRUE(first.ok() && again.ok() && other.ok());
  EXPECT_EQ(first->constants.at("w0").data, again->constants.at("w0").data);
  EXPECT_NE(first->constants.at("w0").data, other->constants.at("w0").data);
}

TEST(MlpModelTest, RejectsBadOptions) {
  EXPECT_THAT(BuildMlpModel(Mlp({16})).status().message(), HasSubstr("at least two"));
  EXPECT_THAT(BuildMlpModel(Mlp({16, 0})).status().message(), HasSubstr("positive"));
  EXPECT_THAT(BuildMlpModel(Mlp({1 << 20, 1 << 20})).status().message(), HasSubstr("parameters"));
  MlpOptions zero_batch = Mlp({2, 2});
  zero_batch.batch = 0;
  EXPECT_THAT(BuildMlpModel(zero_batch).status().message(), HasSubstr("batch"));
}

TEST(MlpModelTest, RejectsNamesThatCollide) {
  MlpOptions same = Mlp({2, 2});
  same.output_name = "input";
  EXPECT_THAT(BuildMlpModel(same).status().message(), HasSubstr("both named 'input'"));
  MlpOptions weight = Mlp({2, 2});
  weight.input_name = "w0";
  EXPECT_THAT(BuildMlpModel(weight).status().message(), HasSubstr("'w0'"));
  MlpOptions intermediate = Mlp({2, 2, 2});
  intermediate.output_name = "dense0.matmul";
  EXPECT_THAT(BuildMlpModel(intermediate).status().message(),
              HasSubstr("'dense0.matmul' is used by a tensor inside the MLP"));
}

TEST(IdentityModelTest, OutputIsInput) {
  absl::StatusOr<SimModel> model = BuildIdentityModel({{1, 1024}, "x", "y"});
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->outputs[0].shape, (Shape{1, 1024}));
  ASSERT_EQ(model->ops.size(), 1u);
  EXPECT_EQ(model->ops[0].kind, OpKind::kIdentity);
  EXPECT_EQ(model->ops[0].inputs, std::vector<std::string>{"x"});
  EXPECT_FALSE(BuildIdentityModel({{}, "x", "y"}).ok());
  EXPECT_FALSE(BuildIdentityModel({{1, 0}, "x", "y"}).ok());
}

SimModel TwoInputModel(Shape a, Shape b, OpKind kind, Shape declared) {
  SimModel model;
  model.inputs = {{"a", DataType::kFloat32, a}, {"b", DataType::kFloat32, b}};
  model.outputs = {{"out", DataType::kFloat32, declared}};
  model.ops = {{kind, {"a", "b"}, "out"}};
  return model;
}

TEST(ValidationTest, InfersShapes) {
  EXPECT_TRUE(ValidateSimModel(TwoInputModel({2, 3}, {3, 4}, OpKind::kMatMul, {2, 4})).ok());
  EXPECT_TRUE(ValidateSimModel(TwoInputModel({2, 3}, {3}, OpKind::kAdd, {2, 3})).ok());
  EXPECT_TRUE(ValidateSimModel(TwoInputModel({3}, {5, 3}, OpKind::kMul, {5, 3})).ok());
  EXPECT_THAT(ValidateSimModel(TwoInputModel({2, 3}, {4, 4}, OpKind::kMatMul, {2, 4})).message(),
              HasSubstr("inner dimensions differ: [2,3] x [4,4]"));
  EXPECT_THAT(ValidateSimModel(TwoInputModel({2, 3}, {2}, OpKind::kAdd, {2, 3})).message(),
              HasSubstr("shapes [2,3] and [2] do not broadcast"));
  EXPECT_THAT(ValidateSimModel(TwoInputModel({2, 3}, {3, 4}, OpKind::kMatMul, {2, 5})).message(),
              HasSubstr("is declared [2,5] but op 0 (matmul) produces [2,4]"));
}

TEST(ValidationTest, RejectsBrokenNames) {
  SimModel undefined = TwoInputModel({2}, {2}, OpKind::kAdd, {2});
  undefined.ops[0].inputs[1] = "missing";
  EXPECT_THAT(ValidateSimModel(undefined).message(), HasSubstr("input 'missing' is not defined before this op"));

  SimModel redefined = TwoInputModel({2}, {2}, OpKind::kAdd, {2});
  redefined.ops.push_back({OpKind::kRelu, {"out"}, "a"});
  EXPECT_THAT(ValidateSimModel(redefined).message(), HasSubstr("name 'a' is already defined by inputs[0]"));

  SimModel unproduced = TwoInputModel({2}, {2}, OpKind::kAdd, {2});
  unproduced.outputs.push_back({"other", DataType::kFloat32, {2}});
  EXPECT_THAT(ValidateSimModel(unproduced).message(), HasSubstr("not produced by any op"));
}

TEST(ValidationTest, RejectsConstantWithWrongValueCount) {
  SimModel model = TwoInputModel({2}, {2}, OpKind::kAdd, {2});
  model.constants["c"] = Constant{{2, 2}, {1, 2, 3}};
  EXPECT_THAT(ValidateSimModel(model).message(), HasSubstr("data has 3 values but shape [2,2] (4 elements)"));
}

TEST(ValidationTest, RejectsOutOfRangeFaults) {
  SimModel model = TwoInputModel({2}, {2}, OpKind::kAdd, {2});
  model.faults = {Fault{FaultEvery{0}, FaultStatus(std::string("NRT_HW_ERROR"))}};
  EXPECT_THAT(ValidateSimModel(model).message(), HasSubstr("every must be at least 1"));
  model.faults = {Fault{FaultWithProbability{1.5, 1}, FaultStatus(6)}};
  EXPECT_THAT(ValidateSimModel(model).message(), HasSubstr("probability"));
  model.faults = {Fault{FaultOnExecution{1}, FaultStatus(0)}};
  EXPECT_THAT(ValidateSimModel(model).message(), HasSubstr("no fault"));
}

TEST(FaultSpecTest, ParsesEachForm) {
  absl::StatusOr<Fault> on = ParseFaultSpec("on_execution=3:NRT_HW_ERROR");
  ASSERT_TRUE(on.ok()) << on.status();
  EXPECT_EQ(std::get<FaultOnExecution>(on->trigger).execution, 3u);
  EXPECT_EQ(std::get<std::string>(on->status), "NRT_HW_ERROR");

  absl::StatusOr<Fault> every = ParseFaultSpec("every=10:1006");
  ASSERT_TRUE(every.ok()) << every.status();
  EXPECT_EQ(std::get<FaultEvery>(every->trigger).period, 10u);
  EXPECT_EQ(std::get<int32_t>(every->status), 1006);

  absl::StatusOr<Fault> random = ParseFaultSpec("probability=0.5:9:NRT_TIMEOUT");
  ASSERT_TRUE(random.ok()) << random.status();
  EXPECT_EQ(std::get<FaultWithProbability>(random->trigger).probability, 0.5);
  EXPECT_EQ(std::get<FaultWithProbability>(random->trigger).seed, 9u);
}

TEST(FaultSpecTest, RejectsBadSpecsWithAReason) {
  EXPECT_THAT(ParseFaultSpec("sometimes=3:NRT_HW_ERROR").status().message(),
              HasSubstr("unknown fault form 'sometimes'"));
  EXPECT_THAT(ParseFaultSpec("every=0:NRT_HW_ERROR").status().message(), HasSubstr("positive"));
  EXPECT_THAT(ParseFaultSpec("every=x:NRT_HW_ERROR").status().message(), HasSubstr("'x'"));
  EXPECT_THAT(ParseFaultSpec("every=2").status().message(), HasSubstr("every=N:STATUS"));
  EXPECT_THAT(ParseFaultSpec("every=2:NRT_OOPS").status().message(),
              HasSubstr("unknown status 'NRT_OOPS'"));
  EXPECT_THAT(ParseFaultSpec("every=2:NRT_SUCCESS").status().message(), HasSubstr("no fault"));
  EXPECT_THAT(ParseFaultSpec("every=2:0").status().message(), HasSubstr("no fault"));
  EXPECT_THAT(ParseFaultSpec("probability=1.5:1:NRT_HW_ERROR").status().message(),
              HasSubstr("(0, 1]"));
  EXPECT_THAT(ParseFaultSpec("probability=0.5:NRT_HW_ERROR").status().message(),
              HasSubstr("P:SEED:STATUS"));
  EXPECT_THAT(ParseFaultSpec("").status().message(), HasSubstr("want on_execution"));
}

TEST(SimNeffWriterTest, WritesMagicThenJsonWithExactFloats) {
  absl::StatusOr<SimModel> model = BuildMlpModel(Mlp({5, 3}));
  ASSERT_TRUE(model.ok()) << model.status();
  model->faults.push_back(*ParseFaultSpec("every=2:NRT_HW_ERROR"));
  absl::StatusOr<std::string> bytes = EncodeSimNeff(*model);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  ASSERT_EQ(bytes->substr(0, 8), "NRTSIM1\n");
  const nlohmann::json json = nlohmann::json::parse(bytes->substr(8));
  EXPECT_EQ(json["nc_count"], 1);
  EXPECT_EQ(json["faults"][0]["every"], 2);
  EXPECT_EQ(json["faults"][0]["status"], "NRT_HW_ERROR");
  const std::vector<double>& w0 = model->constants.at("w0").data;
  ASSERT_EQ(json["constants"]["w0"]["data"].size(), w0.size());
  for (size_t i = 0; i < w0.size(); ++i) {
    // The shortest float32 decimal, read back as a double and rounded, is the same float.
    EXPECT_EQ(static_cast<float>(json["constants"]["w0"]["data"][i].get<double>()), w0[i]);
  }
}

TEST(SimNeffWriterTest, RefusesAnInvalidModel) {
  SimModel model = TwoInputModel({2}, {3}, OpKind::kAdd, {2});
  EXPECT_FALSE(EncodeSimNeff(model).ok());
}

}  // namespace
}  // namespace neuronserve::simmodel
