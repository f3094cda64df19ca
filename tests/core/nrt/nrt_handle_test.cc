// NrtHandle's ownership rules against a fake function table that records what it frees: each
// handle is freed exactly once, by the table it came with, whether by destruction, Reset, move
// assignment or not at all (release).
#include "core/nrt/nrt_handle.h"

#include <utility>
#include <vector>

#include "core/nrt/nrt_handles.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neuronserve {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// What each fake table freed, in order; cleared by the fixture. Tests run one at a time.
std::vector<void*> freed_by_first;
std::vector<void*> freed_by_second;
std::vector<void*> unloaded;
NRT_STATUS unload_status = NRT_SUCCESS;

void FreeWithFirst(nrt_tensor_t** tensor) {
  freed_by_first.push_back(*tensor);
  *tensor = nullptr;  // as the runtime does
}
void FreeWithSecond(nrt_tensor_t** tensor) {
  freed_by_second.push_back(*tensor);
  *tensor = nullptr;
}
NRT_STATUS Unload(nrt_model_t* model) {
  unloaded.push_back(model);
  return unload_status;
}

using TensorHandle = NrtHandle<nrt_tensor_t, &NrtApi::tensor_free>;

class NrtHandleTest : public ::testing::Test {
 protected:
  NrtHandleTest() {
    freed_by_first.clear();
    freed_by_second.clear();
    unloaded.clear();
    unload_status = NRT_SUCCESS;
    first_.tensor_free = &FreeWithFirst;
    second_.tensor_free = &FreeWithSecond;
    first_.unload = &Unload;
  }

  // The runtime's handle types are opaque (and the simulator defines them for itself): the fake
  // hands out addresses of bytes, never dereferenced.
  static nrt_tensor_t* FakeTensor(char& storage) {
    return reinterpret_cast<nrt_tensor_t*>(&storage);
  }

  NrtApi first_;
  NrtApi second_;
  char storage_[4] = {};
  nrt_tensor_t* const a_ = FakeTensor(storage_[0]);
  nrt_tensor_t* const b_ = FakeTensor(storage_[1]);
};

TEST_F(NrtHandleTest, DestructionFreesOnceAndAnEmptyHandleFreesNothing) {
  { TensorHandle handle(a_, {&first_, "nrt_tensor_free"}); }
  { TensorHandle empty; }
  EXPECT_THAT(freed_by_first, ElementsAre(a_));
}

TEST_F(NrtHandleTest, MoveTransfersOwnershipAndTheTable) {
  TensorHandle from(a_, {&first_, "nrt_tensor_free"});
  TensorHandle to(std::move(from));
  EXPECT_EQ(from.get(), nullptr);
  EXPECT_EQ(to.get(), a_);
  from.reset();  // the moved-from handle owns nothing
  EXPECT_THAT(freed_by_first, IsEmpty());
  to.reset();
  to.reset();  // a second reset frees nothing more
  EXPECT_THAT(freed_by_first, ElementsAre(a_));
}

TEST_F(NrtHandleTest, MoveAssignmentFreesTheOldHandleWithItsOwnTable) {
  TensorHandle target(a_, {&first_, "nrt_tensor_free"});
  TensorHandle source(b_, {&second_, "nrt_tensor_free"});
  target = std::move(source);
  EXPECT_THAT(freed_by_first, ElementsAre(a_));
  EXPECT_THAT(freed_by_second, IsEmpty());
  target.reset();
  EXPECT_THAT(freed_by_second, ElementsAre(b_));
  EXPECT_THAT(freed_by_first, ElementsAre(a_));
}

TEST_F(NrtHandleTest, ReleaseGivesUpOwnershipWithoutFreeing) {
  nrt_tensor_t* raw = nullptr;
  {
    TensorHandle handle(a_, {&first_, "nrt_tensor_free"});
    raw = handle.release();
  }
  EXPECT_EQ(raw, a_);
  EXPECT_THAT(freed_by_first, IsEmpty());
}

// The classes built on it keep their API: NrtTensor's move leaves an empty tensor behind.
TEST_F(NrtHandleTest, NrtTensorMovesAndResets) {
  NrtTensor tensor(&first_, a_);
  NrtTensor moved = std::move(tensor);
  EXPECT_FALSE(tensor);
  EXPECT_EQ(tensor.size(), 0u);
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved.get(), a_);
  moved = NrtTensor(&second_, b_);
  EXPECT_THAT(freed_by_first, ElementsAre(a_));
  moved.Reset();
  EXPECT_FALSE(moved);
  EXPECT_THAT(freed_by_second, ElementsAre(b_));
}

// A model is unloaded once: by Unload, which reports the status, or else by the destructor,
// which can only log it.
TEST_F(NrtHandleTest, NrtModelUnloadsOnceAndReportsTheStatus) {
  nrt_model_t* const model_a = reinterpret_cast<nrt_model_t*>(&storage_[2]);
  nrt_model_t* const model_b = reinterpret_cast<nrt_model_t*>(&storage_[3]);
  unload_status = NRT_FAILURE;
  {
    NrtModel model(&first_, model_a, DtypeNumbering::kRuntime230);
    absl::Status status = model.Unload();
    EXPECT_EQ(status.code(), absl::StatusCode::kInternal) << status;
    EXPECT_FALSE(model);
    EXPECT_TRUE(model.Unload().ok());  // nothing left to unload
  }
  { NrtModel model(&first_, model_b, DtypeNumbering::kRuntime230); }  // logged, not thrown
  EXPECT_THAT(unloaded, ElementsAre(model_a, model_b));
}

}  // namespace
}  // namespace neuronserve
