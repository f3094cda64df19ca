#include "tests/core/sim_fixture.h"

#include <dlfcn.h>
#include <stdlib.h>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/support/sim_model_files.h"

namespace neuronserve::testing {

std::unique_ptr<NrtRuntime> StartSimRuntime() {
  absl::StatusOr<std::unique_ptr<NrtLibrary>> library = NrtLibrary::Open(SimLibraryPath());
  EXPECT_TRUE(library.ok()) << library.status();
  if (!library.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<NrtRuntime>> runtime = NrtRuntime::Start(*std::move(library));
  EXPECT_TRUE(runtime.ok()) << runtime.status();
  return runtime.ok() ? *std::move(runtime) : nullptr;
}

void SimRuntimeTest::SetUp() {
  setenv("NRTSIM_CORES", absl::StrCat(kSimCores).c_str(), 1);
  runtime_ = StartSimRuntime();
  ASSERT_NE(runtime_, nullptr);
}

SimLibraryPin::SimLibraryPin() : handle_(dlopen(SimLibraryPath(), RTLD_NOW)) {
  EXPECT_NE(handle_, nullptr) << dlerror();
}

SimLibraryPin::~SimLibraryPin() {
  if (handle_ != nullptr) dlclose(handle_);
}

nrtsim_core_busy_t SimCoreBusy(uint32_t core) {
  void* handle = dlopen(SimLibraryPath(), RTLD_NOW | RTLD_NOLOAD);
  nrtsim_core_busy_t busy{};
  if (handle == nullptr) {
    ADD_FAILURE() << "libnrtsim.so is not loaded";
    return busy;
  }
  auto get_busy =
      reinterpret_cast<decltype(&nrtsim_get_core_busy)>(dlsym(handle, "nrtsim_get_core_busy"));
  EXPECT_NE(get_busy, nullptr);
  if (get_busy != nullptr) {
    EXPECT_EQ(get_busy(static_cast<int32_t>(core), &busy, sizeof(busy)), NRT_SUCCESS);
  }
  dlclose(handle);
  return busy;
}

void SimResetPeak() {
  void* handle = dlopen(SimLibraryPath(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) {
    ADD_FAILURE() << "libnrtsim.so is not loaded";
    return;
  }
  auto reset = reinterpret_cast<decltype(&nrtsim_reset_peak)>(dlsym(handle, "nrtsim_reset_peak"));
  EXPECT_NE(reset, nullptr);
  if (reset != nullptr) reset();
  dlclose(handle);
}

nrtsim_stats_t SimStats() {
  // RTLD_NOLOAD: the library must already be loaded by the binding; this only finds it.
  void* handle = dlopen(SimLibraryPath(), RTLD_NOW | RTLD_NOLOAD);
  nrtsim_stats_t stats{};
  if (handle == nullptr) {
    ADD_FAILURE() << "libnrtsim.so is not loaded";
    return stats;
  }
  auto get_stats = reinterpret_cast<decltype(&nrtsim_get_stats)>(dlsym(handle, "nrtsim_get_stats"));
  EXPECT_NE(get_stats, nullptr);
  if (get_stats != nullptr) {
    EXPECT_EQ(get_stats(&stats, sizeof(stats)), NRT_SUCCESS);
  }
  dlclose(handle);
  return stats;
}

std::shared_ptr<const std::string> ReluNeff(int nc_count) {
  const std::string json = absl::StrCat(R"({"nc_count": )", nc_count, R"(,
          "inputs": [{"name": "x", "dtype": "float32", "shape": [4]}],
          "outputs": [{"name": "y", "dtype": "float32", "shape": [4]}],
          "ops": [{"op": "relu", "inputs": ["x"], "output": "y"}]})");
  return std::make_shared<const std::string>(SimNeffFromJson(json));
}

}  // namespace neuronserve::testing
