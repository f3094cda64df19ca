// Shared helpers of the simulator tests: a fixture with a clean environment, RAII owners for
// the handles, sim NEFF construction and float tensor I/O, all through the dlopen'ed ABI.
#ifndef NEURON_SERVE_TESTS_SIM_SIM_TEST_UTIL_H_
#define NEURON_SERVE_TESTS_SIM_SIM_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/sim/nrt_api.h"
#include "tests/support/sim_model_files.h"

namespace nrtsim_test {

using nlohmann::json;

struct TensorFree {
  void operator()(nrt_tensor_t* tensor) const { Api().nrt_tensor_free(&tensor); }
};
struct ModelUnload {
  void operator()(nrt_model_t* model) const { Api().nrt_unload(model); }
};
struct TensorSetDestroy {
  void operator()(nrt_tensor_set_t* set) const { Api().nrt_destroy_tensor_set(&set); }
};
using TensorPtr = std::unique_ptr<nrt_tensor_t, TensorFree>;
using ModelPtr = std::unique_ptr<nrt_model_t, ModelUnload>;
using TensorSetPtr = std::unique_ptr<nrt_tensor_set_t, TensorSetDestroy>;

// The sim NEFF of hand-written JSON: SimNeffFromJson(model.dump()).
using ::neuronserve::testing::SimNeffFromJson;

// A float32 tensor declaration for "inputs"/"outputs".
json Float32(const std::string& name, std::vector<uint32_t> shape);

using FloatMap = std::map<std::string, std::vector<float>>;
// Tensor name -> its bytes.
using ByteMap = std::map<std::string, std::string>;

class SimTest : public ::testing::Test {
 protected:
  // Clears every variable the simulator reads, except NRTSIM_LOCK_DIR, so each case starts from
  // the defaults.
  void SetUp() override;
  // Closes the runtime (a no-op if the case already did).
  void TearDown() override;

  static void SetEnv(const char* name, const std::string& value);

  const NrtApi& api() const { return Api(); }
  void Init();  // nrt_init(NO_FW) must succeed
  nrtsim_stats_t Stats() const;

  NRT_STATUS Load(const json& model, ModelPtr* out, int32_t vnc = 0, int32_t vnc_count = -1);
  NRT_STATUS LoadBytes(const std::string& bytes, ModelPtr* out, int32_t vnc = 0,
                       int32_t vnc_count = -1);
  ModelPtr MustLoad(const json& model, int32_t vnc = 0);

  NRT_STATUS Allocate(nrt_tensor_placement_t placement, int vnc, size_t size, TensorPtr* out);
  TensorPtr MustAllocate(nrt_tensor_placement_t placement, int vnc, size_t size);
  TensorSetPtr MustAllocateSet();
  void MustAdd(nrt_tensor_set_t* set, const std::string& name, nrt_tensor_t* tensor);

  static void WriteFloats(nrt_tensor_t* tensor, const std::vector<float>& values);
  static std::vector<float> ReadFloats(const nrt_tensor_t* tensor);

  // Executes `model` with float32 inputs and outputs in DEVICE tensors on core `vnc`;
  // output_sizes gives the element count of each output. Fills *outputs on success.
  NRT_STATUS Run(nrt_model_t* model, int vnc, const FloatMap& inputs,
                 const std::map<std::string, size_t>& output_sizes, FloatMap* outputs);

  // Executes `model` on core 0 with inputs and outputs of any dtype as bytes in DEVICE tensors;
  // output_bytes gives the byte size of each output. Fills *outputs on success.
  NRT_STATUS RunBytes(nrt_model_t* model, const ByteMap& inputs,
                      const std::map<std::string, size_t>& output_bytes, ByteMap* outputs);
};

}  // namespace nrtsim_test

#endif  // NEURON_SERVE_TESTS_SIM_SIM_TEST_UTIL_H_
