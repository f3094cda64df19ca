// nrt_load accepts well-formed sim NEFFs, places them, describes them, and rejects every kind of
// malformed model with NRT_INVALID and a line saying why.
#include <algorithm>
#include <cstring>

#include "tests/sim/sim_test_util.h"

namespace nrtsim_test {
namespace {

// x [2,4] x w [4,3] -> y [2,3]
json MatmulModel() {
  return {{"inputs", {Float32("x", {2, 4})}},
          {"outputs", {Float32("y", {2, 3})}},
          {"constants", {{"w", {{"shape", {4, 3}}, {"data", std::vector<float>(12, 1.0f)}}}}},
          {"ops", {{{"op", "matmul"}, {"inputs", {"x", "w"}}, {"output", "y"}}}}};
}

class ModelLoadTest : public SimTest {
 protected:
  void SetUp() override {
    SimTest::SetUp();
    Init();
  }

  // Loads `model` expecting NRT_INVALID and returns what the simulator printed.
  std::string ExpectInvalid(const std::string& bytes) {
    ModelPtr model;
    testing::internal::CaptureStderr();
    NRT_STATUS status = LoadBytes(bytes, &model);
    std::string printed = testing::internal::GetCapturedStderr();
    EXPECT_EQ(status, NRT_INVALID) << bytes;
    EXPECT_EQ(model, nullptr);
    EXPECT_EQ(printed.rfind("nrtsim: nrt_load: ", 0), 0u) << printed;
    EXPECT_EQ(std::count(printed.begin(), printed.end(), '\n'), 1) << printed;
    return printed;
  }
  std::string ExpectInvalid(const json& model) {
    return ExpectInvalid(SimNeffFromJson(model.dump()));
  }
};

TEST_F(ModelLoadTest, LoadsAWellFormedModel) {
  ModelPtr model = MustLoad(MatmulModel());
  ASSERT_NE(model, nullptr);
  uint32_t nc = 0;
  EXPECT_EQ(api().nrt_get_model_nc_count(model.get(), &nc), NRT_SUCCESS);
  EXPECT_EQ(nc, 1u);
  EXPECT_EQ(Stats().live_models, 1u);
  model.reset();
  EXPECT_EQ(Stats().live_models, 0u);
}

TEST_F(ModelLoadTest, RejectsAFileWithoutTheMagic) {
  ExpectInvalid(MatmulModel().dump());
  ExpectInvalid(std::string("NRTSIM2\n") + MatmulModel().dump());
  ExpectInvalid(std::string(""));
  ExpectInvalid(std::string("NRTSIM1"));
}

TEST_F(ModelLoadTest, RejectsBadJson) {
  EXPECT_NE(ExpectInvalid(SimNeffFromJson("{\"inputs\": [")).find("JSON"), std::string::npos);
  ExpectInvalid(SimNeffFromJson("[1, 2]"));
  ExpectInvalid(SimNeffFromJson("{\"inputs\": [], \"inputs\": []}"));
}

TEST_F(ModelLoadTest, RejectsAnUnknownOp) {
  json model = MatmulModel();
  model["ops"][0]["op"] = "conv2d";
  EXPECT_NE(ExpectInvalid(model).find("conv2d"), std::string::npos);
}

TEST_F(ModelLoadTest, RejectsAnInnerDimensionMismatch) {
  json model = MatmulModel();
  model["constants"]["w"] = {{"shape", {7, 3}}, {"data", std::vector<float>(21, 0.0f)}};
  EXPECT_EQ(ExpectInvalid(model),
            "nrtsim: nrt_load: op 0 (matmul): inner dimensions differ: [2,4] x [7,3]\n");
}

TEST_F(ModelLoadTest, RejectsAnUndefinedTensor) {
  json model = MatmulModel();
  model["ops"][0]["inputs"] = {"x", "nowhere"};
  EXPECT_NE(ExpectInvalid(model).find("'nowhere' is not defined"), std::string::npos);
}

TEST_F(ModelLoadTest, RejectsAnInputUsedBeforeItsOpDefinesIt) {
  json model = {{"inputs", {Float32("x", {2})}},
                {"outputs", {Float32("z", {2})}},
                {"ops",
                 {{{"op", "relu"}, {"inputs", {"y"}}, {"output", "z"}},
                  {{"op", "relu"}, {"inputs", {"x"}}, {"output", "y"}}}}};
  ExpectInvalid(model);
}

TEST_F(ModelLoadTest, RejectsADeclaredOutputShapeMismatch) {
  json model = MatmulModel();
  model["outputs"][0]["shape"] = {3, 2};
  EXPECT_NE(ExpectInvalid(model).find("declared [3,2]"), std::string::npos);
}

TEST_F(ModelLoadTest, RejectsAnOutputNoOpProduces) {
  json model = MatmulModel();
  model["outputs"].push_back(Float32("x", {2, 4}));  // an input, not an op output
  ExpectInvalid(model);
}

TEST_F(ModelLoadTest, RejectsDuplicateNames) {
  json input_twice = MatmulModel();
  input_twice["inputs"].push_back(Float32("x", {2, 4}));
  ExpectInvalid(input_twice);
  json constant_named_like_input = MatmulModel();
  constant_named_like_input["constants"]["x"] = {{"shape", {1}}, {"data", {1}}};
  ExpectInvalid(constant_named_like_input);
  json op_redefines_input = MatmulModel();
  op_redefines_input["ops"].push_back({{"op", "relu"}, {"inputs", {"y"}}, {"output", "x"}});
  EXPECT_NE(ExpectInvalid(op_redefines_input).find("already defined"), std::string::npos);
  ExpectInvalid(SimNeffFromJson(
      R"({"inputs":[{"name":"x","dtype":"float32","shape":[1]}],
                    "outputs":[{"name":"y","dtype":"float32","shape":[1]}],
                    "constants":{"c":{"shape":[1],"data":[1]},"c":{"shape":[1],"data":[2]}},
                    "ops":[{"op":"identity","inputs":["x"],"output":"y"}]})"));
}

TEST_F(ModelLoadTest, RejectsABadDtype) {
  json model = MatmulModel();
  model["inputs"][0]["dtype"] = "float33";
  EXPECT_NE(ExpectInvalid(model).find("float33"), std::string::npos);
  model["inputs"][0]["dtype"] = 1;
  ExpectInvalid(model);
}

TEST_F(ModelLoadTest, RejectsAConstantDataLengthMismatch) {
  json model = MatmulModel();
  model["constants"]["w"]["data"] = std::vector<float>(11, 1.0f);
  EXPECT_NE(ExpectInvalid(model).find("data has 11 values"), std::string::npos);
}

// Ops compute on every dtype, but both operands of a binary op have the same one: the model
// must cast explicitly, as a compiled graph would.
TEST_F(ModelLoadTest, RejectsOperandsOfDifferentDtypes) {
  json model = MatmulModel();
  model["inputs"][0]["dtype"] = "int32";
  EXPECT_EQ(ExpectInvalid(model),
            "nrtsim: nrt_load: op 0 (matmul): operands 'x' (int32) and 'w' (float32) have "
            "different dtypes; cast one of them\n");
}

TEST_F(ModelLoadTest, RejectsANonFloatIdentityIntoAFloatOutput) {
  json model = {{"inputs", {{{"name", "x"}, {"dtype", "int32"}, {"shape", {4}}}}},
                {"outputs", {Float32("y", {4})}},
                {"ops", {{{"op", "identity"}, {"inputs", {"x"}}, {"output", "y"}}}}};
  ExpectInvalid(model);
}

TEST_F(ModelLoadTest, RejectsMalformedFields) {
  json bad_shape = MatmulModel();
  bad_shape["inputs"][0]["shape"] = json::array();
  ExpectInvalid(bad_shape);
  bad_shape["inputs"][0]["shape"] = {2, 0};
  ExpectInvalid(bad_shape);
  bad_shape["inputs"][0]["shape"] = {2, -4};
  ExpectInvalid(bad_shape);
  json wrong_arity = MatmulModel();
  wrong_arity["ops"][0]["inputs"] = {"x"};
  ExpectInvalid(wrong_arity);
  json unknown_key = MatmulModel();
  unknown_key["latency_ms"] = 5;
  ExpectInvalid(unknown_key);
  json bad_nc = MatmulModel();
  bad_nc["nc_count"] = 0;
  ExpectInvalid(bad_nc);
  json broadcast_mismatch = {{"inputs", {Float32("a", {2, 3}), Float32("b", {2})}},
                             {"outputs", {Float32("c", {2, 3})}},
                             {"ops", {{{"op", "add"}, {"inputs", {"a", "b"}}, {"output", "c"}}}}};
  ExpectInvalid(broadcast_mismatch);
}

TEST_F(ModelLoadTest, RejectsSizesThatOverflow) {
  json model = {{"inputs", {Float32("x", {4294967295u, 4294967295u, 4294967295u})}},
                {"outputs", {Float32("y", {4294967295u, 4294967295u, 4294967295u})}},
                {"ops", {{{"op", "identity"}, {"inputs", {"x"}}, {"output", "y"}}}}};
  ExpectInvalid(model);
}

TEST_F(ModelLoadTest, ReportsTensorInfoInputsFirst) {
  json model = {
      {"inputs", {Float32("a", {2, 3}), {{"name", "ids"}, {"dtype", "int64"}, {"shape", {5}}}}},
      {"outputs",
       {Float32("sum", {2, 3}), {{"name", "ids_out"}, {"dtype", "int64"}, {"shape", {5}}}}},
      {"ops",
       {{{"op", "add"}, {"inputs", {"a", "a"}}, {"output", "sum"}},
        {{"op", "identity"}, {"inputs", {"ids"}}, {"output", "ids_out"}}}}};
  ModelPtr loaded = MustLoad(model);
  nrt_tensor_info_array_t* info = nullptr;
  ASSERT_EQ(api().nrt_get_model_tensor_info(loaded.get(), &info), NRT_SUCCESS);
  ASSERT_NE(info, nullptr);
  ASSERT_EQ(info->tensor_count, 4u);
  struct Expected {
    const char* name;
    nrt_tensor_usage_t usage;
    size_t size;
    nrt_dtype_t dtype;  // runtime 2.30 numbering (the default version)
    std::vector<uint32_t> shape;
  };
  const Expected expected[] = {
      {"a", NRT_TENSOR_USAGE_INPUT, 24, 0xA, {2, 3}},
      {"ids", NRT_TENSOR_USAGE_INPUT, 40, 0xC, {5}},
      {"sum", NRT_TENSOR_USAGE_OUTPUT, 24, 0xA, {2, 3}},
      {"ids_out", NRT_TENSOR_USAGE_OUTPUT, 40, 0xC, {5}},
  };
  for (size_t i = 0; i < 4; ++i) {
    const nrt_tensor_info_t& t = info->tensor_array[i];
    EXPECT_STREQ(t.name, expected[i].name);
    EXPECT_EQ(t.usage, expected[i].usage) << t.name;
    EXPECT_EQ(t.size, expected[i].size) << t.name;
    EXPECT_EQ(t.dtype, expected[i].dtype) << t.name;
    ASSERT_EQ(t.ndim, expected[i].shape.size()) << t.name;
    EXPECT_EQ(std::vector<uint32_t>(t.shape, t.shape + t.ndim), expected[i].shape) << t.name;
  }
  EXPECT_EQ(api().nrt_free_model_tensor_info(info), NRT_SUCCESS);
}

class ModelPlacementTest : public SimTest {
 protected:
  void SetUp() override {
    SimTest::SetUp();
    SetEnv("NRTSIM_CORES", "4");
    Init();
  }
};

TEST_F(ModelPlacementTest, RejectsAStartCoreOutOfRange) {
  ModelPtr model;
  EXPECT_EQ(Load(MatmulModel(), &model, 4), NRT_INVALID);
  EXPECT_EQ(Load(MatmulModel(), &model, -2), NRT_INVALID);
  EXPECT_EQ(Load(MatmulModel(), &model, 3), NRT_SUCCESS);
  EXPECT_EQ(Load(MatmulModel(), &model, -1), NRT_SUCCESS);  // -1: the first free core
}

// Start core -1 takes the first free core: the lowest from which nc_count consecutive cores
// hold no loaded model. (It used to mean core 0.) Where a model went shows in the HBM of its
// constants, which its start core pays.
TEST_F(ModelPlacementTest, StartCoreMinusOneTakesTheFirstFreeCores) {
  auto used = [&](uint32_t vnc) {
    nrt_vnc_memory_stats_t stats{};
    EXPECT_EQ(api().nrt_get_vnc_memory_stats(vnc, &stats, sizeof(stats), nullptr), NRT_SUCCESS);
    return stats.bytes_used;
  };
  json two_core = MatmulModel();
  two_core["nc_count"] = 2;
  ModelPtr on_zero = MustLoad(MatmulModel(), 0);
  ModelPtr first_free = MustLoad(MatmulModel(), -1);
  EXPECT_EQ(used(1), 48u);
  ModelPtr pair = MustLoad(two_core, -1);  // cores 2 and 3
  EXPECT_EQ(used(2), 48u);
  EXPECT_EQ(used(3), 0u);

  ModelPtr none;
  testing::internal::CaptureStderr();
  EXPECT_EQ(Load(MatmulModel(), &none, -1), NRT_LOAD_NOT_ENOUGH_NC);
  std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("nrtsim: nrt_load: start core -1: no 1 consecutive visible cores"),
            std::string::npos)
      << printed;

  first_free.reset();  // core 1 is free again, but alone: no room for two cores
  EXPECT_EQ(Load(two_core, &none, -1), NRT_LOAD_NOT_ENOUGH_NC);
  ModelPtr again = MustLoad(MatmulModel(), -1);
  EXPECT_EQ(used(1), 48u);
  EXPECT_EQ(Load(MatmulModel(), &none, 1), NRT_SUCCESS);  // an explicit core may still be shared
}

TEST_F(ModelPlacementTest, RejectsAModelThatDoesNotFitFromItsStartCore) {
  json two_core = MatmulModel();
  two_core["nc_count"] = 2;
  ModelPtr model;
  EXPECT_EQ(Load(two_core, &model, 3), NRT_LOAD_NOT_ENOUGH_NC);
  EXPECT_EQ(Load(two_core, &model, 2, 1), NRT_LOAD_NOT_ENOUGH_NC);  // vnc_count too small
  ASSERT_EQ(Load(two_core, &model, 2, 2), NRT_SUCCESS);
  uint32_t nc = 0;
  EXPECT_EQ(api().nrt_get_model_nc_count(model.get(), &nc), NRT_SUCCESS);
  EXPECT_EQ(nc, 2u);
  nc = 0;
  EXPECT_EQ(api().nrt_get_model_vnc_count(model.get(), &nc), NRT_SUCCESS);
  EXPECT_EQ(nc, 2u);
  // nrt_get_model_info: `vnc` is the same count; it copies what both sides know of the struct.
  nrt_model_info_t info{};
  size_t written = 99;
  EXPECT_EQ(api().nrt_get_model_info(model.get(), &info, sizeof(info), &written), NRT_SUCCESS);
  EXPECT_EQ(info.vnc, 2u);
  EXPECT_EQ(written, sizeof(info));
  written = 99;
  EXPECT_EQ(api().nrt_get_model_info(model.get(), &info, 0, &written), NRT_SUCCESS);
  EXPECT_EQ(written, 0u);
  EXPECT_EQ(api().nrt_get_model_info(model.get(), nullptr, sizeof(info), &written), NRT_INVALID);
  EXPECT_EQ(api().nrt_get_model_info(model.get(), &info, sizeof(info), nullptr), NRT_INVALID);
  json five_core = MatmulModel();
  five_core["nc_count"] = 5;
  EXPECT_EQ(Load(five_core, &model, 0), NRT_LOAD_NOT_ENOUGH_NC);
}

TEST_F(ModelPlacementTest, SeveralModelsShareACore) {
  ModelPtr a = MustLoad(MatmulModel(), 1);
  ModelPtr b = MustLoad(MatmulModel(), 1);
  EXPECT_NE(a, nullptr);
  EXPECT_NE(b, nullptr);
  EXPECT_EQ(Stats().live_models, 2u);
}

TEST_F(ModelPlacementTest, ConstantsAreChargedToTheStartCoreUntilUnload) {
  nrt_vnc_memory_stats_t stats{};
  ModelPtr model = MustLoad(MatmulModel(), 2);  // 12 float32 constants = 48 bytes
  ASSERT_EQ(api().nrt_get_vnc_memory_stats(2, &stats, sizeof(stats), nullptr), NRT_SUCCESS);
  EXPECT_EQ(stats.bytes_used, 48u);
  ASSERT_EQ(api().nrt_get_vnc_memory_stats(0, &stats, sizeof(stats), nullptr), NRT_SUCCESS);
  EXPECT_EQ(stats.bytes_used, 0u);
  EXPECT_EQ(Stats().device_bytes_used, 48u);
  model.reset();
  ASSERT_EQ(api().nrt_get_vnc_memory_stats(2, &stats, sizeof(stats), nullptr), NRT_SUCCESS);
  EXPECT_EQ(stats.bytes_used, 0u);
}

TEST_F(ModelPlacementTest, ConstantsThatDoNotFitAreNrtResource) {
  api().nrt_close();
  SetEnv("NRTSIM_HBM_BYTES", "40");
  Init();
  ModelPtr model;
  EXPECT_EQ(Load(MatmulModel(), &model, 0), NRT_RESOURCE);  // needs 48
  EXPECT_EQ(Stats().device_bytes_used, 0u);
}

}  // namespace
}  // namespace nrtsim_test
