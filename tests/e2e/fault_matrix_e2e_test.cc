// The fault matrix: every runtime call the daemon makes, failing with each status a real runtime
// may plausibly return from it (the simulator's NRTSIM_FAULTS_FILE, sim/README.md "Faults on any
// call"), through the real daemon. Per cell: the client's gRPC code is the one the NRT status
// maps to and the message names the model and the status; the model's state (a failed load is
// FAILED with the reason, a failed request leaves the model READY); the core's health (out of
// rotation for a hardware fault only); device memory back to what the loaded models hold; and
// another model, on the other core, serving throughout. Execution, write and read faults are
// tried on an unpipelined model, a pipelined one and a batched one.
#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/nrt/nrt_status.h"
#include "core/serving/execution/execution_failure.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/infer_client.h"
#include "tests/e2e/lifecycle_client.h"
#include "tests/e2e/ops_client.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {
namespace fault_matrix_e2e_test {
namespace {

using ::testing::HasSubstr;

// How the victim model runs: one tensor set (copies and execution in turn), two (the copy
// thread overlaps them), or batched (the dynamic batcher, variants of 1 and 4 rows).
enum class Path { kUnpipelined, kPipelined, kBatched };

struct Cell {
  const char* call;
  NRT_STATUS status;
  Path path = Path::kUnpipelined;
};

std::string PathName(Path path) {
  switch (path) {
    case Path::kUnpipelined:
      return "unpipelined";
    case Path::kPipelined:
      return "pipelined";
    case Path::kBatched:
      return "batched";
  }
  return "";
}

std::string CellName(const ::testing::TestParamInfo<Cell>& info) {
  std::string name =
      absl::StrCat(info.param.call, "_", std::string(NrtStatusName(info.param.status)), "_",
                   PathName(info.param.path));
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

bool LoadTimeCall(const std::string& call) {
  return call == "nrt_load" || call == "nrt_tensor_allocate" || call == "nrt_allocate_tensor_set" ||
         call == "nrt_add_tensor_to_tensor_set";
}

bool Hardware(NRT_STATUS status) {
  return ClassifyExecutionFailure(NrtError("call", status)) == ExecutionFailure::kHardware;
}

v1::InferRequest Request(const std::string& model) {
  v1::InferRequest request;
  request.set_model(model);
  AddInput(request, "input", {1, 4}, {1, -2, 3, -4}, TensorForm::kRaw);
  return request;
}

class FaultMatrixE2ETest : public ::testing::TestWithParam<Cell> {
 protected:
  void SetUp() override {
    WriteRules("");
    START_DAEMON(daemon, SimDaemonArgs({"--model-repository=" + repository_.path()},
                                       {{"NRTSIM_FAULTS_FILE", rules_.Join("faults")}}));
    daemon_ = std::move(daemon);
    // The bystander: alone on core 1, it must serve through every cell.
    v1::ModelConfig bystander = Config("bystander");
    bystander.add_start_cores(1);
    ASSERT_TRUE(Upload(*daemon_->stub, bystander, EncodeNeff(IdentityModel({1, 4}))).status.ok());
    ExpectBystanderServes();
  }

  // The rules the simulator follows from now on (replaced atomically, as its README says).
  void WriteRules(const std::string& rules) {
    WriteFile(rules_.Join("faults.new"), rules);
    ASSERT_EQ(std::rename(rules_.Join("faults.new").c_str(), rules_.Join("faults").c_str()), 0);
  }

  // The victim, by the cell's path: on core 0, the one the bystander leaves free (not named:
  // an explicit start core changes what NRT_LOAD_NOT_ENOUGH_NC means).
  LoadResult LoadVictim() {
    if (GetParam().path == Path::kBatched) {
      WriteFile(repository_.Join("victim/b1.neff"), EncodeNeff(IdentityModel({1, 4})));
      WriteFile(repository_.Join("victim/b4.neff"), EncodeNeff(IdentityModel({4, 4})));
      WriteFile(repository_.Join("victim/config.pbtxt"),
                "variant { file: \"b1.neff\" batch_size: 1 }\n"
                "variant { file: \"b4.neff\" batch_size: 4 }\n");
      return LoadFromRepository(*daemon_->stub, "victim");
    }
    v1::ModelConfig config = Config("victim");
    config.set_pipeline_depth(GetParam().path == Path::kPipelined ? 2 : 1);
    return Upload(*daemon_->stub, config, EncodeNeff(IdentityModel({1, 4})));
  }

  v1::NeuronCore Core(uint32_t index) {
    const v1::EnumerateResponse cores = EnumerateCores(*daemon_->stub);
    for (const v1::NeuronCore& core : cores.cores()) {
      if (core.index() == index) return core;
    }
    ADD_FAILURE() << "no core " << index;
    return {};
  }

  void ExpectBystanderServes() {
    v1::InferResponse response;
    const grpc::Status status = Infer(*daemon_->stub, Request("bystander"), &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(response.outputs_size(), 1);
    EXPECT_EQ(OutputValues(response.outputs(0)), (std::vector<float>{1, -2, 3, -4}));
  }

  // The fault fired: the simulator says so in the daemon's log.
  void ExpectFaultFired(const Cell& cell) {
    EXPECT_TRUE(WaitForLog(*daemon_->process,
                           absl::StrCat("nrtsim: fault: ", cell.call, " on core [0-9-]+ -> ",
                                        std::string(NrtStatusName(cell.status))),
                           absl::Seconds(10))
                    .has_value())
        << daemon_->process->Stderr();
  }

  TempDir rules_;
  TempDir repository_;
  std::unique_ptr<RunningDaemon> daemon_;
};

TEST_P(FaultMatrixE2ETest, TheDaemonAnswersKeepsItsStateAndServesOn) {
  const Cell& cell = GetParam();
  const std::string status_name(NrtStatusName(cell.status));
  const grpc::StatusCode expected_code = static_cast<grpc::StatusCode>(NrtStatusCode(cell.status));
  const bool hardware = Hardware(cell.status);
  // On core 0, the victim's, except for the tensor-set calls, which have no core.
  const bool has_core = std::string(cell.call) != "nrt_allocate_tensor_set" &&
                        std::string(cell.call) != "nrt_add_tensor_to_tensor_set";
  const std::string rule = absl::StrCat(cell.call, ":", status_name, has_core ? ":core=0" : "");
  if (LoadTimeCall(cell.call)) {
    const uint64_t memory_before = Core(0).memory_used_bytes();
    WriteRules(rule);
    const LoadResult loaded = LoadVictim();
    ExpectFaultFired(cell);
    EXPECT_EQ(loaded.status.error_code(), expected_code) << loaded.status.error_message();
    EXPECT_THAT(loaded.status.error_message(), HasSubstr("model 'victim'"));
    EXPECT_THAT(loaded.status.error_message(), HasSubstr(status_name));
    v1::ModelStatus model;
    ASSERT_TRUE(GetModel(*daemon_->stub, "victim", &model).ok());
    EXPECT_EQ(model.state(), v1::MODEL_STATE_FAILED);
    EXPECT_THAT(model.error(), HasSubstr(status_name));
    // Nothing of the failed load stays on the device.
    EXPECT_EQ(Core(0).memory_used_bytes(), memory_before);
    EXPECT_EQ(Core(0).healthy(), !hardware) << "core 0 after " << status_name;
    EXPECT_TRUE(Core(1).healthy());
    ExpectBystanderServes();
    // Once the runtime stops failing, the same load succeeds (on a healthy core).
    WriteRules("");
    if (!hardware) {
      const LoadResult again = LoadVictim();
      EXPECT_TRUE(again.status.ok()) << again.status.error_message();
      v1::InferResponse response;
      EXPECT_TRUE(Infer(*daemon_->stub, Request("victim"), &response).ok());
    }
    return;
  }

  const LoadResult loaded = LoadVictim();
  ASSERT_TRUE(loaded.status.ok()) << loaded.status.error_message();
  v1::InferResponse warm;
  ASSERT_TRUE(Infer(*daemon_->stub, Request("victim"), &warm).ok());
  const uint64_t memory_loaded = Core(0).memory_used_bytes();
  WriteRules(rule);
  v1::InferResponse response;
  const grpc::Status answered = Infer(*daemon_->stub, Request("victim"), &response);
  ExpectFaultFired(cell);
  // A transient status (NRT_QUEUE_FULL, NRT_EXEC_NC_BUSY) is retried on another replica only:
  // the victim has one, so it is answered like any other.
  EXPECT_EQ(answered.error_code(), expected_code) << answered.error_message();
  EXPECT_THAT(answered.error_message(), HasSubstr("model 'victim'"));
  EXPECT_THAT(answered.error_message(), HasSubstr(status_name));
  v1::ModelStatus model;
  ASSERT_TRUE(GetModel(*daemon_->stub, "victim", &model).ok());
  EXPECT_EQ(model.state(), v1::MODEL_STATE_READY);
  ASSERT_EQ(model.replicas_size(), 1);
  EXPECT_EQ(model.replicas(0).healthy(), !hardware);
  EXPECT_EQ(Core(0).healthy(), !hardware) << "core 0 after " << status_name;
  EXPECT_TRUE(Core(1).healthy());
  EXPECT_EQ(Core(0).memory_used_bytes(), memory_loaded);  // no tensor leaked or lost
  ExpectBystanderServes();
  // The fault fired once: the next request is served, unless the core left rotation.
  const grpc::Status next = Infer(*daemon_->stub, Request("victim"), &response);
  if (hardware) {
    EXPECT_EQ(next.error_code(), grpc::StatusCode::UNAVAILABLE) << next.error_message();
  } else {
    EXPECT_TRUE(next.ok()) << next.error_message();
  }
  // Unloading gives the device memory back.
  ASSERT_TRUE(UnloadModel(*daemon_->stub, "victim").ok());
  EXPECT_TRUE(WaitUntil([&] { return Core(0).memory_used_bytes() == 0; }, absl::Seconds(10)))
      << Core(0).memory_used_bytes();
}

std::vector<Cell> Cells() {
  std::vector<Cell> cells;
  for (NRT_STATUS status : {NRT_FAILURE, NRT_INVALID, NRT_RESOURCE, NRT_TIMEOUT, NRT_HW_ERROR,
                            NRT_LOAD_NOT_ENOUGH_NC, NRT_FAIL_HOST_MEM_ALLOC}) {
    cells.push_back({"nrt_load", status});
  }
  for (NRT_STATUS status :
       {NRT_FAILURE, NRT_INVALID, NRT_RESOURCE, NRT_HW_ERROR, NRT_FAIL_HOST_MEM_ALLOC}) {
    cells.push_back({"nrt_tensor_allocate", status});
  }
  for (NRT_STATUS status : {NRT_FAILURE, NRT_RESOURCE, NRT_FAIL_HOST_MEM_ALLOC}) {
    cells.push_back({"nrt_allocate_tensor_set", status});
  }
  for (NRT_STATUS status : {NRT_FAILURE, NRT_INVALID}) {
    cells.push_back({"nrt_add_tensor_to_tensor_set", status});
  }
  for (NRT_STATUS status : {NRT_FAILURE, NRT_INVALID, NRT_RESOURCE, NRT_TIMEOUT, NRT_HW_ERROR,
                            NRT_QUEUE_FULL, NRT_EXEC_NC_BUSY, NRT_EXEC_BAD_INPUT,
                            NRT_EXEC_COMPLETED_WITH_ERR, NRT_EXEC_HW_ERR_HBM_UE}) {
    cells.push_back({"nrt_execute", status});
  }
  for (const char* call : {"nrt_tensor_write", "nrt_tensor_read"}) {
    for (NRT_STATUS status :
         {NRT_FAILURE, NRT_INVALID, NRT_TIMEOUT, NRT_HW_ERROR, NRT_EXEC_HW_ERR_DMA_ABORT}) {
      cells.push_back({call, status});
    }
  }
  for (Path path : {Path::kPipelined, Path::kBatched}) {
    cells.push_back({"nrt_execute", NRT_FAILURE, path});
    cells.push_back({"nrt_execute", NRT_EXEC_NC_BUSY, path});
    cells.push_back({"nrt_execute", NRT_EXEC_HW_ERR_NC_UE, path});
    cells.push_back({"nrt_tensor_write", NRT_INVALID, path});
    cells.push_back({"nrt_tensor_write", NRT_EXEC_HW_ERR_DMA_ABORT, path});
    cells.push_back({"nrt_tensor_read", NRT_FAILURE, path});
    cells.push_back({"nrt_tensor_read", NRT_EXEC_HW_ERR_HBM_UE, path});
  }
  return cells;
}

INSTANTIATE_TEST_SUITE_P(EveryCall, FaultMatrixE2ETest, ::testing::ValuesIn(Cells()), CellName);

}  // namespace
}  // namespace fault_matrix_e2e_test
}  // namespace neuronserve::testing
