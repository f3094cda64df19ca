// The daemon against runtimes of different versions and builds (issue 15): a dtype the runtime
// reports as void does not stop a model; the daemon serves at runtime 2.29 and 2.30 and on
// builds without nrt_get_model_nc_count (falling back to its twin, to nrt_get_model_info, to the
// config's core_count, each with a warning naming the source); and it refuses to start with
// NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS before runtime 2.34.
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/build_paths.h"

namespace neuronserve::testing {
namespace runtime_versions_e2e_test {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// The daemon logs a model's warnings while it loads, then "model 'NAME' ready on cores ...";
// the lines reach the capture of its stderr some time after LoadModel answered. Waits for the
// ready line, so that every warning of the load is in the capture.
bool WaitForReadyLine(const ChildProcess& daemon, const std::string& model) {
  return WaitForLog(daemon, "model '" + model + "'( version '[^']*')? ready on cores").has_value();
}

// The lines of `log` that contain `needle`.
std::vector<std::string> LinesWith(const std::string& log, const std::string& needle) {
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (line.find(needle) != absl::string_view::npos) lines.emplace_back(line);
  }
  return lines;
}

// relu over x [1, 4]: y = (1, 0, 3, 0) for x = (1, -2, 3, -4).
void ExpectServes(v1::NeuronServing::Stub& stub, const std::string& model) {
  v1::InferRequest request;
  request.set_model(model);
  AddInput(request, "x", {1, 4}, {1, -2, 3, -4}, TensorForm::kFloat);
  v1::InferResponse response;
  grpc::Status status = Infer(stub, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.outputs_size(), 1);
  EXPECT_THAT(OutputValues(response.outputs(0)), ElementsAre(1, 0, 3, 0));
}

TEST(RuntimeVersionsE2ETest, AVoidDtypeTensorLoadsReadyAsUnknownWithOneWarningAndServesRawBytes) {
  for (const char* version : {"2.30.0", "2.29.0"}) {
    SCOPED_TRACE(version);
    START_DAEMON(daemon, SimDaemonArgs({}, {{"NRTSIM_VERSION", version},
                                            {"NRTSIM_VOID_DTYPE_TENSORS", "y"}}));
    LoadResult loaded = Upload(*daemon->stub, Config("voidy"), SimNeff());
    ASSERT_TRUE(loaded.status.ok()) << loaded.status.error_message();
    v1::ModelStatus status;
    ASSERT_TRUE(GetModel(*daemon->stub, "voidy", &status).ok());
    EXPECT_EQ(status.state(), v1::MODEL_STATE_READY);
    ASSERT_EQ(status.inputs_size(), 1);
    EXPECT_EQ(status.inputs(0).dtype(), "float32");
    ASSERT_EQ(status.outputs_size(), 1);
    EXPECT_EQ(status.outputs(0).name(), "y");
    EXPECT_EQ(status.outputs(0).dtype(), "unknown");
    EXPECT_EQ(status.outputs(0).byte_size(), 16u);  // the runtime's size
    EXPECT_THAT(status.outputs(0).shape(), ElementsAre(1, 4));
    // One warning line for the model, naming the tensor and what the runtime reported.
    ASSERT_TRUE(WaitForReadyLine(*daemon->process, "voidy")) << daemon->process->Stderr();
    const std::vector<std::string> warnings =
        LinesWith(daemon->process->Stderr(), "served as raw bytes");
    ASSERT_EQ(warnings.size(), 1u) << daemon->process->Stderr();
    EXPECT_THAT(warnings[0], AllOf(HasSubstr("model 'voidy'"), HasSubstr("tensor 'y'"),
                                   HasSubstr("dtype 0 (void)"), HasSubstr("16 bytes")));
    EXPECT_THAT(warnings[0], Not(HasSubstr("tensor 'x'")));

    // It serves: the unknown output as raw bytes in the default and typed forms alike (the
    // bytes of relu(x) in float32, which the model computes), and float_data is refused.
    v1::InferRequest request;
    request.set_model("voidy");
    AddInput(request, "x", {1, 4}, {-1, 2, -3, 4}, TensorForm::kFloat);
    const std::vector<float> relu = {0, 2, 0, 4};
    const std::string relu_bytes(reinterpret_cast<const char*>(relu.data()), 16);
    for (v1::TensorForm form : {v1::TENSOR_FORM_UNSPECIFIED, v1::TENSOR_FORM_TYPED,
                                v1::TENSOR_FORM_RAW}) {
      request.set_response_form(form);
      v1::InferResponse response;
      grpc::Status served = Infer(*daemon->stub, request, &response);
      ASSERT_TRUE(served.ok()) << served.error_message();
      ASSERT_EQ(response.outputs_size(), 1);
      EXPECT_EQ(response.outputs(0).dtype(), "unknown");
      EXPECT_EQ(response.outputs(0).raw_data(), relu_bytes) << "form " << form;
      EXPECT_EQ(response.outputs(0).float_data_size(), 0);
    }
    request.set_response_form(v1::TENSOR_FORM_FLOAT);
    grpc::Status refused = Infer(*daemon->stub, request, nullptr);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(refused.error_message(),
                HasSubstr("model 'voidy' output 'y' is unknown: float_data cannot carry it"));
  }
}

TEST(RuntimeVersionsE2ETest, ServesAtRuntime229And230) {
  for (const char* version : {"2.29.0", "2.30.0"}) {
    SCOPED_TRACE(version);
    START_DAEMON(daemon, SimDaemonArgs({}, {{"NRTSIM_VERSION", version}}));
    v1::EnumerateResponse cores = EnumerateCores(*daemon->stub);
    EXPECT_EQ(cores.runtime().minor(), std::string(version) == "2.29.0" ? 29u : 30u);
    EXPECT_EQ(cores.visible_cores(), 2u);
    LoadResult loaded = Upload(*daemon->stub, Config("relu"), SimNeff());
    ASSERT_TRUE(loaded.status.ok()) << loaded.status.error_message();
    ExpectServes(*daemon->stub, "relu");
    // Every dtype decoded: nothing is served as unknown.
    ASSERT_TRUE(WaitForReadyLine(*daemon->process, "relu")) << daemon->process->Stderr();
    EXPECT_THAT(daemon->process->Stderr(), Not(HasSubstr("served as raw bytes")));
  }
}

// The model "wide" (two cores per replica, two replicas) sits on cores 0-1 and 2-3 and serves.
void ExpectTwoCoreReplicasServe(v1::NeuronServing::Stub& stub) {
  v1::ModelStatus status;
  ASSERT_TRUE(GetModel(stub, "wide", &status).ok());
  ASSERT_EQ(status.replicas_size(), 2);
  EXPECT_THAT(status.replicas(0).cores(), ElementsAre(0, 1));
  EXPECT_THAT(status.replicas(1).cores(), ElementsAre(2, 3));
  ExpectServes(stub, "wide");
}

struct CoreCountCase {
  const char* library;
  const char* source;  // what the warning names
};

// A two-core model on each build: placed on two cores, serving, with one warning naming where
// the core count came from (none on the full library, whose nrt_get_model_nc_count answers).
TEST(RuntimeVersionsE2ETest, ServesOnBuildsWithoutNrtGetModelNcCount) {
  const CoreCountCase cases[] = {
      {NRTSIM_LIBRARY_PATH, nullptr},
      {NRTSIM_NO_MODEL_NC_COUNT_LIBRARY_PATH, "from nrt_get_model_vnc_count"},
      {NRTSIM_MODEL_INFO_ONLY_LIBRARY_PATH, "from nrt_get_model_info"},
  };
  for (const CoreCountCase& c : cases) {
    SCOPED_TRACE(c.library);
    DaemonArgs args = SimDaemonArgs({}, {{"NRTSIM_CORES", "4"}});
    args.flags[1] = std::string("--nrt-library=") + c.library;
    START_DAEMON(daemon, args);
    v1::ModelConfig config = Config("wide");
    config.set_replicas(2);
    LoadResult loaded = Upload(*daemon->stub, config, SimNeff({.nc_count = 2}));
    ASSERT_TRUE(loaded.status.ok()) << loaded.status.error_message();
    ExpectTwoCoreReplicasServe(*daemon->stub);
    ASSERT_TRUE(WaitForReadyLine(*daemon->process, "wide")) << daemon->process->Stderr();
    const std::vector<std::string> warnings =
        LinesWith(daemon->process->Stderr(), "cores per replica");
    if (c.source == nullptr) {
      EXPECT_THAT(warnings, ::testing::IsEmpty());
    } else {
      ASSERT_EQ(warnings.size(), 1u) << daemon->process->Stderr();
      EXPECT_THAT(warnings[0], AllOf(HasSubstr("model 'wide'"), HasSubstr("2 cores per replica"),
                                     HasSubstr(c.source)));
    }
  }
}

// A runtime that reports no core count at all: the config's core_count places the model (with
// a warning saying so); without one the load fails, saying what to declare.
TEST(RuntimeVersionsE2ETest, WithoutAnyRuntimeCoreCountTheConfigDeclaresIt) {
  DaemonArgs args = SimDaemonArgs({}, {{"NRTSIM_CORES", "4"}});
  args.flags[1] = std::string("--nrt-library=") + NRTSIM_NO_MODEL_CORE_COUNT_LIBRARY_PATH;
  START_DAEMON(daemon, args);

  LoadResult undeclared = Upload(*daemon->stub, Config("wide"), SimNeff({.nc_count = 2}));
  EXPECT_EQ(undeclared.status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(undeclared.status.error_message(),
              AllOf(HasSubstr("model 'wide'"), HasSubstr("nrt_get_model_nc_count"),
                    HasSubstr("nrt_get_model_info"), HasSubstr("declare core_count")));

  v1::ModelConfig config = Config("wide");
  config.set_core_count(2);
  config.set_replicas(2);
  LoadResult loaded = Upload(*daemon->stub, config, SimNeff({.nc_count = 2}));
  ASSERT_TRUE(loaded.status.ok()) << loaded.status.error_message();
  ExpectTwoCoreReplicasServe(*daemon->stub);
  ASSERT_TRUE(WaitForReadyLine(*daemon->process, "wide")) << daemon->process->Stderr();
  const std::vector<std::string> warnings =
      LinesWith(daemon->process->Stderr(), "cores per replica");
  ASSERT_EQ(warnings.size(), 1u) << daemon->process->Stderr();
  EXPECT_THAT(warnings[0], AllOf(HasSubstr("model 'wide'"), HasSubstr("2 cores per replica"),
                                 HasSubstr("from the core_count of its config")));
}

TEST(RuntimeVersionsE2ETest, AsyncExecVariableIsRefusedBeforeRuntime234) {
  for (const char* version : {"2.29.0", "2.30.0", "2.33.1"}) {
    SCOPED_TRACE(version);
    DaemonProcess daemon(SimDaemonArgs(
        {}, {{"NRTSIM_VERSION", version}, {"NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS", "4"}}));
    EXPECT_EQ(daemon.WaitForExit(), 1);
    EXPECT_THAT(daemon.Stderr(),
                AllOf(HasSubstr("NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS is set ('4')"),
                      HasSubstr(std::string("Neuron runtime ") + version),
                      HasSubstr("older than 2.34")));
  }
  // From 2.34 the runtime no longer has the mode; the variable is harmless.
  START_DAEMON(daemon, SimDaemonArgs({}, {{"NRTSIM_VERSION", "2.34.0"},
                                          {"NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS", "4"}}));
  ASSERT_TRUE(Upload(*daemon->stub, Config("relu"), SimNeff()).status.ok());
  ExpectServes(*daemon->stub, "relu");
}

}  // namespace
}  // namespace runtime_versions_e2e_test
}  // namespace neuronserve::testing
