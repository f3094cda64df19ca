// nrt_execute refuses tensor sets that do not match the model, naming the tensor.
#include <string>

#include "tests/sim/sim_test_util.h"

namespace nrtsim_test {
namespace {

class ExecuteValidationTest : public SimTest {
 protected:
  void SetUp() override {
    SimTest::SetUp();
    SetEnv("NRTSIM_CORES", "3");
    Init();
    // Two cores from core 0: tensors on cores 0 and 1 qualify, core 2 does not.
    model_ = MustLoad({{"nc_count", 2},
                       {"inputs", {Float32("x", {2})}},
                       {"outputs", {Float32("y", {2})}},
                       {"ops", {{{"op", "tanh"}, {"inputs", {"x"}}, {"output", "y"}}}}});
    in_ = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 8);
    out_ = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 8);
    in_set_ = MustAllocateSet();
    out_set_ = MustAllocateSet();
    MustAdd(in_set_.get(), "x", in_.get());
    MustAdd(out_set_.get(), "y", out_.get());
  }

  // Executes expecting NRT_INVALID and a line that names `tensor`.
  void ExpectInvalidNaming(const std::string& tensor) {
    testing::internal::CaptureStderr();
    EXPECT_EQ(api().nrt_execute(model_.get(), in_set_.get(), out_set_.get()), NRT_INVALID);
    std::string printed = testing::internal::GetCapturedStderr();
    EXPECT_NE(printed.find("nrtsim: nrt_execute: "), std::string::npos) << printed;
    EXPECT_NE(printed.find("'" + tensor + "'"), std::string::npos) << printed;
  }

  ModelPtr model_;
  TensorPtr in_, out_;
  TensorSetPtr in_set_, out_set_;
};

TEST_F(ExecuteValidationTest, MatchingSetsRun) {
  EXPECT_EQ(api().nrt_execute(model_.get(), in_set_.get(), out_set_.get()), NRT_SUCCESS);
}

TEST_F(ExecuteValidationTest, MissingInputOrOutput) {
  TensorSetPtr empty = MustAllocateSet();
  in_set_.swap(empty);
  ExpectInvalidNaming("x");
  in_set_.swap(empty);
  out_set_.swap(empty);
  ExpectInvalidNaming("y");
}

TEST_F(ExecuteValidationTest, WrongSize) {
  TensorPtr small = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 4);
  MustAdd(in_set_.get(), "x", small.get());
  ExpectInvalidNaming("x");
  TensorPtr large = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 12);
  MustAdd(in_set_.get(), "x", in_.get());
  MustAdd(out_set_.get(), "y", large.get());
  ExpectInvalidNaming("y");
}

TEST_F(ExecuteValidationTest, TensorOnACoreOutsideTheModel) {
  TensorPtr elsewhere = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 2, 8);
  MustAdd(out_set_.get(), "y", elsewhere.get());
  ExpectInvalidNaming("y");
}

TEST_F(ExecuteValidationTest, HostTensorsAreAcceptedVirtualOnesAreNot) {
  TensorPtr host = MustAllocate(NRT_TENSOR_PLACEMENT_HOST, -1, 8);
  MustAdd(in_set_.get(), "x", host.get());
  EXPECT_EQ(api().nrt_execute(model_.get(), in_set_.get(), out_set_.get()), NRT_SUCCESS);
  TensorPtr virt = MustAllocate(NRT_TENSOR_PLACEMENT_VIRTUAL, 0, 8);
  MustAdd(in_set_.get(), "x", virt.get());
  ExpectInvalidNaming("x");
}

TEST_F(ExecuteValidationTest, NullArgumentsAreInvalid) {
  EXPECT_EQ(api().nrt_execute(nullptr, in_set_.get(), out_set_.get()), NRT_INVALID);
  EXPECT_EQ(api().nrt_execute(model_.get(), nullptr, out_set_.get()), NRT_INVALID);
  EXPECT_EQ(api().nrt_execute(model_.get(), in_set_.get(), nullptr), NRT_INVALID);
}

TEST_F(ExecuteValidationTest, AFailedExecutionLeavesTheOutputUntouched) {
  float marker[2] = {-123.0f, 456.0f};
  ASSERT_EQ(api().nrt_tensor_write(out_.get(), marker, 0, sizeof(marker)), NRT_SUCCESS);
  TensorPtr small = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 4);
  MustAdd(in_set_.get(), "x", small.get());
  ExpectInvalidNaming("x");
  EXPECT_EQ(ReadFloats(out_.get()), (std::vector<float>{-123.0f, 456.0f}));
}

}  // namespace
}  // namespace nrtsim_test
