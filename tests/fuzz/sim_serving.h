// The inference fuzz targets' daemon side: the simulated runtime (libnrtsim.so, opened with
// dlopen as the daemon opens libnrt), a ModelRegistry on it and the models below loaded READY,
// built once per fuzzer process (LLVMFuzzerInitialize) so that each input only binds a call.
//
// Models, each version "1":
// - kMlpModel: the sim README's tiny MLP, float32 x [1,4] -> float32 y [1,3] (matmul, add,
//   softmax);
// - kDtypesModel: one identity per dtype the protocols treat differently (float16, bfloat16,
//   int64, int8, uint8, int16, uint16, int32, uint32, uint64, fp8_e4, float32), input "<dtype>"
//   to output "<dtype>_out", small shapes of one to three dimensions;
// - kBrokenModel: a file the simulator refuses, so the registry keeps it FAILED (Acquire
//   answers NOT_FOUND naming its state).
//
// Thread safety: SimServingContext() is safe to call from any thread; the registry is
// thread-safe. Ownership: everything lives until the process exits (never destroyed: the
// fuzzer exits without unwinding, and the registry's threads must outlive every call).
#ifndef NEURON_SERVE_TESTS_FUZZ_SIM_SERVING_H_
#define NEURON_SERVE_TESTS_FUZZ_SIM_SERVING_H_

#include <cstdint>
#include <string_view>

#include "core/lifecycle/model_registry.h"
#include "server/call/infer_context.h"

namespace neuronserve::fuzz {

inline constexpr std::string_view kMlpModel = "mlp";
inline constexpr std::string_view kDtypesModel = "dtypes";
inline constexpr std::string_view kBrokenModel = "broken";

// Shared memory (server/shared_memory): client shared memory on, and these regions registered
// over one object the fuzzer makes at start (its key unlinked at once, so nothing stays in
// /dev/shm): kSharedRegion, kSharedRegionBytes at offset 0, and kSharedOffsetRegion,
// kSharedOffsetRegionBytes at the unaligned offset kSharedOffsetRegionOffset. A request may name
// them (or any other name, which is refused).
inline constexpr std::string_view kSharedRegion = "fuzz";
inline constexpr uint64_t kSharedRegionBytes = 64 * 1024;
inline constexpr std::string_view kSharedOffsetRegion = "fuzz_offset";
inline constexpr uint64_t kSharedOffsetRegionOffset = 100;
inline constexpr uint64_t kSharedOffsetRegionBytes = 4096;

// The context calls bind against (the registry and shared memory only: no metrics, gate, logs
// or tokens). The first
// call starts the runtime and loads the models; it aborts, saying why on stderr, when that fails.
const InferContext& SimServingContext();

}  // namespace neuronserve::fuzz

#endif  // NEURON_SERVE_TESTS_FUZZ_SIM_SERVING_H_
