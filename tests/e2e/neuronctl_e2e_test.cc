// The real neuronctl binary against the real daemon on loopback: every subcommand that talks to
// a daemon, in text and JSON, and the .npy round trip checked against an independent forward pass
// of the model. The errors and exit codes a user meets: neuronctl_errors_e2e_test.cc.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/simmodel/mlp_model.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/neuronctl_fixture.h"
#include "tests/e2e/neuronctl_runner.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/sim_model_files.h"
#include "tests/support/subprocess.h"

namespace neuronserve::testing {
namespace neuronctl_e2e_test {
namespace {

// The float32 values of a .npy file, parsed here; checks the header says float32 of `shape`.
std::vector<float> NpyValues(const std::string& bytes, const std::string& shape) {
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  if (bytes.size() < 10) return {};
  const size_t header_length =
      static_cast<uint8_t>(bytes[8]) | (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
  const std::string header = bytes.substr(10, header_length);
  EXPECT_THAT(header, HasSubstr("'descr': '<f4'"));
  EXPECT_THAT(header, HasSubstr("'fortran_order': False"));
  EXPECT_THAT(header, HasSubstr("'shape': " + shape));
  EXPECT_EQ((10 + header_length) % 64, 0u) << "the data should start 64-byte aligned";
  const std::string data = bytes.substr(10 + header_length);
  std::vector<float> values(data.size() / sizeof(float));
  std::memcpy(values.data(), data.data(), values.size() * sizeof(float));
  return values;
}

// MlpReference stops at the logits; the model ends with a softmax.
std::vector<double> Softmax(std::vector<double> logits) {
  double largest = logits[0];
  for (double value : logits) largest = std::max(largest, value);
  double sum = 0;
  for (double& value : logits) sum += value = std::exp(value - largest);
  for (double& value : logits) value /= sum;
  return logits;
}

TEST_F(NeuronctlE2ETest, LoadUploadsWithProgressAndReportsWhereTheModelRuns) {
  ProcessResult load = NeuronctlAt(address(), {"load", model_path_, "--replicas=2", "--version=4"});
  ASSERT_EQ(load.exit_code, 0) << load.err;
  // The name defaults to the file's stem; both replicas are placed.
  EXPECT_THAT(load.out, HasSubstr("model 'mlp' version '4' READY on cores 0, 1 (2 replicas"));
  // stderr is not a terminal here: one summary line, no redrawn bar.
  EXPECT_THAT(load.err, HasSubstr("uploading mlp.neff: "));
  EXPECT_THAT(load.err, Not(HasSubstr("\r")));

  // Loading the same name again replaces it; JSON gives the LoadModel response.
  ProcessResult again = NeuronctlAt(address(), {"load", model_path_, "--name=mlp", "--cores=1",
                                                "--pipeline-depth=3", "--output=json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const nlohmann::json loaded = JsonOutput(again);
  EXPECT_EQ(loaded["model"]["name"], "mlp");
  EXPECT_EQ(loaded["model"]["state"], "MODEL_STATE_READY");
  ASSERT_EQ(loaded["model"]["replicas"].size(), 1u);
  EXPECT_EQ(loaded["model"]["replicas"][0]["cores"], nlohmann::json::array({1}));
  // --pipeline-depth: 3 tensor sets of the input's 64 bytes and the output's 32.
  EXPECT_EQ(loaded["model"]["replicas"][0]["tensor_sets"], 3);
  EXPECT_EQ(loaded["model"]["replicas"][0]["tensor_bytes"], "288");  // uint64: a JSON string

  // Past the daemon's limit: its refusal, naming the model and the field.
  ProcessResult too_deep =
      NeuronctlAt(address(), {"load", model_path_, "--name=mlp", "--pipeline-depth=9"});
  EXPECT_EQ(too_deep.exit_code, 1) << too_deep.err;  // the daemon refused: a runtime failure
  EXPECT_THAT(too_deep.err,
              HasSubstr("model 'mlp': pipeline_depth is 9, more than the limit of 8"));
}

TEST_F(NeuronctlE2ETest, LoadFromTheDaemonsRepository) {
  TempDir repository;
  WriteFile(repository.Join("id/model.neff"), EncodeNeff(IdentityModel({1, 4})));
  WriteFile(repository.Join("id/config.pbtxt"), "version: \"2\"\n");
  // The fixture's daemon holds the simulated machine's cores, and a NeuronCore belongs to one
  // process: stop it (kill and reap) before a daemon with a repository starts on them.
  daemon_.reset();
  std::string log;
  std::unique_ptr<RunningDaemon> daemon =
      StartDaemon(SimDaemonArgs({"--model-repository=" + repository.path()}), &log);
  ASSERT_NE(daemon, nullptr) << log;

  ProcessResult load = NeuronctlAt(daemon->address, {"load", "id", "--repository"});
  ASSERT_EQ(load.exit_code, 0) << load.err;
  EXPECT_THAT(load.out, HasSubstr("model 'id' version '2' READY on cores 0"));
  EXPECT_THAT(load.err, Not(HasSubstr("uploading")));  // nothing was sent
}

TEST_F(NeuronctlE2ETest, DevicesShowsEveryCoreWithItsModelsAndHealth) {
  LoadMlp();
  ProcessResult text = NeuronctlAt(address(), {"devices"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("Instance:  inf2.xlarge"));
  EXPECT_THAT(text.out, HasSubstr("Cores:     2 of 2 visible"));
  EXPECT_THAT(text.out,
              HasSubstr("CORE  ARCH           HBM USED  HBM       HEALTH   MODELS  FLAGS"));
  std::istringstream lines(text.out);
  std::string line;
  int core_rows = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("0  ", 0) == 0 || line.rfind("1  ", 0) == 0) {
      ++core_rows;
      EXPECT_THAT(line, AllOf(HasSubstr("NeuronCore-v2"), HasSubstr("healthy"), HasSubstr("mlp"),
                              HasSubstr("fp32"), HasSubstr("hbm"), HasSubstr("GiB")));
    }
  }
  EXPECT_EQ(core_rows, 2) << text.out;

  ProcessResult json = NeuronctlAt(address(), {"devices", "--output=json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json devices = JsonOutput(json);
  EXPECT_EQ(devices["visible_cores"], 2);
  ASSERT_EQ(devices["cores"].size(), 2u);
  for (const nlohmann::json& core : devices["cores"]) {
    EXPECT_EQ(core["healthy"], true);
    EXPECT_EQ(core["resident_models"], nlohmann::json::array({"mlp"}));
    // uint64 fields are strings in protobuf's JSON mapping.
    EXPECT_GT(std::stoull(core["memory_used_bytes"].get<std::string>()), 0u);
  }
}

TEST_F(NeuronctlE2ETest, ModelsAndModelDescribeTheLoadedModel) {
  ProcessResult empty = NeuronctlAt(address(), {"models"});
  ASSERT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_EQ(empty.out, "no models loaded\n");

  LoadMlp();
  ProcessResult table = NeuronctlAt(address(), {"models"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("NAME  VERSION  STATE  REPLICAS  CORES  REQUESTS OK/FAILED"));
  EXPECT_THAT(table.out, HasSubstr("mlp   -        READY  2         0, 1   0/0"));

  ProcessResult list = NeuronctlAt(address(), {"models", "--output=json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const nlohmann::json models = JsonOutput(list);
  ASSERT_EQ(models["models"].size(), 1u);
  EXPECT_EQ(models["models"][0]["name"], "mlp");
  EXPECT_EQ(models["models"][0]["source"], "upload");

  ProcessResult details = NeuronctlAt(address(), {"model", "mlp"});
  ASSERT_EQ(details.exit_code, 0) << details.err;
  EXPECT_THAT(details.out, HasSubstr("State:     READY"));
  EXPECT_THAT(details.out, HasSubstr("  input  float32 [1,16]  64 B"));
  EXPECT_THAT(details.out, HasSubstr("  output  float32 [1,8]  32 B"));
  // The daemon's default pipeline depth: 2 tensor sets of 64 + 32 bytes each.
  EXPECT_THAT(details.out, HasSubstr("  cores 0  healthy  0 executions  2 tensor sets, 192 B\n"));
  EXPECT_THAT(details.out, HasSubstr("  cores 1  healthy  0 executions  2 tensor sets, 192 B\n"));

  ProcessResult json = NeuronctlAt(address(), {"model", "mlp", "--output=json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json model = JsonOutput(json);
  EXPECT_EQ(model["inputs"][0]["name"], "input");
  EXPECT_EQ(model["inputs"][0]["shape"], nlohmann::json::array({1, kMlpInput}));
  EXPECT_EQ(model["outputs"][0]["shape"], nlohmann::json::array({1, kMlpOutput}));
}

TEST_F(NeuronctlE2ETest, InferRoundTripsNpyFilesAgainstTheModelsKnownOutput) {
  LoadMlp();
  const std::vector<float> row = InputRow();
  const std::string input = dir_.Join("x.npy");
  WriteFile(input, NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 16), }", row));
  const std::vector<double> expected = Softmax(MlpReference(mlp_, row, 2));
  ASSERT_EQ(expected.size(), static_cast<size_t>(kMlpOutput));

  const std::string out_dir = dir_.Join("out");
  ProcessResult infer =
      NeuronctlAt(address(), {"infer", "mlp", "--input", "input=" + input, "--output-dir=" + out_dir});
  ASSERT_EQ(infer.exit_code, 0) << infer.err;
  EXPECT_THAT(infer.out, HasSubstr("output float32 [1,8] -> " + out_dir + "/output.npy"));
  const std::vector<float> got = NpyValues(ReadFileContents(out_dir + "/output.npy"), "(1, 8)");
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-5) << i;

  // Printed values and JSON values, in both tensor forms, say the same.
  for (const std::string form : {"raw", "float"}) {
    ProcessResult json = NeuronctlAt(address(), {"infer", "mlp", "--input=input=" + input,
                                        "--form=" + form, "--output=json"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const nlohmann::json result = JsonOutput(json);
    EXPECT_EQ(result["model"], "mlp");
    EXPECT_EQ(result["outputs"]["output"]["shape"], nlohmann::json::array({1, kMlpOutput}));
    const std::vector<float> values = result["outputs"]["output"]["values"];
    ASSERT_EQ(values.size(), expected.size());
    for (size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(values[i], expected[i], 1e-5) << i;
    EXPECT_GE(result["device_ms"].get<double>(), 0.0);
  }
  ProcessResult text = NeuronctlAt(address(), {"infer", "mlp", "--input=input=" + input});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("model 'mlp': queue "));
  EXPECT_THAT(text.out, HasSubstr(absl::StrFormat("%.7g", static_cast<float>(expected[0]))));
}

// A batched model: the MLP compiled for 1 and 4 rows, uploaded as two files, kept in the state
// directory with both variants, and served again after a restart.
TEST_F(NeuronctlE2ETest, LoadsABatchedModelFromSeveralFilesAndKeepsItAcrossARestart) {
  simmodel::MlpOptions options;
  options.layer_sizes = {kMlpInput, 32, kMlpOutput};
  options.softmax = true;
  options.seed = 5;  // Mlp()'s weights: the fixture's mlp_ is the reference
  options.batch = 4;
  const std::string b1 = model_path_;
  const std::string b4 = dir_.Join("mlp_b4.neff");
  WriteFile(b4, EncodeNeff(MlpModel(options)));
  TempDir state;
  const std::vector<std::string> flags = {"--state-dir=" + state.Join("state")};
  daemon_.reset();  // the simulated cores belong to one daemon at a time
  std::string log;
  std::unique_ptr<RunningDaemon> daemon = StartDaemon(SimDaemonArgs(flags), &log);
  ASSERT_NE(daemon, nullptr) << log;

  ProcessResult load = NeuronctlAt(daemon->address, {"load", b1, b4, "--batch-sizes=1,4",
                                                     "--name=mlpb", "--max-queue-delay=200us"});
  ASSERT_EQ(load.exit_code, 0) << load.err;
  EXPECT_THAT(load.out, HasSubstr("model 'mlpb' READY on cores 0"));
  // Both variants are recorded: the record lists them with their batch sizes, in order.
  EXPECT_EQ(FilesUnder(state.Join("state/models/mlpb")).size(), 3u);  // two NEFFs, the record
  const nlohmann::json record =
      nlohmann::json::parse(ReadFileContents(state.Join("state/models/mlpb/record.json")));
  EXPECT_EQ(record["format"], 2);
  ASSERT_EQ(record["variants"].size(), 2u);
  EXPECT_EQ(record["variants"][0]["batch_size"], 1);
  EXPECT_EQ(record["variants"][1]["batch_size"], 4);

  const std::vector<float> row = InputRow();
  const std::string input = dir_.Join("x.npy");
  WriteFile(input, NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 16), }", row));
  const std::vector<double> expected = Softmax(MlpReference(mlp_, row, 2));
  auto infer = [&](const std::string& address) {
    ProcessResult result =
        NeuronctlAt(address, {"infer", "mlpb", "--input=input=" + input, "--output=json"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    const std::vector<float> values =
        JsonOutput(result)["outputs"]["output"]["values"].get<std::vector<float>>();
    ASSERT_EQ(values.size(), expected.size());
    for (size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(values[i], expected[i], 1e-5) << i;
  };
  infer(daemon->address);

  // SIGTERM, and a new daemon on the same state directory restores the model, both variants.
  EXPECT_EQ(daemon->process->StopWith(SIGTERM), 0) << daemon->process->Stderr();
  daemon.reset();
  std::unique_ptr<RunningDaemon> restarted = StartDaemon(SimDaemonArgs(flags), &log);
  ASSERT_NE(restarted, nullptr) << log;
  // The daemon restores the state directory's models before it serves.
  const v1::ListModelsResponse list = ListModels(*restarted->stub);
  ASSERT_EQ(list.models_size(), 1) << restarted->process->Stderr();
  EXPECT_EQ(list.models(0).state(), v1::MODEL_STATE_READY);
  EXPECT_EQ(list.models(0).source(), "state");
  infer(restarted->address);
}

TEST_F(NeuronctlE2ETest, LoadOfSeveralFilesNeedsABatchSizeForEach) {
  const std::string other = dir_.Join("other.neff");
  WriteFile(other, EncodeNeff(mlp_));
  const struct {
    std::vector<std::string> args;
    std::string error;
  } cases[] = {
      {{"load", model_path_, other},
       "2 FILEs given: several files are the variants of a batched model, so give --batch-sizes "
       "(one per FILE)"},
      {{"load", model_path_, other, "--batch-sizes=1", "--name=m"},
       "--batch-sizes lists 1 batch sizes for 2 FILEs; give one per FILE, in order"},
      {{"load", model_path_, other, "--batch-sizes=1,4"},
       "give --name: a batched model of several files has no one file name"},
      {{"load", "id", "--repository", "--batch-sizes=1"},
       "--batch-sizes is for uploads; a repository model's config.pbtxt names its variants"},
  };
  for (const auto& c : cases) {
    ProcessResult result = NeuronctlAt(address(), c.args);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_THAT(result.err, HasSubstr(c.error));
  }
  // The daemon names what it refuses: two variants of one batch size.
  ProcessResult same =
      NeuronctlAt(address(), {"load", model_path_, other, "--batch-sizes=4,4", "--name=m"});
  EXPECT_EQ(same.exit_code, 1) << same.err;
  EXPECT_THAT(same.err, HasSubstr("variants 1 and 2 both have batch_size 4"));
}

TEST_F(NeuronctlE2ETest, InferRandomIsSeededAndFitsTheModelsShape) {
  LoadMlp();
  auto run = [&](const std::string& seed) {
    ProcessResult result = NeuronctlAt(address(), {"infer", "mlp", "--random", "--seed=" + seed,
                                          "--output=json"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return JsonOutput(result)["outputs"]["output"]["values"].get<std::vector<float>>();
  };
  const std::vector<float> first = run("3");
  ASSERT_EQ(first.size(), static_cast<size_t>(kMlpOutput));
  // A softmax: a probability distribution.
  EXPECT_NEAR(std::accumulate(first.begin(), first.end(), 0.0), 1.0, 1e-5);
  EXPECT_EQ(run("3"), first);
  EXPECT_NE(run("4"), first);
}

// --shared-memory: the same outputs as the request path on both protocols, nothing left in
// /dev/shm or registered afterwards, and a daemon that has it off names its flag.
TEST_F(NeuronctlE2ETest, InferThroughSharedMemoryGivesTheSameOutputs) {
  LoadMlp();
  const std::string prefix = absl::StrCat("nsinfer", getpid());
  const std::vector<std::string> shared = {"--shared-memory", "--shared-memory-prefix=" + prefix};
  // The fixture's daemon has client shared memory off.
  std::vector<std::string> off = {"infer", "mlp", "--random"};
  off.insert(off.end(), shared.begin(), shared.end());
  ProcessResult refused = NeuronctlAt(address(), off);
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("--allow-client-shared-memory"));

  // The simulator's cores belong to one process: this daemon replaces the fixture's.
  daemon_.reset();
  START_DAEMON(allowing, SimDaemonArgs({"--allow-client-shared-memory"}));
  ProcessResult load = NeuronctlAt(allowing->address, {"load", model_path_});
  ASSERT_EQ(load.exit_code, 0) << load.err;
  for (const std::string protocol : {"native", "v2"}) {
    SCOPED_TRACE(protocol);
    std::vector<std::string> plain = {"infer",    "mlp",           "--random",
                                      "--seed=9", "--output=json", "--protocol=" + protocol};
    std::vector<std::string> through = plain;
    through.insert(through.end(), shared.begin(), shared.end());
    ProcessResult expected = NeuronctlAt(allowing->address, plain);
    ProcessResult got = NeuronctlAt(allowing->address, through);
    ASSERT_EQ(expected.exit_code, 0) << expected.err;
    ASSERT_EQ(got.exit_code, 0) << got.err;
    const nlohmann::json want = JsonOutput(expected)["outputs"];
    ASSERT_EQ(want["output"]["values"].size(), static_cast<size_t>(kMlpOutput));
    EXPECT_EQ(JsonOutput(got)["outputs"], want);
  }
  // Nothing left behind: no object, no region.
  for (const std::filesystem::directory_entry& entry :
       std::filesystem::directory_iterator("/dev/shm")) {
    EXPECT_FALSE(absl::StartsWith(entry.path().filename().string(), prefix)) << entry.path();
  }
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  v1::SharedMemoryStatusResponse regions;
  ASSERT_TRUE(
      allowing->stub->SharedMemoryStatus(&context, v1::SharedMemoryStatusRequest(), &regions).ok());
  EXPECT_EQ(regions.regions_size(), 0);
}

TEST_F(NeuronctlE2ETest, HealthExitsZeroOnlyWhenServing) {
  LoadMlp();
  ProcessResult daemon = NeuronctlAt(address(), {"health"});
  EXPECT_EQ(daemon.exit_code, 0) << daemon.err;
  EXPECT_EQ(daemon.out, "SERVING\n");
  EXPECT_EQ(NeuronctlAt(address(), {"health", "mlp"}).exit_code, 0);
  EXPECT_EQ(NeuronctlAt(address(), {"health", "neuronserve/liveness"}).exit_code, 0);
  ProcessResult json = NeuronctlAt(address(), {"health", "mlp", "--output=json"});
  EXPECT_EQ(JsonOutput(json), nlohmann::json({{"service", "mlp"}, {"status", "SERVING"}}));

  ProcessResult unknown = NeuronctlAt(address(), {"health", "nosuch"});
  EXPECT_EQ(unknown.exit_code, 3);
  EXPECT_EQ(unknown.out, "SERVICE_UNKNOWN\n");
  EXPECT_THAT(unknown.err, HasSubstr("service 'nosuch' is unknown to " + address()));

  ProcessResult unload = NeuronctlAt(address(), {"unload", "mlp"});
  ASSERT_EQ(unload.exit_code, 0) << unload.err;
  EXPECT_EQ(unload.out, "model 'mlp' unloaded from cores 0, 1\n");
  // The daemon re-evaluates health on its own thread: --wait would hide a real failure, so
  // poll briefly for the change the unload causes.
  ProcessResult gone;
  WaitUntil([&] {
    gone = NeuronctlAt(address(), {"health", "mlp"});
    return gone.exit_code != 0;
  }, absl::Seconds(5));
  EXPECT_EQ(gone.exit_code, 3);
  EXPECT_EQ(gone.out, "NOT_SERVING\n");
  EXPECT_THAT(gone.err, HasSubstr("service 'mlp' is NOT_SERVING"));
}

TEST_F(NeuronctlE2ETest, UnloadForgetsTheModel) {
  LoadMlp();
  ProcessResult unload = NeuronctlAt(address(), {"unload", "mlp", "--output=json"});
  ASSERT_EQ(unload.exit_code, 0) << unload.err;
  EXPECT_EQ(JsonOutput(unload)["model"]["name"], "mlp");

  ProcessResult model = NeuronctlAt(address(), {"model", "mlp"});
  EXPECT_EQ(model.exit_code, 1);
  EXPECT_THAT(model.err, HasSubstr("neuronctl model: NOT_FOUND: "));
  EXPECT_THAT(model.err, HasSubstr("'mlp'"));
  ProcessResult again = NeuronctlAt(address(), {"unload", "mlp"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("NOT_FOUND"));
}

}  // namespace
}  // namespace neuronctl_e2e_test
}  // namespace neuronserve::testing
