#include "core/nrt/nrt_runtime.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/match.h"
#include "core/nrt/nrt_status.h"
#include "core/nrt/runtime_environment.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/core/sim_fixture.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::SimNeffFromJson;
using testing::SimStats;
using testing::StartSimRuntime;

absl::Span<const uint8_t> TextBytes(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// y = x * scale + bias over a [2,3] float32 input, plus an int32 passthrough.
const char* kAffineModel = R"({
  "inputs": [{"name": "x", "dtype": "float32", "shape": [2, 3]},
             {"name": "ids", "dtype": "int32", "shape": [4]}],
  "outputs": [{"name": "y", "dtype": "float32", "shape": [2, 3]},
              {"name": "ids_out", "dtype": "int32", "shape": [4]}],
  "constants": {"scale": {"shape": [3], "data": [1, 2, 3]},
                "bias": {"shape": [3], "data": [0.5, 0.5, 0.5]}},
  "ops": [{"op": "mul", "inputs": ["x", "scale"], "output": "scaled"},
          {"op": "add", "inputs": ["scaled", "bias"], "output": "y"},
          {"op": "identity", "inputs": ["ids"], "output": "ids_out"}]
})";

TEST(NrtRuntimeTest, StartsReadsVersionAndClosesOnDestruction) {
  testing::SimLibraryPin pin;
  {
    auto runtime = StartSimRuntime();
    ASSERT_NE(runtime, nullptr);
    EXPECT_EQ(runtime->version().major, 2u);
    EXPECT_EQ(runtime->version().minor, 30u);
    EXPECT_EQ(runtime->dtype_numbering(), DtypeNumbering::kRuntime230);
    EXPECT_FALSE(runtime->version().detail.empty());
    EXPECT_EQ(SimStats().init_count, 1u);
    EXPECT_EQ(SimStats().close_count, 0u);
  }
  EXPECT_EQ(SimStats().close_count, 1u);
}

TEST(NrtRuntimeTest, OnlyOneRuntimePerProcessAtATime) {
  auto first = StartSimRuntime();
  ASSERT_NE(first, nullptr);
  auto library = NrtLibrary::Open(testing::SimLibraryPath());
  ASSERT_TRUE(library.ok());
  auto second = NrtRuntime::Start(*std::move(library));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(), HasSubstr("already initialized"));
  EXPECT_EQ(SimStats().init_count, 1u);  // nrt_init was not called twice
}

TEST(NrtRuntimeTest, InitFailureCarriesTheNrtStatus) {
  setenv("NRTSIM_INSTANCE", "gpu9000", 1);
  auto library = NrtLibrary::Open(testing::SimLibraryPath());
  ASSERT_TRUE(library.ok());
  auto runtime = NrtRuntime::Start(*std::move(library));
  ASSERT_FALSE(runtime.ok());
  EXPECT_EQ(runtime.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(runtime.status().message(), HasSubstr("nrt_init"));
  EXPECT_THAT(runtime.status().message(), HasSubstr("NRT_INVALID (2)"));
  EXPECT_EQ(NrtStatusOf(runtime.status()), NRT_INVALID);
  // A failed start does not hold the one-per-process slot.
  unsetenv("NRTSIM_INSTANCE");
  EXPECT_NE(StartSimRuntime(), nullptr);
}

TEST(NrtRuntimeTest, HandlesLoadBindExecuteAndReleaseEverything) {
  auto runtime = StartSimRuntime();
  ASSERT_NE(runtime, nullptr);
  {
    auto model = runtime->LoadModel(TextBytes(SimNeffFromJson(kAffineModel)), 1);
    ASSERT_TRUE(model.ok()) << model.status();
    auto cores = model->CoreCount();
    ASSERT_TRUE(cores.ok()) << cores.status();
    ASSERT_TRUE(cores->has_value());
    EXPECT_EQ((*cores)->count, 1u);
    EXPECT_EQ((*cores)->source, "nrt_get_model_nc_count");

    auto specs = model->Tensors();
    ASSERT_TRUE(specs.ok()) << specs.status();
    ASSERT_EQ(specs->size(), 4u);
    EXPECT_EQ((*specs)[0].name, "x");
    EXPECT_EQ((*specs)[0].usage, TensorUsage::kInput);
    EXPECT_EQ((*specs)[0].dtype, DataType::kFloat32);
    EXPECT_THAT((*specs)[0].shape, ElementsAre(2, 3));
    EXPECT_EQ((*specs)[0].byte_size, 24u);
    EXPECT_EQ((*specs)[1].dtype, DataType::kInt32);
    EXPECT_EQ((*specs)[2].name, "y");
    EXPECT_EQ((*specs)[2].usage, TensorUsage::kOutput);

    auto inputs = runtime->AllocateTensorSet();
    auto outputs = runtime->AllocateTensorSet();
    ASSERT_TRUE(inputs.ok() && outputs.ok());
    std::vector<NrtTensor> tensors;
    for (const TensorSpec& spec : *specs) {
      auto tensor =
          runtime->AllocateTensor(NRT_TENSOR_PLACEMENT_DEVICE, 1, spec.byte_size, spec.name);
      ASSERT_TRUE(tensor.ok()) << tensor.status();
      NrtTensorSet& set = spec.usage == TensorUsage::kInput ? *inputs : *outputs;
      ASSERT_TRUE(set.Add(spec.name, *tensor).ok());
      tensors.push_back(*std::move(tensor));
    }
    EXPECT_EQ(SimStats().live_tensors, 4u);

    const float x[6] = {1, 1, 1, -2, 0, 4};
    const int32_t ids[4] = {7, -1, 0, 123456};
    ASSERT_TRUE(tensors[0].Write({reinterpret_cast<const uint8_t*>(x), sizeof(x)}).ok());
    ASSERT_TRUE(tensors[1].Write({reinterpret_cast<const uint8_t*>(ids), sizeof(ids)}).ok());
    ASSERT_TRUE(model->Execute(*inputs, *outputs).ok());

    float y[6] = {};
    int32_t ids_out[4] = {};
    ASSERT_TRUE(tensors[2].Read({reinterpret_cast<uint8_t*>(y), sizeof(y)}).ok());
    ASSERT_TRUE(tensors[3].Read({reinterpret_cast<uint8_t*>(ids_out), sizeof(ids_out)}).ok());
    EXPECT_THAT(y, ElementsAre(1.5f, 2.5f, 3.5f, -1.5f, 0.5f, 12.5f));
    EXPECT_THAT(ids_out, ElementsAre(7, -1, 0, 123456));

    // Out of bounds is the runtime's NRT_INVALID, reported with the operation.
    uint8_t too_much[25] = {};
    absl::Status bounds = tensors[0].Write(too_much);
    EXPECT_EQ(bounds.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(bounds.message(), HasSubstr("nrt_tensor_write: NRT_INVALID"));
    // Sets are released before the tensors they refer to.
    inputs->Reset();
    outputs->Reset();
  }
  nrtsim_stats_t stats = SimStats();
  EXPECT_EQ(stats.live_models, 0u);
  EXPECT_EQ(stats.live_tensors, 0u);
  EXPECT_EQ(stats.live_tensor_sets, 0u);
  EXPECT_EQ(stats.device_bytes_used, 0u);
}

TEST(NrtRuntimeTest, SequentialDtypeNumberingOfOlderRuntimes) {
  setenv("NRTSIM_VERSION", "2.29.0", 1);
  auto runtime = StartSimRuntime();
  ASSERT_NE(runtime, nullptr);
  EXPECT_EQ(runtime->dtype_numbering(), DtypeNumbering::kSequential);
  auto model = runtime->LoadModel(TextBytes(SimNeffFromJson(kAffineModel)), 0);
  ASSERT_TRUE(model.ok()) << model.status();
  auto specs = model->Tensors();
  ASSERT_TRUE(specs.ok()) << specs.status();
  EXPECT_EQ((*specs)[0].dtype, DataType::kFloat32);
  EXPECT_EQ((*specs)[1].dtype, DataType::kInt32);
}

TEST(NrtRuntimeTest, BadModelIsInvalidArgumentFromNrtLoad) {
  auto runtime = StartSimRuntime();
  ASSERT_NE(runtime, nullptr);
  auto model = runtime->LoadModel(TextBytes("definitely not a NEFF"), 0);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(model.status().message(), HasSubstr("nrt_load: NRT_INVALID (2)"));
}

TEST(NrtRuntimeTest, DeviceMemoryExhaustionIsResourceExhausted) {
  setenv("NRTSIM_HBM_BYTES", "1MiB", 1);
  auto runtime = StartSimRuntime();
  ASSERT_NE(runtime, nullptr);
  auto stats = runtime->MemoryStats(0);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->bytes_limit, 1u << 20);
  auto big = runtime->AllocateTensor(NRT_TENSOR_PLACEMENT_DEVICE, 0, 768 << 10, "big");
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(runtime->MemoryStats(0)->bytes_used, 768u << 10);
  auto more = runtime->AllocateTensor(NRT_TENSOR_PLACEMENT_DEVICE, 0, 512 << 10, "more");
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(more.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(more.status().message(), HasSubstr("NRT_RESOURCE"));
  EXPECT_THAT(more.status().message(), HasSubstr("tensor 'more'"));
  big->Reset();
  EXPECT_EQ(runtime->MemoryStats(0)->bytes_used, 0u);
  EXPECT_TRUE(runtime->AllocateTensor(NRT_TENSOR_PLACEMENT_DEVICE, 0, 512 << 10, "more").ok());
}

TEST(TensorSpecFromInfoTest, ADtypeThatDoesNotExplainTheSizeIsUnknownNotAGuess) {
  uint32_t shape[2] = {2, 3};
  nrt_tensor_info_t info{};
  std::strcpy(info.name, "logits");
  info.usage = NRT_TENSOR_USAGE_OUTPUT;
  info.size = 24;  // six float32s
  info.dtype = 1;  // FLOAT32 in the sequential table, UINT64 in the 2.30 one
  info.shape = shape;
  info.ndim = 2;
  std::string note = "stale";
  TensorSpec sequential = TensorSpecFromInfo(info, DtypeNumbering::kSequential, &note);
  EXPECT_EQ(sequential.dtype, DataType::kFloat32);
  EXPECT_EQ(note, "");
  // The size is the authority: the tensor keeps the runtime's 24 bytes, with dtype unknown.
  TensorSpec mismatched = TensorSpecFromInfo(info, DtypeNumbering::kRuntime230, &note);
  EXPECT_EQ(mismatched.dtype, DataType::kUnknown);
  EXPECT_EQ(mismatched.byte_size, 24u);
  EXPECT_EQ(mismatched.name, "logits");
  EXPECT_EQ(mismatched.usage, TensorUsage::kOutput);
  EXPECT_THAT(mismatched.shape, ElementsAre(2, 3));
  EXPECT_THAT(note, HasSubstr("tensor 'logits'"));
  EXPECT_THAT(note, HasSubstr("uint64"));
  EXPECT_THAT(note, HasSubstr("48 bytes"));
  EXPECT_THAT(note, HasSubstr("24 bytes"));
  info.dtype = 0x42;
  TensorSpec undefined = TensorSpecFromInfo(info, DtypeNumbering::kRuntime230, &note);
  EXPECT_EQ(undefined.dtype, DataType::kUnknown);
  EXPECT_EQ(undefined.byte_size, 24u);
  EXPECT_THAT(note, HasSubstr("dtype 66"));
  EXPECT_THAT(note, HasSubstr("does not define"));
}

TEST(TensorSpecFromInfoTest, AVoidDtypeIsUnknownWithTheRuntimesSize) {
  uint32_t shape[1] = {4};
  nrt_tensor_info_t info{};
  std::strcpy(info.name, "scores");
  info.usage = NRT_TENSOR_USAGE_OUTPUT;
  info.size = 8;  // four float16s, say; the runtime does not say
  info.dtype = 0;
  info.shape = shape;
  info.ndim = 1;
  std::string note;
  TensorSpec spec = TensorSpecFromInfo(info, DtypeNumbering::kRuntime230, &note);
  EXPECT_EQ(spec.dtype, DataType::kUnknown);
  EXPECT_EQ(spec.byte_size, 8u);
  EXPECT_EQ(note, "tensor 'scores': the runtime reports dtype 0 (void), shape [4] and 8 bytes");
  // The same in the older numbering, where 0 is void too.
  EXPECT_EQ(TensorSpecFromInfo(info, DtypeNumbering::kSequential).dtype, DataType::kUnknown);
}

TEST(RuntimeEnvironmentTest, AsyncExecVariableIsRefusedBeforeRuntime234) {
  RuntimeVersion old_runtime{.major = 2, .minor = 33, .patch = 1};
  absl::Status refused = CheckAsyncExecSetting(old_runtime, "16");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(),
              HasSubstr("NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS is set ('16')"));
  EXPECT_THAT(refused.message(), HasSubstr("Neuron runtime 2.33.1"));
  EXPECT_THAT(refused.message(), HasSubstr("nrt_register_async_exec_callback"));
  // Unset or empty: nothing to refuse.
  EXPECT_TRUE(CheckAsyncExecSetting(old_runtime, std::nullopt).ok());
  EXPECT_TRUE(CheckAsyncExecSetting(old_runtime, "").ok());
  // Removed in 2.34: the runtime ignores it.
  EXPECT_TRUE(CheckAsyncExecSetting(RuntimeVersion{.major = 2, .minor = 34}, "16").ok());
  EXPECT_TRUE(CheckAsyncExecSetting(RuntimeVersion{.major = 3, .minor = 0}, "16").ok());
}

}  // namespace
}  // namespace neuronserve
