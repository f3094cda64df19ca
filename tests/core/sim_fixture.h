// Helpers for core tests that run against the simulated runtime through the real binding.
#ifndef NEURON_SERVE_TESTS_CORE_SIM_FIXTURE_H_
#define NEURON_SERVE_TESTS_CORE_SIM_FIXTURE_H_

#include <memory>
#include <string>

#include "core/nrt/nrt_runtime.h"
#include "gtest/gtest.h"
#include "sim/nrtsim_stats.h"
#include "tests/support/build_paths.h"

namespace neuronserve::testing {

// The built libnrtsim.so.
inline const char* SimLibraryPath() { return NRTSIM_LIBRARY_PATH; }

// Opens the simulator with the binding and starts the runtime; fails the test on error.
std::unique_ptr<NrtRuntime> StartSimRuntime();

// A case on a simulated machine of kSimCores cores (NRTSIM_CORES is set for the process): the
// runtime is started in SetUp and stopped with the fixture.
class SimRuntimeTest : public ::testing::Test {
 protected:
  static constexpr uint32_t kSimCores = 4;
  void SetUp() override;
  std::unique_ptr<NrtRuntime> runtime_;
};

// Keeps libnrtsim.so mapped while alive, so its counters survive the binding's dlclose.
class SimLibraryPin {
 public:
  SimLibraryPin();
  ~SimLibraryPin();
  SimLibraryPin(const SimLibraryPin&) = delete;
  SimLibraryPin& operator=(const SimLibraryPin&) = delete;

 private:
  void* handle_;
};

// The simulator's own counters (a sim-only export, looked up with dlsym as a test would).
nrtsim_stats_t SimStats();
// What visible core `core` did since nrt_init (nrtsim_get_core_busy): executions, copies, and
// the copies that began while it executed.
nrtsim_core_busy_t SimCoreBusy(uint32_t core);
// nrtsim_reset_peak: SimStats().peak_concurrent_executions restarts from the executions inside
// the device now (so, after it, a peak of 1 or more says one has entered the device since).
void SimResetPeak();

// The smallest useful model: y = relu(x), float32 [4] in and out, occupying `nc_count` cores per
// replica; shared, as the load specs of the lifecycle tests take it.
std::shared_ptr<const std::string> ReluNeff(int nc_count = 1);

}  // namespace neuronserve::testing

#endif  // NEURON_SERVE_TESTS_CORE_SIM_FIXTURE_H_
