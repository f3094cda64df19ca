// Tensors: placement, bounds-checked access, HBM accounting, tensor sets.
#include <cstdint>
#include <limits>
#include <vector>

#include "tests/sim/sim_test_util.h"

namespace nrtsim_test {
namespace {

class TensorTest : public SimTest {
 protected:
  void SetUp() override {
    SimTest::SetUp();
    SetEnv("NRTSIM_HBM_BYTES", "1MiB");
    Init();
  }

  size_t BytesUsed(uint32_t vnc) {
    nrt_vnc_memory_stats_t stats{};
    size_t out_size = 0;
    EXPECT_EQ(api().nrt_get_vnc_memory_stats(vnc, &stats, sizeof(stats), &out_size), NRT_SUCCESS);
    EXPECT_EQ(out_size, sizeof(stats));
    EXPECT_EQ(stats.bytes_limit, 1u << 20);
    return stats.bytes_used;
  }
};

TEST_F(TensorTest, WriteThenReadRoundTripsForDeviceAndHost) {
  for (nrt_tensor_placement_t placement :
       {NRT_TENSOR_PLACEMENT_DEVICE, NRT_TENSOR_PLACEMENT_HOST}) {
    TensorPtr tensor = MustAllocate(placement, 0, 16);
    EXPECT_EQ(api().nrt_tensor_get_size(tensor.get()), 16u);
    const char data[] = "abcd";
    ASSERT_EQ(api().nrt_tensor_write(tensor.get(), data, 6, 4), NRT_SUCCESS);
    ASSERT_EQ(api().nrt_tensor_memset(tensor.get(), 0, 'z', 2), NRT_SUCCESS);
    char back[16];
    ASSERT_EQ(api().nrt_tensor_read(tensor.get(), back, 0, 16), NRT_SUCCESS);
    EXPECT_EQ(std::string(back, 16), std::string("zz\0\0\0\0abcd\0\0\0\0\0\0", 16));
  }
}

TEST_F(TensorTest, AccessPastTheEndIsInvalid) {
  TensorPtr tensor = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16);
  char buf[32] = {};
  EXPECT_EQ(api().nrt_tensor_read(tensor.get(), buf, 0, 17), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_read(tensor.get(), buf, 12, 5), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_write(tensor.get(), buf, 16, 1), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_write(tensor.get(), buf, 17, 0), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_memset(tensor.get(), 8, 0, 9), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_memset(tensor.get(), 1ull << 63, 0, 1), NRT_INVALID);
  // offset + size wraps around to a small number: still out of range.
  constexpr size_t kMax = std::numeric_limits<size_t>::max();
  EXPECT_EQ(api().nrt_tensor_read(tensor.get(), buf, kMax, 2), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_write(tensor.get(), buf, 8, kMax - 4), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_memset(tensor.get(), kMax, 0, 2), NRT_INVALID);
  // The exact end is fine.
  EXPECT_EQ(api().nrt_tensor_read(tensor.get(), buf, 12, 4), NRT_SUCCESS);
  EXPECT_EQ(api().nrt_tensor_write(tensor.get(), buf, 16, 0), NRT_SUCCESS);
}

TEST_F(TensorTest, NullPointersAreInvalid) {
  TensorPtr tensor = MustAllocate(NRT_TENSOR_PLACEMENT_HOST, -1, 8);
  char buf[8];
  EXPECT_EQ(api().nrt_tensor_read(tensor.get(), nullptr, 0, 1), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_write(tensor.get(), nullptr, 0, 1), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_read(nullptr, buf, 0, 1), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_write(nullptr, buf, 0, 1), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_memset(nullptr, 0, 0, 1), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, 0, 8, "t", nullptr), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_get_size(nullptr), 0u);
  nrt_tensor_t* none = nullptr;
  api().nrt_tensor_free(&none);  // no-op
  api().nrt_tensor_free(nullptr);
}

TEST_F(TensorTest, FreeSetsTheHandleToNull) {
  nrt_tensor_t* tensor = nullptr;
  ASSERT_EQ(api().nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 64, "t", &tensor),
            NRT_SUCCESS);
  ASSERT_NE(tensor, nullptr);
  EXPECT_EQ(Stats().live_tensors, 1u);
  api().nrt_tensor_free(&tensor);
  EXPECT_EQ(tensor, nullptr);
  EXPECT_EQ(Stats().live_tensors, 0u);
}

TEST_F(TensorTest, BadCoreOrZeroSizeIsInvalid) {
  TensorPtr tensor;
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_DEVICE, 2, 8, &tensor), NRT_INVALID);  // 2 cores
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_DEVICE, -1, 8, &tensor), NRT_INVALID);
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_HOST, 5, 8, &tensor), NRT_INVALID);
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 0, &tensor), NRT_INVALID);
  EXPECT_EQ(Allocate(static_cast<nrt_tensor_placement_t>(7), 0, 8, &tensor), NRT_INVALID);
  EXPECT_EQ(tensor, nullptr);
}

TEST_F(TensorTest, VirtualTensorsHaveASizeButNoMemory) {
  TensorPtr tensor = MustAllocate(NRT_TENSOR_PLACEMENT_VIRTUAL, 0, 1 << 30);  // beyond the HBM
  EXPECT_EQ(api().nrt_tensor_get_size(tensor.get()), 1u << 30);
  EXPECT_EQ(BytesUsed(0), 0u);
  char buf[4] = {};
  EXPECT_EQ(api().nrt_tensor_read(tensor.get(), buf, 0, 4), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_write(tensor.get(), buf, 0, 4), NRT_INVALID);
  EXPECT_EQ(api().nrt_tensor_memset(tensor.get(), 0, 0, 4), NRT_INVALID);
}

TEST_F(TensorTest, DeviceTensorsExhaustAndReturnHbm) {
  constexpr size_t kChunk = 256 << 10;  // four fit in 1 MiB
  std::vector<TensorPtr> chunks;
  for (int i = 0; i < 4; ++i) {
    chunks.push_back(MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, kChunk));
    EXPECT_EQ(BytesUsed(0), (i + 1) * kChunk);
  }
  TensorPtr extra;
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 1, &extra), NRT_RESOURCE);
  EXPECT_EQ(extra, nullptr);
  // Core 1 has its own HBM; HOST tensors take none.
  TensorPtr other_core = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, kChunk);
  TensorPtr host = MustAllocate(NRT_TENSOR_PLACEMENT_HOST, 0, 4 * kChunk);
  EXPECT_EQ(BytesUsed(1), kChunk);
  EXPECT_EQ(Stats().device_bytes_used, 5 * kChunk);

  chunks.pop_back();
  EXPECT_EQ(BytesUsed(0), 3 * kChunk);
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, kChunk + 1, &extra), NRT_RESOURCE);
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, kChunk, &extra), NRT_SUCCESS);
  EXPECT_EQ(BytesUsed(0), 4 * kChunk);
  EXPECT_EQ(Allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, std::numeric_limits<size_t>::max(), &extra),
            NRT_RESOURCE);
}

TEST_F(TensorTest, MemoryStatsRejectABadCore) {
  nrt_vnc_memory_stats_t stats{};
  EXPECT_EQ(api().nrt_get_vnc_memory_stats(2, &stats, sizeof(stats), nullptr), NRT_INVALID);
  EXPECT_EQ(api().nrt_get_vnc_memory_stats(0, nullptr, sizeof(stats), nullptr), NRT_INVALID);
}

TEST_F(TensorTest, TensorSetsMapNamesAndReplace) {
  TensorSetPtr set = MustAllocateSet();
  EXPECT_EQ(Stats().live_tensor_sets, 1u);
  TensorPtr a = MustAllocate(NRT_TENSOR_PLACEMENT_HOST, -1, 4);
  TensorPtr b = MustAllocate(NRT_TENSOR_PLACEMENT_HOST, -1, 8);
  MustAdd(set.get(), "x", a.get());
  nrt_tensor_t* found = nullptr;
  ASSERT_EQ(api().nrt_get_tensor_from_tensor_set(set.get(), "x", &found), NRT_SUCCESS);
  EXPECT_EQ(found, a.get());
  MustAdd(set.get(), "x", b.get());
  ASSERT_EQ(api().nrt_get_tensor_from_tensor_set(set.get(), "x", &found), NRT_SUCCESS);
  EXPECT_EQ(found, b.get());
  EXPECT_EQ(api().nrt_get_tensor_from_tensor_set(set.get(), "y", &found), NRT_INVALID);
  EXPECT_EQ(api().nrt_add_tensor_to_tensor_set(set.get(), nullptr, a.get()), NRT_INVALID);
  EXPECT_EQ(api().nrt_add_tensor_to_tensor_set(set.get(), "z", nullptr), NRT_INVALID);
  EXPECT_EQ(api().nrt_add_tensor_to_tensor_set(nullptr, "z", a.get()), NRT_INVALID);

  nrt_tensor_set_t* raw = set.release();
  api().nrt_destroy_tensor_set(&raw);
  EXPECT_EQ(raw, nullptr);
  EXPECT_EQ(Stats().live_tensor_sets, 0u);
  api().nrt_destroy_tensor_set(&raw);  // no-op
}

}  // namespace
}  // namespace nrtsim_test
