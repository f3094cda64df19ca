#include "tests/fuzz/sim_serving.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/mutex.h"
#include "core/nrt/nrt_library.h"
#include "core/nrt/nrt_runtime.h"
#include "core/serving/execution/worker_pool.h"
#include "server/shared_memory/shared_memory_registry.h"
#include "sim/simmodel/sim_model.h"
#include "tests/support/build_paths.h"

namespace neuronserve::fuzz {
namespace {

constexpr int kSimCores = 4;

const char* const kMlpJson = R"({
  "inputs": [{"name": "x", "dtype": "float32", "shape": [1, 4]}],
  "outputs": [{"name": "y", "dtype": "float32", "shape": [1, 3]}],
  "constants": {
    "w": {"shape": [4, 3], "data": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2]},
    "b": {"shape": [3], "data": [0.0, 0.5, -0.5]}
  },
  "ops": [{"op": "matmul", "inputs": ["x", "w"], "output": "h"},
          {"op": "add", "inputs": ["h", "b"], "output": "hb"},
          {"op": "softmax", "inputs": ["hb"], "output": "y"}]})";

// Every dtype whose field rules differ somewhere (a typed field wider than the element, no v2
// name, BOOL, ...), with shapes of one to three dimensions.
struct DtypeTensor {
  const char* dtype;
  const char* shape;
};
constexpr DtypeTensor kDtypeTensors[] = {
    {"float16", "[2, 2]"}, {"bfloat16", "[3]"}, {"int64", "[1, 3]"}, {"int8", "[4]"},
    {"uint8", "[2]"},      {"int16", "[2, 1]"}, {"uint16", "[2]"},   {"int32", "[1, 1, 2]"},
    {"uint32", "[2]"},     {"uint64", "[1]"},   {"fp8_e4", "[2]"},   {"float32", "[2]"},
};

std::string DtypesJson() {
  std::string inputs, outputs, ops;
  for (const DtypeTensor& tensor : kDtypeTensors) {
    const std::string separator = inputs.empty() ? "" : ", ";
    absl::StrAppend(&inputs, separator, R"({"name": ")", tensor.dtype, R"(", "dtype": ")",
                    tensor.dtype, R"(", "shape": )", tensor.shape, "}");
    absl::StrAppend(&outputs, separator, R"({"name": ")", tensor.dtype, R"(_out", "dtype": ")",
                    tensor.dtype, R"(", "shape": )", tensor.shape, "}");
    absl::StrAppend(&ops, separator, R"({"op": "identity", "inputs": [")", tensor.dtype,
                    R"("], "output": ")", tensor.dtype, R"(_out"})");
  }
  return absl::StrCat(R"({"inputs": [)", inputs, R"(], "outputs": [)", outputs, R"(], "ops": [)",
                      ops, "]}");
}

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "sim_serving: %s\n", what.c_str());
  std::abort();
}

// Loads `json` (a sim model's JSON, or any bytes after the magic) as `name` version 1 and waits
// for the outcome; `expect_ready` false: the load must fail.
void LoadModel(ModelRegistry& registry, std::string_view name, const std::string& json,
               bool expect_ready) {
  LoadSpec spec;
  spec.identity = ModelIdentity{std::string(name), "1", ModelSource::kUpload};
  spec.neff =
      std::make_shared<const std::string>(absl::StrCat(std::string(simmodel::kSimNeffMagic), json));
  // Shared with the callback, which runs on the registry's thread.
  auto done = std::make_shared<Notification>();
  auto outcome = std::make_shared<absl::Status>();
  registry.Load(std::move(spec), [done, outcome](absl::StatusOr<ModelInfo> result) {
    *outcome = result.status();
    done->Notify();
  });
  if (!done->WaitForNotificationWithTimeout(absl::Seconds(60))) {
    Fail(absl::StrCat("model '", std::string(name), "' did not finish loading in 60 s"));
  }
  if (outcome->ok() != expect_ready) {
    Fail(absl::StrCat("model '", std::string(name), "': load ",
                      expect_ready ? "failed: " : "succeeded: ", outcome->ToString()));
  }
}

struct SimServing {
  std::unique_ptr<NrtRuntime> runtime;
  std::unique_ptr<WorkerPool> workers;
  std::unique_ptr<ModelRegistry> registry;
  std::unique_ptr<SharedMemoryRegistry> shared_memory;
  InferContext context;
};

// The object behind the fuzz regions, made as a client makes one; registered, then its key is
// unlinked (the mappings stay).
void RegisterSharedRegions(SharedMemoryRegistry& registry) {
  const std::string key = absl::StrCat("/neuron-serve-fuzz-", getpid());
  const int fd = shm_open(key.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) Fail(absl::StrCat("cannot create the shared memory object: ", strerror(errno)));
  if (ftruncate(fd, static_cast<off_t>(kSharedRegionBytes)) != 0) Fail("cannot size it");
  close(fd);
  absl::Status registered =
      registry.Register(std::string(kSharedRegion), key, 0, kSharedRegionBytes);
  if (registered.ok()) {
    registered = registry.Register(std::string(kSharedOffsetRegion), key, kSharedOffsetRegionOffset,
                                   kSharedOffsetRegionBytes);
  }
  shm_unlink(key.c_str());
  if (!registered.ok()) Fail(registered.ToString());
}

SimServing* StartSimServing() {
  setenv("NRTSIM_CORES", std::to_string(kSimCores).c_str(), 1);
  absl::StatusOr<std::unique_ptr<NrtLibrary>> library = NrtLibrary::Open(NRTSIM_LIBRARY_PATH);
  if (!library.ok()) Fail(library.status().ToString());
  absl::StatusOr<std::unique_ptr<NrtRuntime>> runtime = NrtRuntime::Start(*std::move(library));
  if (!runtime.ok()) Fail(runtime.status().ToString());
  auto serving = new SimServing;
  serving->runtime = *std::move(runtime);
  serving->workers = std::make_unique<WorkerPool>(kSimCores);
  serving->registry = std::make_unique<ModelRegistry>(*serving->runtime, *serving->workers,
                                                      /*store=*/nullptr);
  LoadModel(*serving->registry, kMlpModel, kMlpJson, true);
  LoadModel(*serving->registry, kDtypesModel, DtypesJson(), true);
  LoadModel(*serving->registry, kBrokenModel, R"({"inputs": "not a list"})", false);
  SharedMemoryPolicy shared_memory;
  shared_memory.allow_client = true;
  serving->shared_memory = std::make_unique<SharedMemoryRegistry>(shared_memory);
  RegisterSharedRegions(*serving->shared_memory);
  serving->context.registry = serving->registry.get();
  serving->context.shared_memory = serving->shared_memory.get();
  return serving;
}

}  // namespace

const InferContext& SimServingContext() {
  // Never destroyed (sim_serving.h): reachable from here, so LeakSanitizer does not report it.
  static SimServing* const serving = StartSimServing();
  return serving->context;
}

}  // namespace neuronserve::fuzz
