// The copy engine of each simulated core (NRTSIM_DMA_BYTES_PER_SECOND) and the per-core busy
// time (nrtsim_get_core_busy): copies of DEVICE tensors take size / bandwidth, queue behind
// each other on one core, overlap the core's executions, and are counted in nominal times, so
// the assertions are counters and lower bounds on time, never upper ones.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "tests/sim/sim_test_util.h"

namespace nrtsim_test {
namespace {

constexpr uint64_t kMiB = 1 << 20;

class CopyEngineTest : public SimTest {
 protected:
  nrtsim_core_busy_t Busy(int32_t vnc) const {
    nrtsim_core_busy_t busy{};
    EXPECT_EQ(api().nrtsim_get_core_busy(vnc, &busy, sizeof busy), NRT_SUCCESS);
    return busy;
  }
  // The copy time of `bytes` at `bytes_per_second`, in nanoseconds rounded up.
  static uint64_t CopyNs(uint64_t bytes, uint64_t bytes_per_second) {
    return (bytes * 1'000'000'000 + bytes_per_second - 1) / bytes_per_second;
  }
};

TEST_F(CopyEngineTest, WithoutABandwidthCopiesAreCountedAndFree) {
  Init();
  TensorPtr device = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 4096);
  TensorPtr host = MustAllocate(NRT_TENSOR_PLACEMENT_HOST, 1, 4096);
  std::string bytes(4096, 'x');
  ASSERT_EQ(api().nrt_tensor_write(device.get(), bytes.data(), 0, 4096), NRT_SUCCESS);
  ASSERT_EQ(api().nrt_tensor_read(device.get(), bytes.data(), 1024, 1000), NRT_SUCCESS);
  ASSERT_EQ(api().nrt_tensor_write(host.get(), bytes.data(), 0, 4096), NRT_SUCCESS);
  // A refused copy (past the end) moves nothing and is not counted.
  EXPECT_EQ(api().nrt_tensor_write(device.get(), bytes.data(), 1, 4096), NRT_INVALID);
  const nrtsim_core_busy_t busy = Busy(1);
  EXPECT_EQ(busy.copies, 2u);  // the host tensor's copy is not the device's
  EXPECT_EQ(busy.copy_bytes, 5096u);
  EXPECT_EQ(busy.copy_ns, 0u);
  EXPECT_EQ(Busy(0).copies, 0u);
}

TEST_F(CopyEngineTest, ACopyTakesItsSizeOverTheBandwidth) {
  SetEnv("NRTSIM_DMA_BYTES_PER_SECOND", "1MiB");
  Init();
  constexpr uint64_t kBytes = 52'429;  // 50 ms at 1 MiB/s
  TensorPtr device = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, kBytes);
  std::string bytes(kBytes, 'x');
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(api().nrt_tensor_write(device.get(), bytes.data(), 0, kBytes), NRT_SUCCESS);
  EXPECT_GE(std::chrono::steady_clock::now() - start,
            std::chrono::nanoseconds(CopyNs(kBytes, kMiB)));
  ASSERT_EQ(api().nrt_tensor_read(device.get(), bytes.data(), 0, 1), NRT_SUCCESS);
  const nrtsim_core_busy_t busy = Busy(0);
  EXPECT_EQ(busy.copies, 2u);
  EXPECT_EQ(busy.copy_ns, CopyNs(kBytes, kMiB) + CopyNs(1, kMiB));
}

TEST_F(CopyEngineTest, CopiesOnOneCoreQueueBehindEachOther) {
  SetEnv("NRTSIM_DMA_BYTES_PER_SECOND", "1MiB");
  Init();
  constexpr uint64_t kBytes = 31'458;  // 30 ms at 1 MiB/s
  constexpr int kThreads = 4;
  std::vector<TensorPtr> tensors;
  for (int i = 0; i < kThreads; ++i) {
    tensors.push_back(MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, kBytes));
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      std::string bytes(kBytes, 'x');
      if (api().nrt_tensor_write(tensors[i].get(), bytes.data(), 0, kBytes) != NRT_SUCCESS) {
        ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  // One engine: the four copies took their times one after another.
  EXPECT_GE(std::chrono::steady_clock::now() - start,
            std::chrono::nanoseconds(kThreads * CopyNs(kBytes, kMiB)));
  EXPECT_EQ(Busy(0).copy_ns, kThreads * CopyNs(kBytes, kMiB));
}

TEST_F(CopyEngineTest, CopiesOverlapTheCoresExecutionAndBothAreBusyTime) {
  SetEnv("NRTSIM_DMA_BYTES_PER_SECOND", "1GiB");
  Init();
  ModelPtr model = MustLoad({{"nc_count", 1},
                             {"latency_us", 400'000},
                             {"inputs", {Float32("x", {4})}},
                             {"outputs", {Float32("y", {4})}},
                             {"ops", {{{"op", "relu"}, {"inputs", {"x"}}, {"output", "y"}}}}},
                            0);
  TensorPtr in = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16);
  TensorPtr out = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16);
  TensorPtr next_input = MustAllocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16);
  TensorSetPtr in_set = MustAllocateSet();
  TensorSetPtr out_set = MustAllocateSet();
  MustAdd(in_set.get(), "x", in.get());
  MustAdd(out_set.get(), "y", out.get());

  api().nrtsim_reset_peak();
  std::thread executing(
      [&] { EXPECT_EQ(api().nrt_execute(model.get(), in_set.get(), out_set.get()), NRT_SUCCESS); });
  // Once the execution holds the core, the next input is written meanwhile.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (Stats().peak_concurrent_executions == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  ASSERT_EQ(Stats().peak_concurrent_executions, 1u);
  const float values[4] = {1, 2, 3, 4};
  ASSERT_EQ(api().nrt_tensor_write(next_input.get(), values, 0, sizeof values), NRT_SUCCESS);
  executing.join();

  const nrtsim_core_busy_t busy = Busy(0);
  EXPECT_EQ(busy.copies_during_execution, 1u);
  EXPECT_EQ(busy.executions, 1u);
  EXPECT_EQ(busy.execution_ns, 400'000'000u);
  EXPECT_EQ(busy.copy_ns, CopyNs(sizeof values, uint64_t{1} << 30));
}

TEST_F(CopyEngineTest, BusyTimeIsPerVisibleCoreOfTheOpenSession) {
  nrtsim_core_busy_t busy{};
  // No session: before the process's first nrt_init, or after the last case's nrt_close.
  const NRT_STATUS none = api().nrtsim_get_core_busy(0, &busy, sizeof busy);
  EXPECT_TRUE(none == NRT_UNINITIALIZED || none == NRT_CLOSED) << none;
  Init();
  EXPECT_EQ(api().nrtsim_get_core_busy(0, nullptr, sizeof busy), NRT_INVALID);
  EXPECT_EQ(api().nrtsim_get_core_busy(2, &busy, sizeof busy), NRT_INVALID);  // 2 cores
  EXPECT_EQ(api().nrtsim_get_core_busy(-1, &busy, sizeof busy), NRT_INVALID);
  EXPECT_EQ(api().nrtsim_get_core_busy(1, &busy, sizeof busy), NRT_SUCCESS);
  api().nrt_close();
  EXPECT_EQ(api().nrtsim_get_core_busy(0, &busy, sizeof busy), NRT_CLOSED);
}

TEST_F(CopyEngineTest, ABandwidthThatIsNotAPositiveByteCountRefusesInit) {
  for (const char* value : {"0", "fast", "-1", "1 GiB"}) {
    SetEnv("NRTSIM_DMA_BYTES_PER_SECOND", value);
    EXPECT_EQ(api().nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_INVALID) << value;
  }
}

}  // namespace
}  // namespace nrtsim_test
