// Runs the real neuronctl binary: the files it writes, what it prints, and its exit codes.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/subprocess.h"
#include "tests/support/build_paths.h"

namespace neuronserve {
namespace {

namespace fs = std::filesystem;
using ::neuronserve::testing::ProcessResult;
using ::neuronserve::testing::RunProcess;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class NeuronctlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           (std::string("neuronctl_test_") + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static ProcessResult Neuronctl(std::vector<std::string> args) {
    args.insert(args.begin(), NEURONCTL_PATH);
    return RunProcess(args);
  }

  // Runs sim-model with `args` plus --out, expects success, and returns the file's bytes.
  std::string WriteModel(std::vector<std::string> args, const std::string& file = "m.neff") {
    args.insert(args.begin(), "sim-model");
    args.push_back("--out=" + (dir_ / file).string());
    ProcessResult result = Neuronctl(args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    std::ifstream in(dir_ / file, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }

  static nlohmann::json ModelJson(const std::string& bytes) {
    EXPECT_THAT(bytes, StartsWith("NRTSIM1\n"));
    if (bytes.size() < 8) return nullptr;
    return nlohmann::json::parse(bytes.substr(8), nullptr, /*allow_exceptions=*/false);
  }

  fs::path dir_;
};

TEST_F(NeuronctlTest, TopLevelHelpListsCommandsAndExitCodes) {
  ProcessResult result = Neuronctl({"--help"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_THAT(result.out, HasSubstr("sim-model"));
  EXPECT_THAT(result.out, HasSubstr("Exit codes"));
  EXPECT_THAT(result.out, HasSubstr("2  usage error"));
}

TEST_F(NeuronctlTest, NoCommandOrUnknownCommandIsAUsageError) {
  ProcessResult none = Neuronctl({});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_THAT(none.err, HasSubstr("Usage: neuronctl COMMAND"));
  ProcessResult unknown = Neuronctl({"frobnicate"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("unknown command 'frobnicate'"));
}

TEST_F(NeuronctlTest, SimModelHelpListsFlagsAndDefaults) {
  ProcessResult result = Neuronctl({"sim-model", "--help"});
  EXPECT_EQ(result.exit_code, 0);
  for (const char* text : {"--mlp=SIZES", "--identity=SHAPE", "--softmax", "--seed=N",
                           "(default: 0)", "--out=FILE", "--fault=SPEC", "--output=text|json"}) {
    EXPECT_THAT(result.out, HasSubstr(text));
  }
}

TEST_F(NeuronctlTest, MlpModelHasTheRequestedStructure) {
  const nlohmann::json model =
      ModelJson(WriteModel({"--mlp", "16,32,8", "--softmax", "--batch=4", "--seed=3"}));
  ASSERT_TRUE(model.is_object());
  EXPECT_EQ(model["nc_count"], 1);
  EXPECT_EQ(model["latency_us"], 0);
  EXPECT_EQ(model["load_latency_ms"], 0);
  EXPECT_EQ(model["inputs"],
            nlohmann::json::parse(R"([{"name":"input","dtype":"float32","shape":[4,16]}])"));
  EXPECT_EQ(model["outputs"],
            nlohmann::json::parse(R"([{"name":"output","dtype":"float32","shape":[4,8]}])"));
  const nlohmann::json& constants = model["constants"];
  EXPECT_EQ(constants["w0"]["shape"], nlohmann::json::parse("[16,32]"));
  EXPECT_EQ(constants["w0"]["data"].size(), 16u * 32u);
  EXPECT_EQ(constants["b0"]["data"].size(), 32u);
  EXPECT_EQ(constants["w1"]["data"].size(), 32u * 8u);
  EXPECT_EQ(constants["b1"]["data"].size(), 8u);
  ASSERT_EQ(model["ops"].size(), 6u);
  EXPECT_EQ(model["ops"][5]["op"], "softmax");
  EXPECT_EQ(model["ops"][5]["output"], "output");
  EXPECT_TRUE(model["faults"].empty());
}

TEST_F(NeuronctlTest, RuntimeKnobsAndFaultsReachTheFile) {
  const nlohmann::json model = ModelJson(
      WriteModel({"--identity=2,3", "--input-name=x", "--output-name=y", "--latency-us=250",
                  "--load-latency-ms=40", "--cores", "2", "--fault=on_execution=3:NRT_HW_ERROR",
                  "--fault=every=5:1006", "--fault=probability=0.25:11:NRT_TIMEOUT"}));
  ASSERT_TRUE(model.is_object());
  EXPECT_EQ(model["nc_count"], 2);
  EXPECT_EQ(model["latency_us"], 250);
  EXPECT_EQ(model["load_latency_ms"], 40);
  EXPECT_EQ(model["inputs"][0]["name"], "x");
  EXPECT_EQ(model["inputs"][0]["shape"], nlohmann::json::parse("[2,3]"));
  EXPECT_EQ(model["outputs"][0]["name"], "y");
  EXPECT_EQ(model["ops"],
            nlohmann::json::parse(R"([{"op":"identity","inputs":["x"],"output":"y"}])"));
  EXPECT_TRUE(model["constants"].empty());
  EXPECT_EQ(model["faults"], nlohmann::json::parse(R"([
      {"on_execution": 3, "status": "NRT_HW_ERROR"},
      {"every": 5, "status": 1006},
      {"probability": 0.25, "seed": 11, "status": "NRT_TIMEOUT"}])"));
}

TEST_F(NeuronctlTest, SameSeedSameBytesOtherSeedOtherWeights) {
  const std::string first = WriteModel({"--mlp=8,4,2", "--seed=9"}, "a.neff");
  const std::string again = WriteModel({"--mlp=8,4,2", "--seed=9"}, "b.neff");
  const std::string other = WriteModel({"--mlp=8,4,2", "--seed=10"}, "c.neff");
  EXPECT_EQ(first, again);
  ASSERT_FALSE(other.empty());
  EXPECT_NE(ModelJson(first)["constants"]["w0"], ModelJson(other)["constants"]["w0"]);
}

TEST_F(NeuronctlTest, PrintsOneLineOrOneJsonObject) {
  const std::string path = (dir_ / "m.neff").string();
  ProcessResult text = Neuronctl({"sim-model", "--mlp=16,32,8", "--out=" + path});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("wrote mlp model"));
  EXPECT_THAT(text.out, HasSubstr("'input' float32 [1,16]"));
  EXPECT_THAT(text.out, HasSubstr("'output' float32 [1,8]"));
  EXPECT_THAT(text.out, HasSubstr(path));
  EXPECT_EQ(std::count(text.out.begin(), text.out.end(), '\n'), 1);

  ProcessResult json =
      Neuronctl({"sim-model", "--identity=1,1024", "--output=json", "--out", path});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json report = nlohmann::json::parse(json.out);
  EXPECT_EQ(report["kind"], "identity");
  EXPECT_EQ(report["path"], path);
  EXPECT_EQ(report["bytes"], fs::file_size(path));
  EXPECT_EQ(report["outputs"][0]["shape"], nlohmann::json::parse("[1,1024]"));
}

TEST_F(NeuronctlTest, WritesAClassifierAndIdentitiesOfOtherDtypes) {
  const std::string path = (dir_ / "m.neff").string();
  ProcessResult classifier = Neuronctl(
      {"sim-model", "--classifier=100,8,4,3", "--seed=2", "--output=json", "--out=" + path});
  ASSERT_EQ(classifier.exit_code, 0) << classifier.err;
  const nlohmann::json report = nlohmann::json::parse(classifier.out);
  EXPECT_EQ(report["kind"], "classifier");
  EXPECT_EQ(report["vocab"], 100);
  EXPECT_EQ(report["inputs"][0]["name"], "input_ids");
  EXPECT_EQ(report["inputs"][0]["dtype"], "int64");
  EXPECT_EQ(report["inputs"][1]["name"], "attention_mask");
  EXPECT_EQ(report["outputs"][0]["shape"], nlohmann::json::parse("[1,3]"));
  EXPECT_EQ(report["outputs"][1]["dtype"], "float16");
  const nlohmann::json model = ModelJson(WriteModel({"--classifier=100,8,4,3"}));
  EXPECT_EQ(model["constants"]["embeddings"]["shape"], nlohmann::json::parse("[100,4]"));

  ProcessResult identity =
      Neuronctl({"sim-model", "--identity=2,3", "--dtype=bfloat16", "--out=" + path});
  ASSERT_EQ(identity.exit_code, 0) << identity.err;
  EXPECT_THAT(identity.out, HasSubstr("'input' bfloat16 [2,3]"));
  EXPECT_THAT(identity.out, HasSubstr("'output' bfloat16 [2,3]"));
}

struct UsageCase {
  std::string name;  // of the test case
  std::vector<std::string> args;
  std::string message;  // expected in stderr
};

// Names the case in test output instead of dumping its bytes.
void PrintTo(const UsageCase& usage_case, std::ostream* os) { *os << usage_case.name; }

class NeuronctlUsageTest : public NeuronctlTest, public ::testing::WithParamInterface<UsageCase> {};

TEST_P(NeuronctlUsageTest, ExitsWithTwoAndNamesTheProblem) {
  std::vector<std::string> args = GetParam().args;
  args.insert(args.begin(), "sim-model");
  for (std::string& arg : args) {
    if (arg == "OUT") arg = "--out=" + (dir_ / "m.neff").string();
  }
  ProcessResult result = Neuronctl(args);
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_THAT(result.err, HasSubstr(GetParam().message));
  EXPECT_THAT(result.err, HasSubstr("neuronctl sim-model --help"));
  EXPECT_FALSE(fs::exists(dir_ / "m.neff"));
}

INSTANTIATE_TEST_SUITE_P(
    BadCommandLines, NeuronctlUsageTest,
    ::testing::Values(
        UsageCase{"MissingOut", {"--mlp=16,8"}, "--out is required"},
        UsageCase{"NoModelKind",
                  {"OUT"},
                  "exactly one of --mlp=SIZES, --identity=SHAPE and --classifier=V,S,H,C"},
        UsageCase{"ThreeClassifierSizes",
                  {"--classifier=512,16,32", "OUT"},
                  "--classifier: '512,16,32' needs four sizes VOCAB,SEQ,HIDDEN,CLASSES"},
        UsageCase{"ZeroClassifierSize", {"--classifier=512,0,32,4", "OUT"}, "--classifier"},
        UsageCase{"InputNameWithClassifier",
                  {"--classifier=8,4,2,2", "--input-name=x", "OUT"},
                  "--input-name does not apply to --classifier"},
        UsageCase{"DtypeWithMlp",
                  {"--mlp=4,4", "--dtype=int64", "OUT"},
                  "--dtype applies to --identity only"},
        UsageCase{"UnknownDtype",
                  {"--identity=4", "--dtype=float33", "OUT"},
                  "--dtype: 'float33' is not a dtype"},
        UsageCase{"BothModelKinds", {"--mlp=16,8", "--identity=1,4", "OUT"}, "exactly one of"},
        UsageCase{"OneMlpSize", {"--mlp=16", "OUT"}, "--mlp: '16' needs at least two sizes"},
        UsageCase{"ZeroMlpSize", {"--mlp=16,0,8", "OUT"}, "--mlp: '16,0,8'"},
        UsageCase{"NonNumericMlpSize", {"--mlp=16,x", "OUT"}, "--mlp: '16,x'"},
        UsageCase{"NegativeIdentityDim", {"--identity=1,-4", "OUT"}, "--identity: '1,-4'"},
        UsageCase{"NonNumericSeed",
                  {"--mlp=4,4", "--seed=abc", "OUT"},
                  "--seed: 'abc' is not a non-negative"},
        UsageCase{"ZeroBatch",
                  {"--mlp=4,4", "--batch=0", "OUT"},
                  "--batch: '0' is not a positive integer"},
        UsageCase{"ZeroCores", {"--mlp=4,4", "--cores=0", "OUT"}, "--cores: '0'"},
        UsageCase{"NegativeLatency", {"--mlp=4,4", "--latency-us=-5", "OUT"}, "--latency-us: '-5'"},
        UsageCase{"UnknownFaultForm",
                  {"--mlp=4,4", "--fault=sometimes=3:NRT_HW_ERROR", "OUT"},
                  "--fault: bad fault 'sometimes=3:NRT_HW_ERROR': unknown fault form"},
        UsageCase{"UnknownFaultStatus",
                  {"--mlp=4,4", "--fault=every=3:NRT_NOPE", "OUT"},
                  "unknown status 'NRT_NOPE'"},
        UsageCase{"UnknownOutputFormat",
                  {"--mlp=4,4", "--output=yaml", "OUT"},
                  "--output must be text or json"},
        UsageCase{"UnknownFlag", {"--mlp=4,4", "--colour=red", "OUT"}, "unknown flag --colour"},
        UsageCase{"OutWithoutValue", {"--mlp=4,4", "--out"}, "--out needs a value"},
        UsageCase{"BatchWithIdentity",
                  {"--identity=4", "--batch=2", "OUT"},
                  "--batch applies to --mlp only"},
        UsageCase{"NameCollision", {"--mlp=4,4", "--input-name=w0", "OUT"}, "'w0'"},
        UsageCase{"StrayArgument", {"--mlp=4,4", "stray", "OUT"}, "unexpected argument 'stray'"}),
    [](const ::testing::TestParamInfo<UsageCase>& info) { return info.param.name; });

TEST_F(NeuronctlTest, UnwritableOutputIsARuntimeFailureNamingThePath) {
  const std::string path = (dir_ / "missing-dir" / "m.neff").string();
  ProcessResult result = Neuronctl({"sim-model", "--mlp=4,4", "--out=" + path});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr(path));
  EXPECT_THAT(result.err, HasSubstr("No such file or directory"));
}

}  // namespace
}  // namespace neuronserve
